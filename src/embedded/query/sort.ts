import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation, StringCompare } from "../store/collation.ts";
import { valuesAt } from "../store/paths.ts";
import { compareValues, EMPTY_ARRAY_KEY } from "../store/values.ts";
import { approximateSize, memoryLimits, type MemoryTracker, sortMemory } from "./memory.ts";
import { atInterruptPoint, checkForInterrupt, PAUSE, type Paused } from "./interrupts.ts";

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

/**
 * The value a document sorts by on one field: arrays sort by their min (asc) or max (desc), and
 * an empty array by its index key, below null both ways (as an index on the field orders it).
 */
function sortValue(doc: Document, path: string, dir: 1 | -1, strings?: StringCompare): unknown {
  const values = valuesAt(doc, path, EMPTY_ARRAY_KEY);
  let best = values[0] ?? null;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] ?? null;
    if (compareValues(v, best, strings) * dir < 0) best = v;
  }
  return best ?? null;
}

interface Keyed {
  doc: Document;
  keys: unknown[];
  /** Arrival order: the last tie-breaker, which makes every sort here stable. */
  seq: number;
  /** The document's approximate size, once it is held (memory.ts). */
  size: number;
}

type Compare = (a: Keyed, b: Keyed) => number;

/**
 * Comparisons made by {@link sortDocuments} since the process started. Internal: tests assert
 * on the work a sort does rather than on its timing.
 */
export const sortStats = { compared: 0 };

/**
 * Most documents one sort may hold: the bounded heap of a page's window (skip + limit), or every
 * match of an unlimited sort. What a held entry costs beyond the stored document is its sort
 * keys and a small record, ~100 bytes, so this bounds a request's sort memory to ~10 MB however
 * large the collection. A sort that would need more is refused as a MongoDB server refuses a
 * blocking sort past its memory limit without disk use. Tests may lower it.
 */
export const sortLimits = { maxEntries: 100_000 };

function comparator(fields: string[], dirs: (1 | -1)[], strings?: StringCompare): Compare {
  return (a, b) => {
    // A sort of many documents is long work of its own: its comparisons are interrupt points.
    if (atInterruptPoint(++sortStats.compared)) checkForInterrupt();
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i], strings);
      if (c !== 0) return c * dirs[i];
    }
    return a.seq - b.seq;
  };
}

/**
 * The page `[skip, skip + limit)` (limit 0: to the end) of documents added one by one, in the
 * order of a spec. Sort keys are computed once per document. The window is kept in a bounded
 * max-heap, O(n log k) holding k = skip + limit documents, so memory follows the page's depth
 * rather than the collection; the first k are gathered without comparing and heapified once
 * full, so a skip past every match compares nothing. A window, or an unlimited sort's matches,
 * beyond {@link sortLimits} is refused with QueryExceededMemoryLimitNoDiskUseAllowed (292).
 * Strings compare under `collation`.
 */
class SortWindow {
  readonly #cmp: Compare;
  readonly #keyed: KeyOf;
  readonly #keep: number;
  /** Past the sort limit, every document is held (and refused past the limit). */
  readonly #all: string | undefined;
  readonly #items: Keyed[] = [];
  /** The documents held, in bytes (MongoDB's sort memory): each measured once it is kept. */
  readonly #memory = sortMemory();
  #seq = 0;

  constructor(spec: Document, readonly skip: number, readonly limit: number, collation?: Collation) {
    const { cmp, keyed } = sortOrder(spec, collation);
    this.#cmp = cmp;
    this.#keyed = keyed;
    this.#keep = limit === 0 ? Infinity : skip + limit;
    if (this.#keep > sortLimits.maxEntries) {
      this.#all = this.#keep === Infinity ? "an unlimited sort" : `a page ending at position ${this.#keep}`;
    }
  }

