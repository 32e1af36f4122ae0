import type { Document } from "bson";
import type { StringCompare } from "./collation.ts";
import {
  type Block,
  BLOCK_SIZE,
  cutIntoBlocks,
  gallopMergedBlocks,
  type GallopOptions,
  type KeyOrder,
  mergedBlocks,
  type SharedRanks,
  sortedEntries,
} from "./block-loads.ts";
import type { DocTable } from "./doc-table.ts";
import { Fences, type Probe } from "./fences.ts";
import { compareValues } from "./values.ts";

/** A position in {@link SortedBlocks}: block number and offset in it. */
export interface Position {
  block: number;
  offset: number;
}

export type { Probe };

/** Writes document `doc`'s one key tuple to `out` from `at`: how an index whose keys are not held reads them. */
export type KeyReader = (doc: number, out: unknown[], at: number) => void;

/**
 * Index entries (key tuple, document) kept sorted in blocks of at most {@link BLOCK_SIZE}: a
 * B+tree of height two. Entries are ordered by their key values (each field ascending or
 * descending, in MongoDB's BSON order) and then by `_id`, so every entry has a unique place
 * and equal keys read in `_id` order. Bulk loads sort once; single writes binary-search the
 * block directory, then the block, and splice.
 */
export class SortedBlocks {
  #blocks: Block[] = [{ keys: [], docs: [] }];
  /** Each block's last entry, searched by seeks (see {@link Fences}); every write keeps it true. */
  readonly #fences: Fences;
  /** The directions and comparator bulk loads sort and merge by. */
  readonly #keyOrder: KeyOrder;
  #size = 0;
  /** Entries before each block, rebuilt lazily after a write (see {@link rank}). */
  #before: Int32Array | undefined;
  /** Bumped whenever entries move, so open scans find their place again. */
  #epoch = 0;
  /**
   * Set when the blocks hold no keys: each entry's keys are read from its document when
   * compared (see {@link readKeysWith}); only the fences hold theirs.
   */
  #reader: KeyReader | undefined;
  readonly #scratch: unknown[] = [];
  /** Where the keys {@link #keys} returned last start in the array it returned. */
  #base = 0;

