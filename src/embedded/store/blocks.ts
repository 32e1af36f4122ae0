import type { Document } from "bson";
import type { StringCompare } from "./collation.ts";
import { type Ranked, sortedOrder, type SortField } from "./rank-sort.ts";
import { compareValues } from "./values.ts";

/**
 * Most entries one block holds before it splits. 256 keeps a splice into a block cheap (a few
 * hundred pointer moves) while a million entries need only ~4-8k blocks, whose directory is
 * binary-searched.
 */
const BLOCK_SIZE = 256;

/**
 * One block: `docs[i]` is the document of entry i, its key values are
 * `keys[i * width .. i * width + width)`. Flat parallel arrays cost one or two pointers per
 * entry, with no object per entry.
 */
interface Block {
  keys: unknown[];
  docs: Document[];
}

/** A position in {@link SortedBlocks}: block number and offset in it. */
export interface Position {
  block: number;
  offset: number;
}

/**
 * Tells where an entry lies relative to a search target: negative when the entry sorts before
 * it. The entry's key value `f` is `keys[base + f]` and `doc` is its document: flat arguments,
 * so the comparisons of a seek allocate nothing (an accessor closure per comparison was most
 * of what a keyset page's read allocated).
 */
export type Probe = (keys: readonly unknown[], base: number, doc: Document) => number;

/**
 * Index entries (key tuple, document) kept sorted in blocks of at most {@link BLOCK_SIZE}: a
 * B+tree of height two. Entries are ordered by their key values (each field ascending or
 * descending, in MongoDB's BSON order) and then by `_id`, so every entry has a unique place
 * and equal keys read in `_id` order. Bulk loads sort once; single writes binary-search the
 * block directory, then the block, and splice.
 */
export class SortedBlocks {
  #blocks: Block[] = [{ keys: [], docs: [] }];
  /**
   * Each block's last entry again, in two flat directories: its key values at
   * `fenceKeys[b * width ..]` and its document at `fenceDocs[b]`. A seek's search of the blocks
   * compares against these instead of reaching into a block, its keys and its documents at
   * every step: at a million entries those reads missed the CPU caches and were most of the
   * seek's time. Kept up to date by every write; an empty block (only ever the sole one) has none.
   */
  #fenceKeys: unknown[] = [];
  #fenceDocs: Document[] = [];
  #size = 0;
  /** Entries before each block, rebuilt lazily after a write (see {@link rank}). */
  #before: Int32Array | undefined;
  /** Bumped whenever entries move, so open scans find their place again. */
  #epoch = 0;

  /**
   * `dirs[f]` is 1 or -1: the order of key field f. `strings` is the index's collation order
   * for strings (none: binary).
   */
  constructor(
    readonly dirs: readonly (1 | -1)[],
    readonly strings?: StringCompare,
  ) {}

