/**
 * Tells where an entry lies relative to a search target: negative when the entry sorts before
 * it. The entry's key value `f` is `keys[base + f]` and `doc` is its document's number: flat arguments,
 * so the comparisons of a seek allocate nothing (an accessor closure per comparison was most
 * of what a keyset page's read allocated).
 */
export type Probe = (keys: readonly unknown[], base: number, doc: number) => number;

/**
 * The directory of sorted blocks (see SortedBlocks): each block's last entry again, its
 * _fence_, in two flat arrays (its key values at `keys[b * width ..]`, its document at
 * `docs[b]`). A seek's search of the blocks compares against these instead of reaching into a
 * block, its keys and its documents at every step: at a million entries those reads missed the
 * CPU caches and were most of the seek's time. The blocks' owner keeps it up to date on every
 * write; an empty block (only ever the sole one) has no fence.
 */
export class Fences {
  #keys: unknown[] = [];
  #docs: number[] = [];

  /** Fences of entries with `width` key values each. */
  constructor(private readonly width: number) {}

  /** Makes block `b`'s fence the entry whose keys are `keys[base..]` and whose document is `doc`. */
  setEntry(b: number, keys: readonly unknown[], base: number, doc: number): void {
    const w = this.width;
    for (let f = 0; f < w; f++) this.#keys[b * w + f] = keys[base + f];
    this.#docs[b] = doc;
  }

  /** Points block `b`'s fence at a new version of its document (the same key and `_id`). */
  setDoc(b: number, doc: number): void {
    this.#docs[b] = doc;
  }

  /** Makes room for a fence before block `b`'s (a block split in two); set it next. */
  insert(b: number): void {
    this.#keys.splice(b * this.width, 0, ...new Array(this.width));
    this.#docs.splice(b, 0, this.#docs[b]);
  }

  /** Drops block `b`'s fence (the block went). */
  remove(b: number): void {
    this.#keys.splice(b * this.width, this.width);
    this.#docs.splice(b, 1);
  }

  /** Forgets every fence (the blocks are being replaced). */
  clear(): void {
    this.#keys = [];
    this.#docs = [];
  }

  /**
   * The first of blocks 0 to `last` whose fence `probe` does not put before the target, by
   * binary search; `last` when all the others are before it (its own fence is never read).
   */
  search(probe: Probe, last: number): number {
    const keys = this.#keys;
    const docs = this.#docs;
    const w = this.width;
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (probe(keys, mid * w, docs[mid]) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
