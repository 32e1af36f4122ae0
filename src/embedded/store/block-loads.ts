import { type Ranked, sortedOrder, type SortField } from "./rank-sort.ts";
import type { StoredKeyComparer } from "./stored-keys.ts";
import { compareValues } from "./values.ts";

/**
 * Most entries one block holds before it splits. 256 keeps a splice into a block cheap (a few
 * hundred pointer moves) while a million entries need only ~4-8k blocks, whose directory is
 * binary-searched.
 */
export const BLOCK_SIZE = 256;

/**
 * One block of {@link SortedBlocks}: `docs[i]` is the number of entry i's document (in its
 * collection's DocTable), its key values are `keys[i * width .. i * width + width)`. Flat
 * parallel arrays cost one or two words per entry, with no object per entry.
 */
export interface Block {
  keys: unknown[];
  docs: number[];
}

/** How an index orders its entries: each key field's direction, and how key values compare. */
export interface KeyOrder {
  /** 1 or -1 per key field. */
  readonly dirs: readonly (1 | -1)[];
  /** Compares two key values (BSON order, strings under the index's collation). */
  readonly compareKey: (a: unknown, b: unknown) => number;
  /** Strings compare in binary order (no collation), which the rank sort can do natively. */
  readonly binaryStrings: boolean;
  /** The `_id` of a document, by number: entries with equal keys are ordered by it. */
  readonly idOf: (doc: number) => unknown;
  /** Compares two documents' `_id`s by number, as compareValues on {@link idOf}'s would (on bytes where it can). */
  readonly compareIds: (a: number, b: number) => number;
}

/** Key ranks shared between the builds of one collection's indexes (see {@link sortedOrder}). */
export interface SharedRanks {
  /** The name each key field's ranks go by. */
  names: readonly string[];
  ranks: Map<string, Ranked>;
}

/** How {@link gallopMergedBlocks} may save work. */
export interface GallopOptions {
  /** Compares the kept entries' keys on their documents' bytes wherever it can tell. */
  stored?: StoredKeyComparer;
  /** Ranks for sorting the extra entries, shared with other indexes' merges of the same ones. */
  shared?: SharedRanks;
  /** The last key field is the entries' `_id`, ascending, in binary order (see sortedEntries). */
  lastKeyIsId?: boolean;
}

/**
 * The order that sorts entries (`keys`, `docs`; width = `order.dirs.length`) by key, then
 * `_id`, on precomputed key ranks. `lastKeyIsId` says that the last key field is the entries'
 * own `_id`, ascending and compared in binary order (no collation).
 */
export function sortedEntries(
  order: KeyOrder,
  keys: readonly unknown[],
  docs: readonly number[],
  shared?: SharedRanks,
  lastKeyIsId = false,
): Uint32Array {
  const w = order.dirs.length;
  const fields: SortField[] = order.dirs.map((dir, f) => ({
    valueAt: (i) => keys[i * w + f],
    dir,
    compare: order.compareKey,
    binaryStrings: order.binaryStrings,
    shareAs: shared?.names[f],
  }));
  // Entries usually come in `_id` order (an index build walks the documents so), which the
  // stable sort keeps for equal keys; otherwise `_id` is the last sort field.
  if (!idsAscending(order, docs)) {
    fields.push({ valueAt: (i) => order.idOf(docs[i]), dir: 1, compare: compareValues, binaryStrings: true });
  } else if (lastKeyIsId) {
    // A last key field that is `_id` ascending, in binary order, orders entries exactly as
    // their `_id` order does, which the stable sort keeps anyway: ranking its (all distinct)
    // values would only cost time.
    fields.pop();
  }
  return sortedOrder(fields, docs.length, shared?.ranks);
}

/** Entries `order[k]` (or entry k, without an order) cut into blocks, in that order; one empty block for none. */
export function cutIntoBlocks(
  width: number,
  keys: readonly unknown[],
  docs: readonly number[],
  order?: ArrayLike<number>,
): Block[] {
  const count = order?.length ?? docs.length;
  const blocks: Block[] = [];
  for (let start = 0; start < count || blocks.length === 0; start += BLOCK_SIZE) {
    const end = Math.min(start + BLOCK_SIZE, count);
    const block: Block = { docs: new Array(end - start), keys: new Array((end - start) * width) };
    for (let k = start; k < end; k++) {
      const i = order === undefined ? k : order[k];
      block.docs[k - start] = docs[i];
      for (let f = 0; f < width; f++) block.keys[(k - start) * width + f] = keys[i * width + f];
    }
    blocks.push(block);
  }
  return blocks;
}

