import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { isEmptyFilter } from "./filter.ts";
import { projectingQuery } from "./mingo.ts";

/** Applies a projection to a batch of documents; `null` when there is nothing to project. */
export type Projector = ((docs: Document[]) => Document[]) | null;

/**
 * A projection that only includes or only excludes top-level fields (what list endpoints
 * send: `{ _id: 1, name: 1 }`, `{ password: 0 }`), done by picking fields: no cloning, and
 * the document's field order is kept as MongoDB does. Undefined for anything richer.
 */
function topLevelProjection(projection: Document): Projector | undefined {
  let mode: "include" | "exclude" | undefined;
  let keepId = true;
  const fields = new Set<string>();
  for (const [field, value] of Object.entries(projection)) {
    if (field.includes(".") || field.startsWith("$")) return undefined;
    const on = value === 1 || value === true;
    if (!on && value !== 0 && value !== false) return undefined;
    if (field === "_id") {
      keepId = on;
      continue;
    }
    if (mode !== undefined && mode !== (on ? "include" : "exclude")) return undefined;
    mode = on ? "include" : "exclude";
    fields.add(field);
  }
  // `{ _id: 1 }` alone includes only _id; `{ _id: 0 }` alone excludes only _id.
  const including = mode === "include" || (mode === undefined && keepId);
  const keep = (field: string): boolean =>
    field === "_id" ? keepId : including ? fields.has(field) : !fields.has(field);
  return (docs) =>
    docs.map((doc) => {
      const out: Document = {};
      for (const field of Object.keys(doc)) if (keep(field)) out[field] = doc[field];
      return out;
    });
}

/**
 * Compiles a find projection. Simple top-level ones are picked directly; the rest go to
 * mingo, with input documents cloned first because they are the stored ones (mingo's
 * projection may write into what it is given). Only a batch is projected at a time.
 */
export function compileProjection(projection: unknown, filter?: unknown): Projector {
  if (isEmptyFilter(projection)) return null;
  if (!isPlainObject(projection)) throw new CommandError("TypeMismatch", "projection must be an object");
  const simple = topLevelProjection(projection);
  if (simple) return simple;
  // The filter only matters to positional projections ("a.$"); the batch already matches it.
  const positional = Object.keys(projection).some((k) => k.endsWith(".$"));
  const condition = positional && isPlainObject(filter) ? filter : {};
  const query = projectingQuery(condition);
  return (docs) => query.find<Document>(docs, projection).all();
}