  add(doc: Document): void {
    const items = this.#items;
    if (this.#all !== undefined) {
      if (items.length === sortLimits.maxEntries) {
        throw tooLarge(`${this.#all} needs more than ${sortLimits.maxEntries} documents held`);
      }
      this.#memory.addValue(doc);
      items.push(this.#keyed(doc, this.#seq++));
    } else if (items.length < this.#keep) {
      items.push(held(this.#keyed(doc, this.#seq++), this.#memory));
      if (items.length === this.#keep) heapify(items, this.#cmp);
    } else {
      const item = this.#keyed(doc, this.#seq++);
      if (this.#cmp(item, items[0]) >= 0) return;
      this.#memory.used -= items[0].size;
      items[0] = held(item, this.#memory);
      siftDown(items, 0, this.#cmp);
    }
  }

  /** The page, in order. */
  page(): Document[] {
    const items = this.#items;
    if (this.skip >= items.length) return [];
    items.sort(this.#cmp);
    return items.slice(this.skip, this.skip + (this.limit === 0 ? items.length : this.limit)).map((k) => k.doc);
  }
}

/**
 * Sorts documents by a spec and returns the page `[skip, skip + limit)` (limit 0: to the end;
 * see {@link SortWindow}). Pauses in `docs` are passed over: the caller does not yield.
 */
export function sortDocuments(
  docs: Iterable<Paused<Document>>,
  spec: Document,
  skip: number,
  limit: number,
  collation?: Collation,
): Document[] {
  const window = new SortWindow(spec, skip, limit, collation);
  for (const doc of docs) if (doc !== PAUSE) window.add(doc);
  return window.page();
}

/**
 * {@link sortDocuments} of a sliced read: the read's pauses pass through while the matches are
 * gathered (a blocking sort yields as its input does), then the page follows.
 */
export function* sortPausedDocuments(
  docs: Iterator<Paused<Document>>,
  spec: Document,
  skip: number,
  limit: number,
  collation?: Collation,
): Generator<Paused<Document>> {
  const window = new SortWindow(spec, skip, limit, collation);
  for (let step = docs.next(); !step.done; step = docs.next()) {
    if (step.value === PAUSE) yield PAUSE;
    else window.add(step.value);
  }
  yield* window.page();
}

/**
 * The last `count` documents in the order of `spec`, in that order (what `$bottomN` keeps): the
 * same bounded heap as a page's, kept from the other end.
 */
export function lastDocuments(
  docs: Iterable<Document>,
  spec: Document,
  count: number,
  collation?: Collation,
): Document[] {
  const { cmp, keyed } = sortOrder(spec, collation);
  const items = count <= sortLimits.maxEntries
    ? topK(docs, count, keyed, (a, b) => cmp(b, a))
    : collectAll(docs, keyed, `the last ${count} documents`);
  items.sort(cmp);
  return items.slice(Math.max(0, items.length - count)).map((k) => k.doc);
}

/**
 * Every document in the order of `spec`, with its dense rank (documents with equal sort keys
 * share one): the order a window function numbers documents in. Holds every document, as
 * mingo's window stage did: it is not held to the sort limit.
 */
export function rankedDocuments(
  docs: Iterable<Document>,
  spec: Document,
  collation?: Collation,
): { doc: Document; rank: number }[] {
  const { cmp, keyed } = sortOrder(spec, collation);
  const items = Array.from(docs, (doc, seq) => keyed(doc, seq));
  items.sort(cmp);
  const strings = collation?.compare;
  let rank = 0;
  return items.map((item, i) => {
    const previous = items[i - 1];
    if (previous === undefined || item.keys.some((key, k) => compareValues(key, previous.keys[k], strings) !== 0)) {
      rank++;
    }
    return { doc: item.doc, rank };
  });
}

type KeyOf = (doc: Document, seq: number) => Keyed;

/** How a spec orders documents: their sort keys, and the comparison of keyed documents. */
function sortOrder(spec: Document, collation?: Collation): { cmp: Compare; keyed: KeyOf } {
  const fields = Object.keys(spec);
  const dirs = fields.map((f) => direction(spec[f]));
  const strings = collation?.compare;
  const keyed: KeyOf = (doc, seq) => ({
    doc,
    keys: fields.map((f, i) => sortValue(doc, f, dirs[i], strings)),
    seq,
    size: 0,
  });
  return { cmp: comparator(fields, dirs, strings), keyed };
}

/**
 * Every document, keyed: fine while the matches fit in the sort limit (a deep page whose skip
 * passes them all then returns nothing), refused once they do not.
 */
function collectAll(docs: Iterable<Document>, keyed: KeyOf, what: string): Keyed[] {
  const all: Keyed[] = [];
  const memory = sortMemory();
  for (const doc of docs) {
    if (all.length === sortLimits.maxEntries) {
      throw tooLarge(`${what} needs more than ${sortLimits.maxEntries} documents held`);
    }
    memory.addValue(doc);
    all.push(keyed(doc, all.length));
  }
  return all;
}

/**
 * The `keep` first documents in sort order, unordered, through a bounded max-heap. The first
 * `keep` are gathered without comparing and heapified once full, so a skip past every match
 * compares nothing.
 */
function topK(docs: Iterable<Document>, keep: number, keyed: KeyOf, cmp: Compare): Keyed[] {
  const heap: Keyed[] = [];
  // The documents held, in bytes (MongoDB's sort memory): each measured once it is kept.
  const memory = sortMemory();
  let seq = 0;
  for (const doc of docs) {
    if (heap.length < keep) {
      heap.push(held(keyed(doc, seq++), memory));
      if (heap.length === keep) heapify(heap, cmp);
    } else {
      const item = keyed(doc, seq++);
      if (cmp(item, heap[0]) >= 0) continue;
      memory.used -= heap[0].size;
      heap[0] = held(item, memory);
      siftDown(heap, 0, cmp);
    }
  }
  return heap;
}

/** An entry the heap keeps, its document's size counted. */
function held(item: Keyed, memory: MemoryTracker): Keyed {
  item.size = approximateSize(item.doc, memoryLimits.sort - memory.used + 1);
  memory.add(item.size);
  return item;
}

/** Orders a full array as a max-heap. */
function heapify(heap: Keyed[], cmp: Compare): void {
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, cmp);
}

function tooLarge(why: string): CommandError {
  return new CommandError(
    "QueryExceededMemoryLimitNoDiskUseAllowed",
    `Sort exceeded memory limit: ${why}, and the embedded engine does not sort on disk. ` +
      `Add an index that serves this sort, or narrow the filter.`,
  );
}

function siftDown(heap: Keyed[], i: number, cmp: Compare): void {
  const item = heap[i];
  const n = heap.length;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && cmp(heap[child + 1], heap[child]) > 0) child++;
    if (cmp(heap[child], item) <= 0) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = item;
}