  /** Compares two key values in this index's order (BSON order, strings under its collation). */
  readonly compareKey = (a: unknown, b: unknown): number => compareValues(a, b, this.strings);

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
    const base = pos.offset * this.width;
    for (let f = 0; f < this.width; f++) {
      const c = this.compareKey(block.keys[base + f], key[f]);
      if (c !== 0) return c * this.dirs[f];
    }
    return compareValues(block.docs[pos.offset]._id, id);
  }

  /** Key value `field` of the entry at `pos`. */
  keyAt(pos: Position, field: number): unknown {
    return this.#blocks[pos.block].keys[pos.offset * this.width + field];
  }

  /** Document of the entry at `pos`. */
  docAt(pos: Position): Document {
    return this.#blocks[pos.block].docs[pos.offset];
  }

  /** True when `pos` points at an entry. */
  valid(pos: Position): boolean {
    const block = this.#blocks[pos.block];
    return block !== undefined && pos.offset >= 0 && pos.offset < block.docs.length;
  }

  /** The key tuple of the entry at `pos`, as a new array. */
  keysAt(pos: Position): unknown[] {
    const base = pos.offset * this.width;
    return this.#blocks[pos.block].keys.slice(base, base + this.width);
  }

  /** What `probe` says of the entry at `pos` (which must be valid). */
  probeAt(probe: Probe, pos: Position): number {
    const block = this.#blocks[pos.block];
    return probe(block.keys, pos.offset * this.width, block.docs[pos.offset]);
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
    const fenceKeys = this.#fenceKeys;
    const fenceDocs = this.#fenceDocs;
    let lo = 0;
    let hi = blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (probe(fenceKeys, mid * width, fenceDocs[mid]) < 0) lo = mid + 1;
      else hi = mid;
    }
    const { keys, docs } = blocks[lo];
    let a = 0;
    let b = docs.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (probe(keys, mid * width, docs[mid]) < 0) a = mid + 1;
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

  /** Inserts an entry (its place is found from the key tuple and the document's `_id`). */
  insert(key: readonly unknown[], doc: Document): void {
    const pos = this.seek(this.#exact(key, doc._id));
    const target = pos.block < this.#blocks.length
      ? pos
      : { block: this.#blocks.length - 1, offset: this.#blocks[this.#blocks.length - 1].docs.length };
    const block = this.#blocks[target.block];
    block.docs.splice(target.offset, 0, doc);
    block.keys.splice(target.offset * this.width, 0, ...key);
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
    block.keys.splice(pos.offset * this.width, this.width);
    if (block.docs.length === 0 && this.#blocks.length > 1) {
      this.#blocks.splice(pos.block, 1);
      this.#fenceKeys.splice(pos.block * this.width, this.width);
      this.#fenceDocs.splice(pos.block, 1);
    } else if (pos.offset === block.docs.length) {
      this.#setFence(pos.block);
    }
    this.#changed(-1);
    return true;
  }

  /** Points the entry with this key tuple and `_id` at a new version of its document. */
  swap(key: readonly unknown[], doc: Document): boolean {
    const pos = this.#find(key, doc._id);
    if (pos === undefined) return false;
    const block = this.#blocks[pos.block];
    block.docs[pos.offset] = doc;
    if (pos.offset === block.docs.length - 1) this.#fenceDocs[pos.block] = doc;
    return true;
  }

  /**
   * Replaces every entry by the given ones (unsorted), sorting once on precomputed key ranks.
   * `shared` names each key field so that its ranks are reused by the next load over the
   * same entries (see {@link sortedOrder}). `lastKeyIsId` says that the last key field is the
   * entries' own `_id`, ascending and compared in binary order (no collation).
   */
  load(
    keys: unknown[],
    docs: Document[],
    shared?: { names: readonly string[]; ranks: Map<string, Ranked> },
    lastKeyIsId = false,
  ): void {
    this.#fill(keys, docs, this.#sortedOrder(keys, docs, shared, lastKeyIsId));
  }

  /** The order of entries (keys, docs) that {@link load} sorts them into. */
  #sortedOrder(
    keys: unknown[],
    docs: readonly Document[],
    shared?: { names: readonly string[]; ranks: Map<string, Ranked> },
    lastKeyIsId = false,
  ): Uint32Array {
    const w = this.width;
    const fields: SortField[] = this.dirs.map((dir, f) => ({
      valueAt: (i) => keys[i * w + f],
      dir,
      compare: this.compareKey,
      binaryStrings: this.strings === undefined,
      shareAs: shared?.names[f],
    }));
    // Entries usually come in `_id` order (an index build walks the documents so), which the
    // stable sort keeps for equal keys; otherwise `_id` is the last sort field.
    if (!idsAscending(docs)) {
      fields.push({ valueAt: (i) => docs[i]._id, dir: 1, compare: compareValues, binaryStrings: true });
    } else if (lastKeyIsId) {
      // A last key field that is `_id` ascending, in binary order, orders entries exactly as
      // their `_id` order does, which the stable sort keeps anyway: ranking its (all distinct)
      // values would only cost time.
      fields.pop();
    }
    return sortedOrder(fields, docs.length, shared?.ranks);
  }

  /**
   * Replaces every entry by two runs merged: `keys`/`docs`, already in index order (as
   * {@link loadInOrder} takes them), and `extraKeys`/`extraDocs` in any order (sorted here as
   * {@link load} sorts). Recovery's use: the entries of a snapshot's saved order that are
   * still current, and those of the documents the journal wrote since. No document may be in
   * both runs.
   */
  loadMerged(keys: unknown[], docs: Document[], extraKeys: unknown[], extraDocs: readonly Document[]): void {
    const w = this.width;
    const order = this.#sortedOrder(extraKeys, extraDocs);
    // Straight into blocks: two merged copies of a million keys would cost more than the merge.
    const blocks: Block[] = [];
    let block: Block = { keys: [], docs: [] };
    const append = (from: readonly unknown[], i: number, doc: Document): void => {
      if (block.docs.length === BLOCK_SIZE) blocks.push(block = { keys: [], docs: [] });
      for (let f = 0; f < w; f++) block.keys.push(from[i * w + f]);
      block.docs.push(doc);
    };
    blocks.push(block);
    let a = 0;
    for (let k = 0; k < order.length; k++) {
      const b = order[k];
      while (a < docs.length && this.#sortsBefore(keys, a, docs[a], extraKeys, b, extraDocs[b])) {
        append(keys, a, docs[a++]);
      }
      append(extraKeys, b, extraDocs[b]);
    }
    while (a < docs.length) append(keys, a, docs[a++]);
    this.#replaceBlocks(blocks, docs.length + order.length);
  }

  /** Whether entry i of (keys, doc) sorts before entry j of (otherKeys, other): by key, then `_id`. */
  #sortsBefore(
    keys: readonly unknown[],
    i: number,
    doc: Document,
    otherKeys: readonly unknown[],
    j: number,
    other: Document,
  ): boolean {
    const w = this.width;
    for (let f = 0; f < w; f++) {
      const c = this.compareKey(keys[i * w + f], otherKeys[j * w + f]);
      if (c !== 0) return c * this.dirs[f] < 0;
    }
    return compareValues(doc._id, other._id) < 0;
  }

  /**
   * Replaces every entry by the given ones, which the caller guarantees are already in index
   * order (a snapshot's saved order, checked by {@link OrderedIndex.buildInOrder}).
   */
  loadInOrder(keys: unknown[], docs: Document[]): void {
    this.#fill(keys, docs, undefined);
  }

  /** The entries' documents, in index order (a document repeats for each of its entries). */
  *owners(): Generator<Document> {
    for (const block of this.#blocks) yield* block.docs;
  }

  /** Cuts entries `order[k]` (or entry k, without an order) into blocks, in that order. */
  #fill(keys: unknown[], docs: Document[], order: ArrayLike<number> | undefined): void {
    const w = this.width;
    const count = docs.length;
    const blocks: Block[] = [];
    for (let start = 0; start < count || blocks.length === 0; start += BLOCK_SIZE) {
      const end = Math.min(start + BLOCK_SIZE, count);
      const block: Block = { docs: new Array(end - start), keys: new Array((end - start) * w) };
      for (let k = start; k < end; k++) {
        const i = order === undefined ? k : order[k];
        block.docs[k - start] = docs[i];
        for (let f = 0; f < w; f++) block.keys[(k - start) * w + f] = keys[i * w + f];
      }
      blocks.push(block);
    }
    this.#replaceBlocks(blocks, count);
  }

  /** Makes `blocks` (holding `size` entries) the entries, with their fences. */
  #replaceBlocks(blocks: Block[], size: number): void {
    this.#blocks = blocks;
    this.#fenceKeys = [];
    this.#fenceDocs = [];
    for (let b = 0; b < blocks.length; b++) this.#setFence(b);
    this.#size = size;
    this.#before = undefined;
    this.#epoch++;
  }

  /** Copies block `b`'s last entry into the fences (nothing for an empty block). */
  #setFence(b: number): void {
    const { keys, docs } = this.#blocks[b];
    const last = docs.length - 1;
    if (last < 0) return;
    const w = this.width;
    for (let f = 0; f < w; f++) this.#fenceKeys[b * w + f] = keys[last * w + f];
    this.#fenceDocs[b] = docs[last];
  }

  #exact(key: readonly unknown[], id: unknown): Probe {
    // Read once here rather than through `this` on each of the seek's ~20 comparisons.
    const { dirs, compareKey } = this;
    const width = dirs.length;
    return (keys, base, doc) => {
      for (let f = 0; f < width; f++) {
        const c = compareKey(keys[base + f], key[f]);
        if (c !== 0) return c * dirs[f];
      }
      return compareValues(doc._id, id);
    };
  }

  #find(key: readonly unknown[], id: unknown): Position | undefined {
    const pos = this.seek(this.#exact(key, id));
    return this.valid(pos) && this.compareEntry(pos, key, id) === 0 ? pos : undefined;
  }

  #split(index: number): void {
    const block = this.#blocks[index];
    const half = block.docs.length >>> 1;
    const right: Block = { docs: block.docs.slice(half), keys: block.keys.slice(half * this.width) };
    block.docs.length = half;
    block.keys.length = half * this.width;
    this.#blocks.splice(index + 1, 0, right);
    // The right half keeps the old last entry: its fence moves along, the left one is new.
    this.#fenceKeys.splice(index * this.width, 0, ...new Array(this.width));
    this.#fenceDocs.splice(index, 0, block.docs[half - 1]);
    this.#setFence(index);
    this.#setFence(index + 1);
  }

  #changed(delta: number): void {
    this.#size += delta;
    this.#before = undefined;
    this.#epoch++;
  }
}

/** True when the documents' `_id`s never decrease (a document repeats for each multikey entry). */
function idsAscending(docs: readonly Document[]): boolean {
  for (let i = 1; i < docs.length; i++) if (compareValues(docs[i - 1]._id, docs[i]._id) > 0) return false;
  return true;
}
