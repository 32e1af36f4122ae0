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

/** Documents an index narrowed a filter to, in `_id` order. */
export interface Candidates {
  docs: Document[];
  /** The index lookup alone decides the filter (nothing else in it), so no predicate is needed. */
  exact: boolean;
}

/**
 * The documents an index can narrow a filter to, or undefined when the whole collection must
 * be read: equality (or `$in`) on `_id`, or equality on every field of a unique index.
 */
export function indexCandidates(coll: Collection, filter: unknown): Candidates | undefined {
  if (!isPlainObject(filter)) return undefined;
  const fields = Object.keys(filter);
  if ("_id" in filter) {
    const byId = idCandidates(coll, filter._id);
    if (byId) return { docs: byId, exact: fields.length === 1 };
  }
  for (const index of coll.uniqueIndexes()) {
    const keyFields = Object.keys(index.spec.key);
    const values: unknown[] = [];
    for (const field of keyFields) {
      const eq = field in filter ? equalityValue(filter[field]) : undefined;
      if (!eq) break;
      values.push(eq.value);
    }
    if (values.length !== keyFields.length) continue;
    const owner = index.owner(index.keyFor(values));
    const doc = owner === undefined ? undefined : coll.docs.getByKey(owner);
    return { docs: doc ? [doc] : [], exact: fields.length === keyFields.length };
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

/** Where a read gets its documents: an index lookup, or the whole collection. */
function plan(coll: Collection, filter: unknown): { narrowed?: Document[]; predicate: Predicate } {
  const candidates = indexCandidates(coll, filter);
  if (candidates?.exact) return { narrowed: candidates.docs, predicate: null };
  return { narrowed: candidates?.docs, predicate: compileFilter(filter) };
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
  const kind = sortKind(spec.sort);
  const { narrowed, predicate } = plan(coll, spec.filter);
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
  const { narrowed, predicate } = plan(coll, filter);
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
