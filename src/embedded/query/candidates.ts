import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import type { Collection } from "../store/collection.ts";
import type { KeyedIndex } from "../store/keyed-index.ts";
import { compareValues } from "../store/values.ts";
import { equalityValue } from "./filter.ts";

/** Documents an index narrowed a filter to, in `_id` order. */
export interface Candidates {
  docs: Document[];
  /** The index lookup alone decides the filter (nothing else in it), so no predicate is needed. */
  exact: boolean;
}

/**
 * How an index narrows a filter, before any document is fetched: the `_id` values to look up,
 * or the keys to read from a secondary index.
 */
export type Lookup =
  | { kind: "id"; values: readonly unknown[]; exact: boolean }
  | { kind: "index"; index: KeyedIndex; keys: string[]; exact: boolean };

/**
 * Work counters of reads, for tests that assert on work done rather than time: `examined`
 * counts documents tested against a filter, `sorted` candidates put through an `_id` sort.
 */
export const planStats = { examined: 0, sorted: 0 };

/** Most key combinations a compound lookup may expand to before a scan is preferred. */
const MAX_LOOKUP_KEYS = 1000;

/**
 * A filter read as a conjunction: its field conditions, from the top level and from top-level
 * `$and` members (each member must hold, so any of them can bound the result), and how many
 * other terms ($or, $expr...) it has, which an index lookup cannot decide.
 */
interface Conjunction {
  fields: [string, unknown][];
  others: number;
}

function conjunction(filter: Document, into: Conjunction = { fields: [], others: 0 }): Conjunction {
  for (const key in filter) {
    const value = filter[key];
    if (key === "$and" && Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) {
      for (const member of value) conjunction(member, into);
    } else if (key.startsWith("$")) {
      into.others++;
    } else {
      into.fields.push([key, value]);
    }
  }
  return into;
}

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

/** The first condition on `field` an index lookup can serve. */
function usable(terms: Conjunction, field: string): { values: readonly unknown[]; exact: boolean } | undefined {
  for (const [name, cond] of terms.fields) {
    if (name !== field) continue;
    const found = lookupValues(cond);
    if (found) return found;
  }
  return undefined;
}

/** True when the lookup's conditions are the whole filter. */
function onlyTerms(terms: Conjunction, count: number): boolean {
  return terms.others === 0 && terms.fields.length === count;
}

function keyCombinations(lists: (readonly unknown[])[]): unknown[][] {
  let combos: unknown[][] = [[]];
  for (const list of lists) combos = combos.flatMap((prefix) => list.map((v) => [...prefix, v]));
  return combos;
}

function indexLookup(index: KeyedIndex, terms: Conjunction): Lookup | undefined {
  const lookups = index.fields.map((field) => usable(terms, field));
  if (lookups.some((l) => l === undefined)) return undefined;
  const lists = lookups.map((l) => l!.values);
  if (lists.reduce((n, list) => n * list.length, 1) > MAX_LOOKUP_KEYS) return undefined;
  const keys = [...new Set(keyCombinations(lists).map((values) => index.keyFor(values)))];
  const exact = lookups.every((l) => l!.exact) && onlyTerms(terms, index.fields.length);
  return { kind: "index", index, keys, exact };
}

/**
 * How an index can narrow a filter, or undefined when the whole collection must be read:
 * equality or `$in` on `_id`, or on every field of a secondary index (unique ones first).
 */
export function findLookup(coll: Collection, filter: unknown): Lookup | undefined {
  if (!isPlainObject(filter)) return undefined;
  const terms = conjunction(filter);
  if (terms.fields.length === 0) return undefined;
  const id = usable(terms, "_id");
  if (id) return { kind: "id", values: id.values, exact: id.exact && onlyTerms(terms, 1) };
  for (const index of coll.lookupIndexes()) {
    const found = indexLookup(index, terms);
    if (found) return found;
  }
  return undefined;
}

function byId(docs: Document[]): Document[] {
  const unique = [...new Set(docs)];
  planStats.sorted += unique.length;
  return unique.sort((a, b) => compareValues(a._id, b._id));
}

function idDocs(coll: Collection, values: readonly unknown[]): Document[] {
  const found: Document[] = [];
  for (const v of values) {
    const doc = coll.docs.get(v);
    if (doc) found.push(doc);
  }
  return found;
}

/** The documents a lookup finds, in `_id` order (one index key is already in that order). */
export function lookupDocs(coll: Collection, lookup: Lookup): Document[] {
  if (lookup.kind === "id") {
    const found = idDocs(coll, lookup.values);
    return found.length > 1 ? byId(found) : found;
  }
  const found: Document[] = [];
  for (const key of lookup.keys) {
    for (const id of lookup.index.ids(key)) {
      const doc = coll.docs.getByKey(id);
      if (doc) found.push(doc);
    }
  }
  return lookup.keys.length > 1 ? byId(found) : found;
}

/** How many documents a lookup finds, without fetching or ordering them when it can. */
export function lookupCount(coll: Collection, lookup: Lookup): number {
  if (lookup.kind === "index" && lookup.keys.length === 1) return lookup.index.count(lookup.keys[0]);
  if (lookup.kind === "index") return new Set(lookup.keys.flatMap((key) => lookup.index.ids(key))).size;
  return new Set(idDocs(coll, lookup.values)).size;
}

/**
 * The documents an index can narrow a filter to, in `_id` order, or undefined when the whole
 * collection must be read.
 */
export function indexCandidates(coll: Collection, filter: unknown): Candidates | undefined {
  const lookup = findLookup(coll, filter);
  return lookup && { docs: lookupDocs(coll, lookup), exact: lookup.exact };
}
