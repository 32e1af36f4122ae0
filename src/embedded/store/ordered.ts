import type { Document } from "bson";
import { bsonTag } from "../bson.ts";
import { DocTable } from "./doc-table.ts";
import { compareValues, keyOf, sameValueKey } from "./values.ts";

/**
 * The documents of one collection, held as BSON in a {@link DocTable}, with their numbers in
 * an array sorted by `_id`: the default page order needs no sort, skip/limit is an index into
 * the array, and a lookup by `_id` is a binary search (then a check of the canonical key, see
 * {@link keyOf}). Ascending ids, the common case, append in O(1). There is no hash map beside
 * it: at a million documents one cost 28 MiB (numeric ids) to 70 MiB (ObjectIds) and a third
 * of recovery's time to fill, for lookups that take ~20 comparisons without it.
 * Documents read are decoded (see DocTable.decode) and must not be changed: an update stores a
 * new version, so readers may hold the ones they have.
 */
export class OrderedDocs {
  /** The documents' bytes, by number. */
  readonly table = new DocTable();
  readonly #list: number[] = [];
  /** Bumped whenever positions shift (insert before the end, delete), so iterators re-seek. */
  #epoch = 0;

  /** Number of documents. */
  get size(): number {
    return this.#list.length;
  }

  /** Positional-shift counter, see {@link DocIterator}. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The document at position `i` of the `_id` order. */
  at(i: number): Document | undefined {
    const n = this.#list[i];
    return n === undefined ? undefined : this.table.decode(n);
  }

  /** The documents' numbers in `_id` order, without copying. Read-only by contract. */
  numbers(): readonly number[] {
    return this.#list;
  }

  /**
   * The document with this `_id`, if any. Ids with the same canonical key are one id, as in
   * MongoDB's `_id` index: 1, 1.0 and NumberLong(1) find the same document.
   */
  get(id: unknown): Document | undefined {
    const at = this.#find(id);
    return at < 0 ? undefined : this.table.decode(this.#list[at]);
  }

  /** Whether a document has this `_id` (see {@link get}). */
  has(id: unknown): boolean {
    return this.#find(id) >= 0;
  }

  /** The number of the document with this `_id` in {@link table}, or undefined. */
  numberOf(id: unknown): number | undefined {
    const at = this.#find(id);
    return at < 0 ? undefined : this.#list[at];
  }

  /**
   * Puts document number `n` (stored in {@link table}, its `_id` being `id`, read from it when not given) in its place;
   * returns the number of the document with the same `_id` it displaced, or -1. The displaced
   * document stays in the table: the caller reads what it needs of it, then frees it.
   */
  place(n: number, id?: unknown): number {
    const list = this.#list;
    // Ascending ids append: compared on their bytes when they can be (recovery's million appends).
    if (list.length === 0 || this.table.compareIds(list[list.length - 1], n) < 0) {
      list.push(n);
      return -1;
    }
    id ??= this.table.id(n);
    const at = this.#find(id);
    if (at >= 0) {
      const old = list[at];
      list[at] = n;
      return old;
    }
    list.splice(this.seekAfter(id, true), 0, n);
    this.#epoch++;
    return -1;
  }

  /** Takes the document with this `_id` out of the order; returns its number (still in the table), or -1. */
  unplace(id: unknown): number {
    const at = this.#find(id);
    if (at < 0) return -1;
    const [old] = this.#list.splice(at, 1);
    this.#epoch++;
    return old;
  }

  /** Inserts or replaces (same `_id`) a document; returns the one it replaced. */
  put(doc: Document): Document | undefined {
    return this.#release(this.place(this.table.add(doc), doc._id));
  }

  /** Removes the document with this `_id`; returns it, or undefined when absent. */
  delete(id: unknown): Document | undefined {
    return this.#release(this.unplace(id));
  }

  /** Decodes and frees document `n` (none for -1). */
  #release(n: number): Document | undefined {
    if (n < 0) return undefined;
    const doc = this.table.decode(n);
    this.table.free(n);
    return doc;
  }

