import type { Document } from "bson";
import { isPlainObject, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import { mingoQuery } from "./mingo.ts";

/** `$[]` or `$[identifier]`: the identifier, "" for all elements. */
const ALL_OR_FILTERED = /^\$\[([a-z][a-zA-Z0-9]*)?\]$/;

/** Whether a path part is `$[]` or `$[identifier]`. */
export function isArrayUpdatePart(part: string): boolean {
  return ALL_OR_FILTERED.test(part);
}

/** One element path an array update reaches: its parts, and what it holds (undefined: missing). */
export interface ElementPath {
  parts: string[];
  value: unknown;
}

/**
 * The element paths an update path with `$[]` or `$[identifier]` parts stands for in `doc`:
 * `$[]` every element of the array there, `$[i]` those the array filter on `i` matches.
 * Undefined when the path has no such part, or when it goes where only mingo follows (through
 * an array by a field name, or an identifier without its filter). Throws as MongoDB's update
 * driver does (update_array_node.cpp, update_object_node.cpp) when the array is missing or is
 * not an array: code 2, the whole update refused.
 */
export function elementPaths(
  doc: Document,
  path: string,
  filters: readonly Document[] = [],
  collation?: Collation,
): ElementPath[] | undefined {
  const parts = path.split(".");
  if (!parts.some((part) => ALL_OR_FILTERED.test(part))) return undefined;
  let reached: ElementPath[] = [{ parts: [], value: doc }];
  for (const part of parts) {
    const next: ElementPath[] = [];
    for (const at of reached) {
      const stepped = step(at, part, filters, collation);
      if (stepped === undefined) return undefined;
      next.push(...stepped);
    }
    reached = next;
  }
  return reached;
}

function step(
  at: ElementPath,
  part: string,
  filters: readonly Document[],
  collation: Collation | undefined,
): ElementPath[] | undefined {
  const positional = ALL_OR_FILTERED.exec(part);
  if (positional) return elementsOf(at, positional[1], filters, collation);
  const { value } = at;
  const parts = [...at.parts, part];
  if (isPlainObject(value)) return [{ parts, value: value[part] }];
  if (Array.isArray(value) && /^\d+$/.test(part)) return [{ parts, value: value[Number(part)] }];
  // Missing: created below, or refused at a later positional part. Else a field in a scalar,
  // which the checks of the element path refuse (PathNotViable), or one in an array: mingo's.
  if (value === undefined) return [{ parts, value: undefined }];
  return Array.isArray(value) ? undefined : [{ parts, value: undefined }];
}

function elementsOf(
  at: ElementPath,
  identifier: string | undefined,
  filters: readonly Document[],
  collation: Collation | undefined,
) {
  const { parts, value } = at;
  if (value === undefined) {
    throw new CommandError(
      "BadValue",
      `The path '${parts.join(".")}' must exist in the document in order to apply array updates.`,
    );
  }
  if (!Array.isArray(value)) {
    // MongoDB prints the element as `name: value`.
    const name = parts[parts.length - 1] ?? "";
    throw new CommandError("BadValue", `Cannot apply array updates to non-array element ${name}: ${valueText(value)}`);
  }
  const matches = identifier === undefined ? () => true : filterFor(identifier, filters, collation);
  if (matches === undefined) return undefined;
  const out: ElementPath[] = [];
  value.forEach((element, i) => {
    if (matches(element)) out.push({ parts: [...parts, String(i)], value: element });
  });
  return out;
}

/**
 * The test of the array filter on `identifier` under the update's collation, or undefined when
 * there is none (mingo refuses that).
 */
function filterFor(
  identifier: string,
  filters: readonly Document[],
  collation: Collation | undefined,
): ((element: unknown) => boolean) | undefined {
  const filter = filters.find((f) => Object.keys(f).some((k) => k === identifier || k.startsWith(`${identifier}.`)));
  if (filter === undefined) return undefined;
  const query = mingoQuery(filter, collation);
  return (element) => query.test({ [identifier]: element });
}

/** The part of a path before its first `$[]` or `$[identifier]` (mingo's node for it), if it has one. */
function arrayNodeOf(path: string): string | undefined {
  const parts = path.split(".");
  const at = parts.findIndex((part) => ALL_OR_FILTERED.test(part));
  return at < 0 ? undefined : parts.slice(0, at).join(".");
}

/**
 * The update with the paths through `$[]` or `$[identifier]` that share an array (`a.$[i]` and
 * `a.$[j]`) replaced by the element paths they reach in `doc`. mingo refuses two such paths as
 * a conflict on the array; MongoDB merges them (update_array_node.cpp), and refuses only when
 * two reach one element: code 40, "Update created a conflict at 'a.0'", the path printed up to
 * the last part where the two differ, as written after it. Other updates are returned as given.
 */
export function expandSharedArrayPaths(
  doc: Document,
  update: Document,
  filters: readonly Document[] = [],
  collation?: Collation,
): Document {
  const byNode = new Map<string, number>();
  for (const fields of Object.values(update)) {
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) {
      const node = arrayNodeOf(path);
      if (node !== undefined) byNode.set(node, (byNode.get(node) ?? 0) + 1);
    }
  }
  const shared = new Set([...byNode].filter(([, count]) => count > 1).map(([node]) => node));
  if (shared.size === 0) return update;
  const expanded = new Map<string, ElementPath[]>();
  for (const fields of Object.values(update)) {
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) {
      const node = arrayNodeOf(path);
      if (node === undefined || !shared.has(node)) continue;
      const elements = elementPaths(doc, path, filters, collation);
      if (elements === undefined) return update;
      expanded.set(path, elements);
    }
  }
  refuseSharedElements(expanded);
  const out: Document = {};
  for (const [op, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) {
      out[op] = fields;
      continue;
    }
    const rewritten: Document = {};
    for (const [path, value] of Object.entries(fields)) {
      const elements = expanded.get(path);
      if (elements === undefined) rewritten[path] = value;
      else for (const element of elements) rewritten[element.parts.join(".")] = value;
    }
    out[op] = rewritten;
  }
  return out;
}

/** Refuses two written paths that reach one element path, or one inside the other. */
function refuseSharedElements(expanded: Map<string, ElementPath[]>): void {
  const reached = new Map<string, string>();
  for (const [path, elements] of expanded) {
    for (const { parts } of elements) reached.set(parts.join("."), path);
  }
  for (const [path, elements] of expanded) {
    for (const { parts } of elements) {
      for (let n = 1; n <= parts.length; n++) {
        const other = reached.get(parts.slice(0, n).join("."));
        if (other === undefined || other === path) continue;
        throw new CommandError(
          "ConflictingUpdateOperators",
          `Update created a conflict at '${conflictPath(path, other, parts)}'`,
        );
      }
    }
  }
}

/** The element path up to the last part where two written paths differ, then the rest as written. */
function conflictPath(path: string, other: string, reached: string[]): string {
  const written = path.split(".");
  const otherParts = other.split(".");
  let last = 0;
  for (let i = 0; i < Math.min(written.length, otherParts.length); i++) if (written[i] !== otherParts[i]) last = i;
  return [...reached.slice(0, last + 1), ...written.slice(last + 1)].join(".");
}