  /**
   * `dirs[f]` is 1 or -1: the order of key field f. `strings` is the index's collation order
   * for strings (none: binary). `table` holds the documents the entries' numbers name.
   */
  constructor(
    readonly dirs: readonly (1 | -1)[],
    readonly strings: StringCompare | undefined,
    readonly table: DocTable,
  ) {
    this.#fences = new Fences(dirs.length);
    this.#keyOrder = {
      dirs,
      compareKey: this.compareKey,
      binaryStrings: strings === undefined,
      idOf: this.idOf,
      compareIds: (a, b) => table.compareIds(a, b),
    };
  }

  /** The `_id` of the document numbered `doc`. */
  readonly idOf = (doc: number): unknown => this.table.id(doc);

  /** Compares two key values in this index's order (BSON order, strings under its collation). */
  readonly compareKey = (a: unknown, b: unknown): number => compareValues(a, b, this.strings);

  /**
   * Stops holding keys in the blocks and reads each entry's from its document instead (a key
   * per entry held as an object of its own cost more than the document's bytes), or, with
   * `undefined`, holds them again, reading them all now (an entry is about to get a key that
   * cannot be read back from its document: a multikey one). `keep: false` when a load
   * replaces every entry next.
   */
  readKeysWith(reader: KeyReader | undefined, keep = true): void {
    if (reader === this.#reader) return;
    const w = this.width;
    // Not `keep`: a load replaces the blocks next, so their keys need no conversion.
    for (const block of keep ? this.#blocks : []) {
      if (reader !== undefined) {
        block.keys = [];
        continue;
      }
      const keys: unknown[] = new Array(block.docs.length * w);
      for (let i = 0; i < block.docs.length; i++) this.#reader!(block.docs[i], keys, i * w);
      block.keys = keys;
    }
    this.#reader = reader;
  }

  /** Whether the blocks hold each entry's keys (false: they are read from the documents, see {@link readKeysWith}). */
  get holdsKeys(): boolean {
    return this.#reader === undefined;
  }

  /** The array holding entry `offset` of `block`'s keys; they start at {@link #base}. */
  #keys(block: Block, offset: number): readonly unknown[] {
    if (this.#reader === undefined) {
      this.#base = offset * this.width;
      return block.keys;
    }
    this.#reader(block.docs[offset], this.#scratch, 0);
    this.#base = 0;
    return this.#scratch;
  }

  /** Number of key fields per entry. */
  get width(): number {
    return this.dirs.length;
  }

  /** Number of entries. */
  get size(): number {
    return this.#size;
  }

  /** Changes whenever positions shift. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Compares an entry with a key tuple and `_id`, in index order. */
  compareEntry(pos: Position, key: readonly unknown[], id: unknown): number {
    const block = this.#blocks[pos.block];
    const keys = this.#keys(block, pos.offset);
    const base = this.#base;
    for (let f = 0; f < this.width; f++) {
      const c = this.compareKey(keys[base + f], key[f]);
      if (c !== 0) return c * this.dirs[f];
    }
    return compareValues(this.table.id(block.docs[pos.offset]), id);
  }

  /** Key value `field` of the entry at `pos`. */
  keyAt(pos: Position, field: number): unknown {
    const keys = this.#keys(this.#blocks[pos.block], pos.offset);
    return keys[this.#base + field];
  }

  /** Document of the entry at `pos`, decoded. */
  docAt(pos: Position): Document {
    return this.table.decode(this.#blocks[pos.block].docs[pos.offset]);
  }

  /** Number of the document of the entry at `pos`. */
  numberAt(pos: Position): number {
    return this.#blocks[pos.block].docs[pos.offset];
  }

  /** `_id` of the document of the entry at `pos`. */
  idAt(pos: Position): unknown {
    return this.table.id(this.#blocks[pos.block].docs[pos.offset]);
  }

  /** True when `pos` points at an entry. */
  valid(pos: Position): boolean {
    const block = this.#blocks[pos.block];
    return block !== undefined && pos.offset >= 0 && pos.offset < block.docs.length;
  }

  /** The key tuple of the entry at `pos`, as a new array. */
  keysAt(pos: Position): unknown[] {
    const keys = this.#keys(this.#blocks[pos.block], pos.offset);
    return keys.slice(this.#base, this.#base + this.width);
  }

  /** The position after `pos` (possibly past the end). */
  next(pos: Position): Position {
    const after = { block: pos.block, offset: pos.offset };
    this.advance(after);
    return after;
  }

  /** The position before `pos` (offset -1 when there is none). */
  prev(pos: Position): Position {
    const before = { block: pos.block, offset: pos.offset };
    this.retreat(before);
    return before;
  }

  /** Moves `pos` in place to the next entry, as {@link next}: a scan steps without allocating. */
  advance(pos: Position): void {
    if (pos.offset + 1 < this.#blocks[pos.block].docs.length) {
      pos.offset++;
      return;
    }
    let block = pos.block + 1;
    while (block < this.#blocks.length && this.#blocks[block].docs.length === 0) block++;
    pos.block = block;
    pos.offset = 0;
  }

  /** Moves `pos` in place to the previous entry, as {@link prev}. */
  retreat(pos: Position): void {
    if (pos.offset > 0) {
      pos.offset--;
      return;
    }
    let block = pos.block - 1;
    while (block >= 0 && this.#blocks[block].docs.length === 0) block--;
    pos.block = block < 0 ? 0 : block;
    pos.offset = block < 0 ? -1 : this.#blocks[block].docs.length - 1;
  }

  /**
   * The first entry for which `probe` is not negative (entries are assumed to be ordered so
   * that it is negative for a prefix of them); past the end when there is none. O(log n).
   */
  seek(probe: Probe): Position {
    const blocks = this.#blocks;
    const width = this.dirs.length;
    const lo = this.#fences.search(probe, blocks.length - 1);
    const block = blocks[lo];
    const { docs } = block;
    let a = 0;
    let b = docs.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const keys = this.#reader === undefined ? block.keys : this.#keys(block, mid);
      if (probe(keys, this.#reader === undefined ? mid * width : 0, docs[mid]) < 0) a = mid + 1;
      else b = mid;
    }
    return a < docs.length ? { block: lo, offset: a } : this.next({ block: lo, offset: a - 1 });
  }

  /** How many entries lie before `pos`. O(1) after the first call following a write. */
  rank(pos: Position): number {
    if (pos.block >= this.#blocks.length) return this.#size;
    if (!this.#before) {
      const before = new Int32Array(this.#blocks.length);
      for (let i = 1; i < before.length; i++) before[i] = before[i - 1] + this.#blocks[i - 1].docs.length;
      this.#before = before;
    }
    return this.#before[pos.block] + pos.offset;
  }

  /** The position of the entry with `rank` entries before it (past the end when there is none). O(log n). */
  atRank(rank: number): Position {
    if (rank >= this.#size) return { block: this.#blocks.length, offset: 0 };
    this.rank({ block: 0, offset: 0 });
    const before = this.#before!;
    let lo = 0;
    let hi = before.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (before[mid] <= rank) lo = mid;
      else hi = mid - 1;
    }
    while (this.#blocks[lo].docs.length === 0) lo++;
    return { block: lo, offset: rank - before[lo] };
  }

  /** Inserts an entry for document number `doc` (its place is found from the key tuple and the document's `_id`). */
  insert(key: readonly unknown[], doc: number, id: unknown): void {
    const pos = this.seek(this.#exact(key, id));
    const target = pos.block < this.#blocks.length
      ? pos
      : { block: this.#blocks.length - 1, offset: this.#blocks[this.#blocks.length - 1].docs.length };
    const block = this.#blocks[target.block];
    block.docs.splice(target.offset, 0, doc);
    if (this.#reader === undefined) block.keys.splice(target.offset * this.width, 0, ...key);
    if (block.docs.length > BLOCK_SIZE) this.#split(target.block);
    else if (target.offset === block.docs.length - 1) this.#setFence(target.block);
    this.#changed(1);
  }

  /** Removes the entry with this key tuple and `_id`; false when there is none. */
  remove(key: readonly unknown[], id: unknown): boolean {
    const pos = this.#find(key, id);
    if (!pos) return false;
    const block = this.#blocks[pos.block];
    block.docs.splice(pos.offset, 1);
    if (this.#reader === undefined) block.keys.splice(pos.offset * this.width, this.width);
    if (block.docs.length === 0 && this.#blocks.length > 1) {
      this.#blocks.splice(pos.block, 1);
      this.#fences.remove(pos.block);
    } else if (pos.offset === block.docs.length) {
      this.#setFence(pos.block);
    }
    this.#changed(-1);
    return true;
  }

  /** Points the entry with this key tuple and `_id` at a new version of its document, numbered `doc`. */
  swap(key: readonly unknown[], doc: number, id: unknown): boolean {
    const pos = this.#find(key, id);
    if (pos === undefined) return false;
    const block = this.#blocks[pos.block];
    block.docs[pos.offset] = doc;
    if (pos.offset === block.docs.length - 1) this.#fences.setDoc(pos.block, doc);
    return true;
  }

  /**
   * Replaces every entry by the given ones (unsorted), sorting once on precomputed key ranks.
   * `shared` names each key field so that its ranks are reused by the next load over the
   * same entries (see {@link sortedEntries}). `lastKeyIsId` says that the last key field is the
   * entries' own `_id`, ascending and compared in binary order (no collation).
   */
  load(keys: unknown[], docs: number[], shared?: SharedRanks, lastKeyIsId = false): void {
    const order = sortedEntries(this.#keyOrder, keys, docs, shared, lastKeyIsId);
    this.#replaceBlocks(cutIntoBlocks(this.#heldWidth(), keys, docs, order), docs.length);
  }

  /** Key values the blocks hold per entry: none while keys are read from documents. */
  #heldWidth(): number {
    return this.#reader === undefined ? this.width : 0;
  }

  /**
   * Replaces every entry by the given ones, which the caller guarantees are already in index
   * order (a snapshot's saved order, see OrderedIndex.buildInOrder): entry k is `docs[k]`, or
   * `docs[order[k]]` with an `order`.
   */
  loadInOrder(keys: unknown[], docs: readonly number[], order?: ArrayLike<number>): void {
    this.#replaceBlocks(cutIntoBlocks(this.#heldWidth(), keys, docs, order), order?.length ?? docs.length);
  }

  /**
   * Replaces every entry by two runs merged: `keys`/`docs`, already in index order (as
   * {@link loadInOrder} takes them), and `extraKeys`/`extraDocs` in any order (sorted here as
   * {@link load} sorts). Recovery's use: the entries of a snapshot's saved order that are
   * still current, and those of the documents the journal wrote since. No document may be in
   * both runs.
   */
  loadMerged(keys: unknown[], docs: number[], extraKeys: unknown[], extraDocs: readonly number[]): void {
    const blocks = mergedBlocks(this.#keyOrder, keys, docs, extraKeys, extraDocs);
    if (this.#reader !== undefined) { for (const block of blocks) block.keys = []; }
    this.#replaceBlocks(blocks, docs.length + extraDocs.length);
  }

  /**
   * Replaces every entry by a run already in index order (`kept`, document numbers) with the
   * entries `extraKeys`/`extraDocs` merged in (see gallopMergedBlocks); the blocks hold no
   * keys, which must be read from the documents already ({@link readKeysWith}).
   */
  loadGallopMerged(
    kept: ArrayLike<number>,
    extraKeys: unknown[],
    extraDocs: readonly number[],
    how: GallopOptions = {},
  ): void {
    const reader = this.#reader;
    if (reader === undefined) throw new Error("loadGallopMerged is for an index reading its keys from the documents");
    const blocks = gallopMergedBlocks(this.#keyOrder, kept, reader, extraKeys, extraDocs, how);
    this.#replaceBlocks(blocks, kept.length + extraDocs.length);
  }

  /** The entries' document numbers, in index order (a document repeats for each of its entries). */
  *owners(): Generator<number> {
    for (const block of this.#blocks) yield* block.docs;
  }

  /** Makes `blocks` (holding `size` entries) the entries, with their fences. */
  #replaceBlocks(blocks: Block[], size: number): void {
    this.#blocks = blocks;
    this.#fences.clear();
    for (let b = 0; b < blocks.length; b++) this.#setFence(b);
    this.#size = size;
    this.#before = undefined;
    this.#epoch++;
  }

  /** Makes block `b`'s fence its last entry. */
  #setFence(b: number): void {
    const block = this.#blocks[b];
    const last = block.docs.length - 1;
    if (last < 0) return;
    const keys = this.#keys(block, last);
    this.#fences.setEntry(b, keys, this.#base, block.docs[last]);
  }

  #exact(key: readonly unknown[], id: unknown): Probe {
    // Read once here rather than through `this` on each of the seek's ~20 comparisons.
    const { dirs, compareKey, table } = this;
    const width = dirs.length;
    return (keys, base, doc) => {
      for (let f = 0; f < width; f++) {
        const c = compareKey(keys[base + f], key[f]);
        if (c !== 0) return c * dirs[f];
      }
      return compareValues(table.id(doc), id);
    };
  }

  /** Whether the entry with this key tuple and `_id` is there. */
  has(key: readonly unknown[], id: unknown): boolean {
    return this.#find(key, id) !== undefined;
  }

  #find(key: readonly unknown[], id: unknown): Position | undefined {
    const pos = this.seek(this.#exact(key, id));
    return this.valid(pos) && this.compareEntry(pos, key, id) === 0 ? pos : undefined;
  }

  #split(index: number): void {
    const block = this.#blocks[index];
    const half = block.docs.length >>> 1;
    const w = this.#heldWidth();
    const right: Block = { docs: block.docs.slice(half), keys: block.keys.slice(half * w) };
    block.docs.length = half;
    block.keys.length = half * w;
    this.#blocks.splice(index + 1, 0, right);
    // The right half keeps the old last entry: its fence moves along, the left one is new.
    this.#fences.insert(index);
    this.#setFence(index);
    this.#setFence(index + 1);
  }

  #changed(delta: number): void {
    this.#size += delta;
    this.#before = undefined;
    this.#epoch++;
  }
}