  /**
   * The position of the document whose `_id` is `id`, or -1. The binary search finds the ids
   * the BSON order calls equal; among those (nearly always one), the one with the same
   * canonical key is the match, as the hash map this replaced matched: the order compares some
   * values only approximately (a Decimal128 with more digits than a double holds, say).
   */
  #find(id: unknown): number {
    const list = this.#list;
    const compare = this.table.idComparer(id);
    let at = this.#seek(compare, true, id);
    if (at >= list.length || compare(list[at]) !== 0) return -1;
    // ObjectIds the order calls equal are equal byte for byte: one id, nothing to tell apart.
    if (bsonTag(id) === "ObjectId") return at;
    const key = keyOf(id);
    for (; at < list.length; at++) {
      const other = this.table.id(list[at]);
      if (compareValues(other, id) !== 0) break;
      if (sameValueKey(keyOf(other), key)) return at;
    }
    return -1;
  }

  /** Removes everything. */
  clear(): void {
    this.#list.length = 0;
    this.table.clear();
    this.#epoch++;
  }

  /**
   * Position of the first document whose `_id` is greater than `id` (or, with `inclusive`,
   * greater or equal). Binary search, O(log n).
   */
  seekAfter(id: unknown, inclusive = false): number {
    return this.#seek(this.table.idComparer(id), inclusive, id);
  }

  /** {@link seekAfter} with the comparer of `id` made already. */
  #seek(compare: (n: number) => number, inclusive: boolean, id: unknown): number {
    const list = this.#list;
    let lo = 0;
    let hi = list.length;
    if (typeof id === "number" && id === id && hi > INTERPOLATE_ABOVE) [lo, hi] = this.#interpolate(id, inclusive);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compare(list[mid]);
      if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Narrows where {@link seekAfter} will find number `id` by interpolation: auto-increment
   * `_id`s (the framework's default) are close to evenly spread, so a guess from the ids at the
   * ends of the range lands within a few places, where a binary search over a million
   * documents reads 20 of them from memory scattered across the table. A few guesses at
   * most, each keeping the search's bounds exact: every document before `lo` sorts before the
   * answer, none from `hi` on. Stops at any `_id` that is not a plain number.
   */
  #interpolate(id: number, inclusive: boolean): [number, number] {
    const list = this.#list;
    const table = this.table;
    let lo = 0;
    let hi = list.length;
    let low = table.numberId(list[0]);
    let high = table.numberId(list[hi - 1]);
    for (let guesses = 0; guesses < 4 && hi - lo > 8 && high > low; guesses++) {
      const spread = (id - low) / (high - low);
      if (spread !== spread) break; // infinities at the ends: no guess to make
      const guess = Math.min(hi - 1, Math.max(lo, lo + Math.floor(spread * (hi - lo))));
      const value = table.numberId(list[guess]);
      if (value !== value) break;
      if (value < id || (!inclusive && value === id)) {
        lo = guess + 1;
        low = value;
      } else {
        hi = guess;
        high = value;
      }
    }
    return [lo, hi];
  }

  /**
   * Position of the first document for which `probe(_id)` is not negative (it must be negative
   * for a prefix of the `_id` order, e.g. "before the start of a range"). Binary search, O(log n).
   */
  seekWith(probe: (id: unknown) => number): number {
    const list = this.#list;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (probe(this.table.id(list[mid])) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The documents' numbers in `_id` order, tolerating writes between steps as {@link iterate}
   * does (a document present throughout comes exactly once). Each number is to be read before
   * the next step: what a snapshot copies byte for byte, without decoding.
   */
  *numbersInOrder(): Generator<number> {
    let epoch = this.#epoch;
    let pos = 0;
    let lastId: unknown;
    for (;;) {
      if (epoch !== this.#epoch) {
        pos = this.seekAfter(lastId);
        epoch = this.#epoch;
      }
      const n = this.#list[pos++];
      if (n === undefined) return;
      // Read now: by the next step the document may be replaced and its number reused.
      lastId = this.table.id(n);
      yield n;
    }
  }

  /** Iterates in `_id` order (or reverse), tolerating writes between steps. */
  iterate(reverse = false, start = 0): DocIterator {
    return new DocIterator(this, reverse, start);
  }
}

/** Below this many documents a binary search is short enough without guesses (see OrderedDocs#interpolate). */
const INTERPOLATE_ABOVE = 64;

/**
 * A position in an {@link OrderedDocs} that survives concurrent writes: it remembers the last
 * `_id` it returned and, when positions have shifted since, finds its place again by binary
 * search. A document present for the whole iteration is returned exactly once.
 */
export class DocIterator implements IterableIterator<Document> {
  #pos: number;
  #epoch: number;
  #lastId: unknown = undefined;
  #started = false;

  /** Starts at position `start` counted from the front (or from the back when `reverse`). */
  constructor(
    private readonly docs: OrderedDocs,
    private readonly reverse: boolean,
    start: number,
  ) {
    this.#pos = reverse ? docs.size - 1 - start : start;
    this.#epoch = docs.epoch;
  }

  /** Returns the next document in order. */
  next(): IteratorResult<Document> {
    const docs = this.docs;
    if (this.#started && this.#epoch !== docs.epoch) {
      // Forward: first _id after the last one returned; backward: last _id before it.
      this.#pos = this.reverse ? docs.seekAfter(this.#lastId, true) - 1 : docs.seekAfter(this.#lastId);
      this.#epoch = docs.epoch;
    }
    const doc = this.#pos >= 0 ? docs.at(this.#pos) : undefined;
    if (doc === undefined) return { done: true, value: undefined };
    this.#pos += this.reverse ? -1 : 1;
    this.#lastId = doc._id;
    this.#started = true;
    return { done: false, value: doc };
  }

  /** Iterable protocol. */
  [Symbol.iterator](): this {
    return this;
  }
}
