import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { valuesAt } from "../store/paths.ts";
import { compareValues } from "../store/values.ts";

/** How a find/aggregate sort relates to the stored `_id` order. */
export type SortKind = "natural" | "reverse" | "custom";

/** Classifies a sort spec: none or `{_id: 1}` reads in stored order, `{_id: -1}` backwards. */
export function sortKind(spec: unknown): SortKind {
  if (spec === undefined || spec === null) return "natural";
  if (!isPlainObject(spec)) throw new CommandError("BadValue", "sort must be an object");
  const keys = Object.keys(spec);
  if (keys.length === 0) return "natural";
  // Stored order is _id order, so {$natural} (insertion order in MongoDB) reads the same way.
  if (keys.length === 1 && (keys[0] === "_id" || keys[0] === "$natural")) {
    return direction(spec[keys[0]]) === 1 ? "natural" : "reverse";
  }
  return "custom";
}

function direction(v: unknown): 1 | -1 {
  const n = toNumber(v);
  if (n === 1) return 1;
  if (n === -1) return -1;
  throw new CommandError("BadValue", `bad sort specification: ${JSON.stringify(v)}`);
}

/** The value a document sorts by on one field: arrays sort by their min (asc) or max (desc). */
function sortValue(doc: Document, path: string, dir: 1 | -1): unknown {
  const values = valuesAt(doc, path);
  let best = values[0] ?? null;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] ?? null;
    if (compareValues(v, best) * dir < 0) best = v;
  }
  return best ?? null;
}

interface Keyed {
  doc: Document;
  keys: unknown[];
}

/**
 * Sorts documents by a spec, keeping at most `keep` of them (0: all). Sort keys are computed
 * once per document; with a bound, a sorted buffer of `keep` entries is maintained, so a
 * top-k over a large collection costs O(n log k) and holds only k documents. Stable.
 */
export function sortDocuments(docs: Iterable<Document>, spec: Document, keep: number): Document[] {
  const fields = Object.keys(spec);
  const dirs = fields.map((f) => direction(spec[f]));
  const cmp = (a: Keyed, b: Keyed): number => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * dirs[i];
    }
    return 0;
  };
  const out: Keyed[] = [];
  for (const doc of docs) {
    const item = { doc, keys: fields.map((f, i) => sortValue(doc, f, dirs[i])) };
    if (keep === 0) {
      out.push(item);
      continue;
    }
    if (out.length === keep && cmp(item, out[keep - 1]) >= 0) continue;
    out.splice(upperBound(out, item, cmp), 0, item);
    if (out.length > keep) out.pop();
  }
  if (keep === 0) out.sort(cmp);
  return out.map((k) => k.doc);
}

function upperBound(list: Keyed[], item: Keyed, cmp: (a: Keyed, b: Keyed) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(list[mid], item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
