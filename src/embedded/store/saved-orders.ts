import type { Document } from "bson";
import type { Ranked } from "./rank-sort.ts";

/** What the journal changed after a snapshot's saved orders were read (see {@link SavedOrders}). */
export interface WrittenSince {
  /** 1 at the position (in the listing the orders describe) of each document replaced or deleted since. */
  replacedAt: Uint8Array;
  /** Numbers of the document versions written since and still current, in `_id` order. */
  written: readonly number[];
  /** The indexed fields of each of {@link written}, read once for every index's merge. */
  writtenFields: readonly Document[];
  /** Key ranks of the written versions, shared between the indexes' merges (see sortedEntries). */
  ranks: Map<string, Ranked>;
}

/**
 * A collection's index orders as its snapshot saved them, kept through recovery: the
 * positions of each index's entries among the documents as the snapshot listed them, and,
 * once the journal writes to the collection, a copy of that listing and what changed since,
 * so the indexes can still be built from the orders and then merged with the journal's writes
 * (see OrderedIndex.buildInOrder) instead of sorted. Documents are known by their numbers in
 * the collection's DocTable, which holds freed numbers meanwhile, so a number is one version.
 */
export class SavedOrders {
  readonly #positions = new Map<string, { positions: Int32Array; filled: number }>();
  #docs: readonly number[];
  #copied = false;
  #replacedAt: Uint8Array | undefined;
  /** Versions the journal wrote and then replaced or deleted itself. */
  readonly #replacedLater = new Set<number>();
  readonly #written: number[] = [];

  /**
   * Orders of the documents numbered in `docs` now, in `_id` order (the live list, copied
   * before the first write); `compareIds` compares two documents' `_id`s by number.
   */
  constructor(docs: readonly number[], private readonly compareIds: (a: number, b: number) => number) {
    this.#docs = docs;
  }

  /** The documents the orders describe, in `_id` order: entry k of an index is `docs[positions[k]]`. */
  get docs(): readonly number[] {
    return this.#docs;
  }

  /** False once a write has changed the documents: orders read after that would describe other ones. */
  get unchanged(): boolean {
    return !this.#copied;
  }

  /** Keeps part of index `name`'s saved order: its entries `from`.. of `count`. A part that does not fit is ignored. */
  add(name: string, count: number, from: number, part: Int32Array): void {
    let order = this.#positions.get(name);
    if (order === undefined) {
      if (count < 0 || count > this.#docs.length) return;
      this.#positions.set(name, order = { positions: new Int32Array(count), filled: 0 });
    }
    if (count !== order.positions.length || from < 0 || from + part.length > count) return;
    order.positions.set(part, from);
    order.filled += part.length;
  }

  /** Index `name`'s saved order, if the snapshot had all of it (entries repeated or missing fail the build's check). */
  get(name: string): Int32Array | undefined {
    const order = this.#positions.get(name);
    return order !== undefined && order.filled === order.positions.length ? order.positions : undefined;
  }

  /** Call before the collection's documents change: copies the listing the orders describe, once. */
  beforeWrite(): void {
    if (this.#copied) return;
    this.#docs = this.#docs.slice();
    this.#replacedAt = new Uint8Array(this.#docs.length);
    this.#copied = true;
  }

  /** Records a write: document `doc` stored (-1 for a delete), `old` the version it replaced (-1: none). */
  wrote(doc: number, old: number): void {
    if (old >= 0) {
      // A snapshot loads its documents in `_id` order into a fresh table, so most are numbered by position.
      const at = this.#docs[old] === old ? old : positionOf(this.#docs, old, this.compareIds);
      if (at === undefined) this.#replacedLater.add(old);
      else this.#replacedAt![at] = 1;
    }
    if (doc >= 0) this.#written.push(doc);
  }

  /**
   * What changed since the orders were read, given the documents now (in `_id` order) and
   * how to read a document's indexed fields; undefined when nothing did. The written versions
   * come in `_id` order too, which spares their sort a field.
   */
  since(current: readonly number[], readIndexed: (doc: number) => Document): WrittenSince | undefined {
    if (!this.#copied) return undefined;
    const later = this.#replacedLater;
    const writtenSet = new Set(this.#written.filter((doc) => !later.has(doc)));
    const written = current.filter((doc) => writtenSet.has(doc));
    return { replacedAt: this.#replacedAt!, written, writtenFields: written.map(readIndexed), ranks: new Map() };
  }
}

/** Where document number `doc` is in `docs` (numbers in `_id` order); binary search. */
function positionOf(
  docs: readonly number[],
  doc: number,
  compareIds: (a: number, b: number) => number,
): number | undefined {
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareIds(docs[mid], doc) < 0) lo = mid + 1;
    else hi = mid;
  }
  // Ids the order calls equal (nearly always just the one) are told apart by number.
  for (let at = lo; at < docs.length && compareIds(docs[at], doc) === 0; at++) {
    if (docs[at] === doc) return at;
  }
  return undefined;
}
