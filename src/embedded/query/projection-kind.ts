import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";

/**
 * Refuses a projection that both includes and excludes fields, as MongoDB's projection parser
 * does (projection_ast/projection_parser.cpp): the first field (other than a top-level `_id`)
 * decides the kind, and a later field of the other kind fails with 31254 (an exclusion in an
 * inclusion projection) or 31253 (an inclusion in an exclusion projection), naming the field as
 * written. `_id` may be excluded from an inclusion projection, or included in an exclusion one.
 * Only flags (numbers and booleans) and sub-documents of them are judged here; expressions,
 * `$slice`, `$elemMatch` and `$meta` are left to the projection itself.
 */
export function checkProjectionKind(projection: Document): void {
  walk(projection, true, { kind: undefined });
}

interface Kind {
  kind: "inclusion" | "exclusion" | undefined;
}

function walk(level: Document, root: boolean, state: Kind): void {
  for (const [field, value] of Object.entries(level)) {
    if (isPlainObject(value)) {
      const first = Object.keys(value)[0];
      if (first !== undefined && !first.startsWith("$")) walk(value, false, state);
      continue;
    }
    if (typeof value !== "number" && typeof value !== "boolean") continue;
    if (root && field === "_id") continue;
    const kind = value === 0 || value === false ? "exclusion" : "inclusion";
    if (state.kind === undefined) state.kind = kind;
    else if (state.kind !== kind) throw mixed(field, kind);
  }
}

function mixed(field: string, kind: "inclusion" | "exclusion"): CommandError {
  return kind === "exclusion"
    ? new CommandError("Location31254", `Cannot do exclusion on field ${field} in inclusion projection`)
    : new CommandError("Location31253", `Cannot do inclusion on field ${field} in exclusion projection`);
}
