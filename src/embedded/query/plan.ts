import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import type { Collection } from "../store/collection.ts";
import { compareValues } from "../store/values.ts";
import { compileFilter, equalityValue, type Predicate } from "./filter.ts";
import { sortDocuments, sortKind } from "./sort.ts";

/** What a find-like read asks for. `limit` 0 means no limit. */
export interface ReadSpec {
  filter?: unknown;
  sort?: unknown;
  skip?: number;
  limit?: number;
}

/**
 * The documents an index can narrow a filter to, in `_id` order, or undefined when the whole
 * collection must be read. Candidates are still tested against the full filter afterwards.
 */
export function indexCandidates(coll: Collection, filter: unknown): Document[] | undefined {
  if (!isPlainObject(filter)) return undefined;
  if ("_id" in filter) {
    const byId = idCandidates(coll, filter._id);
    if (byId) return byId;
  }
  for (const index of coll.uniqueIndexes()) {
    const values: unknown[] = [];
    for (const field of Object.keys(index.spec.key)) {
      const eq = field in filter ? equalityValue(filter[field]) : undefined;
      if (!eq) break;
      values.push(eq.value);
    }
    if (values.length !== Object.keys(index.spec.key).length) continue;
    const owner = index.owner(index.keyFor(values));
    const doc = owner === undefined ? undefined : coll.docs.getByKey(owner);
    return doc ? [doc] : [];
  }
  return undefined;
}

function idCandidates(coll: Collection, cond: unknown): Document[] | undefined {
  const eq = equalityValue(cond);
  if (eq) {
    const doc = coll.docs.get(eq.value);
    return doc ? [doc] : [];
  }
  if (!isPlainObject(cond) || Object.keys(cond).length !== 1 || !Array.isArray(cond.$in)) return undefined;
  if (cond.$in.some((v) => v instanceof RegExp || Array.isArray(v) || isPlainObject(v))) return undefined;
  const found = new Set<Document>();
  for (const v of cond.$in) {
    const doc = coll.docs.get(v);
    if (doc) found.add(doc);
  }
  return [...found].sort((a, b) => compareValues(a._id, b._id));
}

function* filtered(source: Iterable<Document>, predicate: Predicate): Generator<Document> {
  for (const doc of source) if (predicate === null || predicate(doc)) yield doc;
}

function* window(source: Iterator<Document>, skip: number, limit: number): Generator<Document> {
  for (let i = 0; i < skip; i++) if (source.next().done) return;
  for (let n = 0; limit === 0 || n < limit; n++) {
    const step = source.next();
    if (step.done) return;
    yield step.value;
  }
}

/**
 * Runs a read lazily. In stored order (no sort, or by `_id`) it streams: with no filter, skip
 * is a position in the `_id` array; with a filter, it stops once skip+limit matches are seen.
 * Another sort keeps only skip+limit documents (top-k). Nothing else is materialised.
 */
export function runRead(coll: Collection | undefined, spec: ReadSpec): Iterator<Document> {
  if (!coll) return [][Symbol.iterator]();
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const predicate = compileFilter(spec.filter);
  const kind = sortKind(spec.sort);
  const narrowed = indexCandidates(coll, spec.filter);
  if (kind === "custom") {
    const keep = limit === 0 ? 0 : skip + limit;
    const source = filtered(narrowed ?? coll.docs.iterate(), predicate);
    return sortDocuments(source, spec.sort as Document, keep).slice(skip)[Symbol.iterator]();
  }
  const reverse = kind === "reverse";
  if (narrowed) {
    const ordered = reverse ? narrowed.reverse() : narrowed;
    return window(filtered(ordered, predicate), skip, limit);
  }
  if (predicate === null) return window(coll.docs.iterate(reverse, skip), 0, limit);
  return window(filtered(coll.docs.iterate(reverse), predicate), skip, limit);
}

/** Counts matches (then applies skip/limit); an empty filter is answered from the size. */
export function countMatching(coll: Collection | undefined, filter: unknown, skip = 0, limit = 0): number {
  if (!coll) return 0;
  const predicate = compileFilter(filter);
  const narrowed = indexCandidates(coll, filter);
  let n = 0;
  if (predicate === null && !narrowed) n = coll.docs.size;
  else for (const _ of filtered(narrowed ?? coll.docs.iterate(), predicate)) n++;
  n = Math.max(0, n - skip);
  return limit > 0 ? Math.min(n, limit) : n;
}

/** Drains a read into an array (for writes, which must know their targets before changing them). */
export function collect<T>(it: Iterator<T>): T[] {
  const out: T[] = [];
  for (let step = it.next(); !step.done; step = it.next()) out.push(step.value);
  return out;
}
