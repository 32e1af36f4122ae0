import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import type { Collection } from "../store/collection.ts";
import type { KeyedIndex } from "../store/keyed-index.ts";
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

/** Most key combinations a compound lookup may expand to before a scan is preferred. */
const MAX_LOOKUP_KEYS = 1000;

/**
 * The values an index lookup can use for a condition: an equality, or `$in` over plain values.
 * `exact` when the lookup alone decides the condition (null also matches empty arrays in
 * MongoDB, which index as null too, so it needs the predicate).
 */
function lookupValues(cond: unknown): { values: readonly unknown[]; exact: boolean } | undefined {
  const eq = equalityValue(cond);
  if (eq) return { values: [eq.value], exact: eq.value !== null };
  if (!isPlainObject(cond) || Object.keys(cond).length !== 1 || !Array.isArray(cond.$in)) return undefined;
  if (cond.$in.some((v) => v instanceof RegExp || Array.isArray(v))) return undefined;
  return { values: cond.$in, exact: !cond.$in.includes(null) };
}

function byId(docs: Iterable<Document>): Document[] {
  return [...new Set(docs)].sort((a, b) => compareValues(a._id, b._id));
}

function idCandidates(coll: Collection, filter: Document): Candidates | undefined {
  const lookup = lookupValues(filter._id);
  if (!lookup) return undefined;
  const found: Document[] = [];
  for (const v of lookup.values) {
    const doc = coll.docs.get(v);
    if (doc) found.push(doc);
  }
  return { docs: byId(found), exact: lookup.exact && Object.keys(filter).length === 1 };
}

function keyCombinations(lists: (readonly unknown[])[]): unknown[][] {
  let combos: unknown[][] = [[]];
  for (const list of lists) combos = combos.flatMap((prefix) => list.map((v) => [...prefix, v]));
  return combos;
}

function indexedCandidates(coll: Collection, index: KeyedIndex, filter: Document): Candidates | undefined {
  const lookups = index.fields.map((field) => (field in filter ? lookupValues(filter[field]) : undefined));
  if (lookups.some((l) => l === undefined)) return undefined;
  const lists = lookups.map((l) => l!.values);
  if (lists.reduce((n, list) => n * list.length, 1) > MAX_LOOKUP_KEYS) return undefined;
  const found: Document[] = [];
  for (const values of keyCombinations(lists)) {
    for (const id of index.ids(index.keyFor(values))) {
      const doc = coll.docs.getByKey(id);
      if (doc) found.push(doc);
    }
  }
  const exact = lookups.every((l) => l!.exact) && Object.keys(filter).length === index.fields.length;
  return { docs: byId(found), exact };
}

/**
 * The documents an index can narrow a filter to, in `_id` order, or undefined when the whole
 * collection must be read: equality or `$in` on `_id`, or on every field of a secondary index.
 */
export function indexCandidates(coll: Collection, filter: unknown): Candidates | undefined {
  if (!isPlainObject(filter)) return undefined;
  if ("_id" in filter) {
    const found = idCandidates(coll, filter);
    if (found) return found;
  }
  for (const index of coll.lookupIndexes()) {
    const found = indexedCandidates(coll, index, filter);
    if (found) return found;
  }
  return undefined;
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
 * Another sort keeps at most skip+limit documents (see sortDocuments). Nothing else is materialised.
 */
export function runRead(coll: Collection | undefined, spec: ReadSpec): Iterator<Document> {
  if (!coll) return [][Symbol.iterator]();
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const kind = sortKind(spec.sort);
  const { narrowed, predicate } = plan(coll, spec.filter);
  if (kind === "custom") {
    const source = filtered(narrowed ?? coll.docs.iterate(), predicate);
    return sortDocuments(source, spec.sort as Document, skip, limit)[Symbol.iterator]();
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
