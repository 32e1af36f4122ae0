import type { Document } from "bson";
import type { Collection } from "../store/collection.ts";
import { findLookup, lookupCount, lookupDocs, planStats } from "./candidates.ts";
import { compileFilter, type Predicate } from "./filter.ts";
import { sortDocuments, sortKind } from "./sort.ts";

export { indexCandidates, planStats, type Candidates } from "./candidates.ts";

/** What a find-like read asks for. `limit` 0 means no limit. */
export interface ReadSpec {
  filter?: unknown;
  sort?: unknown;
  skip?: number;
  limit?: number;
}

/** Where a read gets its documents: an index lookup, or the whole collection. */
function plan(coll: Collection, filter: unknown): { narrowed?: Document[]; predicate: Predicate } {
  const lookup = findLookup(coll, filter);
  const narrowed = lookup && lookupDocs(coll, lookup);
  return { narrowed, predicate: lookup?.exact ? null : compileFilter(filter) };
}

function* filtered(source: Iterable<Document>, predicate: Predicate): Generator<Document> {
  if (predicate === null) return yield* source;
  for (const doc of source) {
    planStats.examined++;
    if (predicate(doc)) yield doc;
  }
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

/**
 * Counts matches (then applies skip/limit). An empty filter is answered from the collection's
 * size and an exact index lookup from the index, without fetching or ordering documents.
 */
export function countMatching(coll: Collection | undefined, filter: unknown, skip = 0, limit = 0): number {
  if (!coll) return 0;
  let n = 0;
  const lookup = findLookup(coll, filter);
  if (lookup?.exact) n = lookupCount(coll, lookup);
  else {
    const predicate = compileFilter(filter);
    if (predicate === null) n = coll.docs.size;
    else for (const _ of filtered(lookup ? lookupDocs(coll, lookup) : coll.docs.iterate(), predicate)) n++;
  }
  n = Math.max(0, n - skip);
  return limit > 0 ? Math.min(n, limit) : n;
}

/** Drains a read into an array (for writes, which must know their targets before changing them). */
export function collect<T>(it: Iterator<T>): T[] {
  const out: T[] = [];
  for (let step = it.next(); !step.done; step = it.next()) out.push(step.value);
  return out;
}