/**
 * Two runs of entries merged into blocks: `keys`/`docs`, already in index order, and
 * `extraKeys`/`extraDocs` in any order (sorted here). No document may be in both runs. Cut
 * into blocks as it merges: two merged copies of a million keys would cost more than the merge.
 */
export function mergedBlocks(
  order: KeyOrder,
  keys: readonly unknown[],
  docs: readonly number[],
  extraKeys: readonly unknown[],
  extraDocs: readonly number[],
): Block[] {
  const w = order.dirs.length;
  const extra = sortedEntries(order, extraKeys, extraDocs);
  const blocks: Block[] = [];
  let block: Block = { keys: [], docs: [] };
  const append = (from: readonly unknown[], i: number, doc: number): void => {
    if (block.docs.length === BLOCK_SIZE) blocks.push(block = { keys: [], docs: [] });
    for (let f = 0; f < w; f++) block.keys.push(from[i * w + f]);
    block.docs.push(doc);
  };
  blocks.push(block);
  let a = 0;
  for (let k = 0; k < extra.length; k++) {
    const b = extra[k];
    while (a < docs.length && sortsBefore(order, keys, a, docs[a], extraKeys, b, extraDocs[b])) {
      append(keys, a, docs[a++]);
    }
    append(extraKeys, b, extraDocs[b]);
  }
  while (a < docs.length) append(keys, a, docs[a++]);
  return blocks;
}

/**
 * Entries of a run already in index order whose keys are read on demand (entry i's document is
 * `kept[i]`, its keys `readKeys` reads), with the entries `extraKeys`/`extraDocs` (keys held,
 * any order: sorted here) merged in, cut into blocks holding no keys. Each extra entry's place
 * is found by galloping on from the last one's, then a binary search: about k log(n/k) key
 * reads for k entries into n, where a merge step by step would read all n.
 */
export function gallopMergedBlocks(
  order: KeyOrder,
  kept: ArrayLike<number>,
  readKeys: (doc: number, out: unknown[], at: number) => void,
  extraKeys: readonly unknown[],
  extraDocs: readonly number[],
  { stored, shared, lastKeyIsId }: GallopOptions = {},
): Block[] {
  const extra = sortedEntries(order, extraKeys, extraDocs, shared, lastKeyIsId);
  const blocks: Block[] = [{ keys: [], docs: [] }];
  const append = (doc: number): void => {
    let block = blocks[blocks.length - 1];
    if (block.docs.length === BLOCK_SIZE) blocks.push(block = { keys: [], docs: [] });
    block.docs.push(doc);
  };
  const scratch: unknown[] = [];
  let onBytes = false;
  const before = (i: number, j: number): boolean => {
    const c = onBytes ? stored!.compare(kept[i]) : undefined;
    if (c !== undefined) return c !== 0 ? c < 0 : order.compareIds(kept[i], extraDocs[j]) < 0;
    readKeys(kept[i], scratch, 0);
    return sortsBefore(order, scratch, 0, kept[i], extraKeys, j, extraDocs[j]);
  };
  let a = 0;
  for (let k = 0; k < extra.length; k++) {
    const j = extra[k];
    onBytes = stored?.setProbe(extraKeys, j) ?? false;
    // Gallop: entries [a, lo) sort before entry j; hi - 1 does not, or hi is the end.
    let lo = a;
    let hi = a + 1;
    for (let step = 1; hi <= kept.length && before(hi - 1, j); step *= 2) {
      lo = hi;
      hi = lo + step * 2;
    }
    hi = Math.min(hi, kept.length);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(mid, j)) lo = mid + 1;
      else hi = mid;
    }
    for (; a < lo; a++) append(kept[a]);
    append(extraDocs[j]);
  }
  for (; a < kept.length; a++) append(kept[a]);
  return blocks;
}

/** Whether entry i of (keys, doc) sorts before entry j of (otherKeys, other): by key, then `_id`. */
function sortsBefore(
  order: KeyOrder,
  keys: readonly unknown[],
  i: number,
  doc: number,
  otherKeys: readonly unknown[],
  j: number,
  other: number,
): boolean {
  const { dirs, compareKey } = order;
  const w = dirs.length;
  for (let f = 0; f < w; f++) {
    const c = compareKey(keys[i * w + f], otherKeys[j * w + f]);
    if (c !== 0) return c * dirs[f] < 0;
  }
  return order.compareIds(doc, other) < 0;
}

/** True when the documents' `_id`s never decrease (a document repeats for each multikey entry). */
function idsAscending(order: KeyOrder, docs: readonly number[]): boolean {
  for (let i = 1; i < docs.length; i++) if (order.compareIds(docs[i - 1], docs[i]) > 0) return false;
  return true;
}
