import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { type KeyReader, SortedBlocks } from "./blocks.ts";
import type { DocTable } from "./doc-table.ts";
import type { Ranked } from "./rank-sort.ts";
import type { WrittenSince } from "./saved-orders.ts";
import { type Collation, parseCollation } from "./collation.ts";
import { OrderCheck, type OrderCheckResult } from "./order-check.ts";
import { StoredKeyComparer } from "./stored-keys.ts";
import { ownField } from "../field-names.ts";
import { keyTuples, keyValueOf, namesHazardousField, pushFlatKey, sameTuple, touchesAnyArray } from "./key-tuples.ts";
import { keyOf, type ValueKey } from "./values.ts";
import { type Coverage, partialFilterCoverage, sparseCoverage } from "./partial-filter.ts";

/**
 * Index builds since the process started, sorted (`builds`) or taken from a snapshot's saved
 * order (`fromSavedOrder`): tests assert recovery builds each index once, and how.
 */
export const indexStats = { builds: 0, fromSavedOrder: 0 };

/**
 * A secondary index (single-field or compound, each field ascending or descending, unique or
 * not), kept ordered in {@link SortedBlocks}. Each document contributes one entry per key
 * tuple: missing fields index as null and arrays as one entry per element (multikey), as in
 * MongoDB. Entries hold the numbers of the stored documents, so a read never looks documents up again.
 */
export class OrderedIndex {
  /** The indexed fields, in key order. */
  readonly fields: readonly string[];
  /** The entries. */
  readonly entries: SortedBlocks;
  /** Some document produced an array on an indexed field: reads must dedupe and may not intersect bounds. */
  multikey = false;
  /** The collation its entries are ordered by (none: binary order). */
  readonly collation: Collation | undefined;
  /**
   * The documents a sparse or partial index covers: those its uniqueness applies to. The
   * entries still hold every document (missing fields as null), so a read through the index is
   * never short of one; only which documents can conflict changes. Undefined: all of them.
   */
  readonly covers: Coverage | undefined;

  /** The top-level fields its keys are read from: all a stored document is decoded for, to index it. */
  readonly topFields: ReadonlySet<string>;
  /** Every indexed field is top-level: its value is read directly, with no path to follow. */
  readonly #flat: boolean;
  /** A field is named like `constructor`: read as an own field only (field-names.ts). */
  readonly #ownOnly: boolean;
  readonly #table: DocTable;
  /** Where {@link checkSavedOrder} goes on, while an order loaded unchecked is not fully checked. */
  #unchecked: OrderCheck | undefined;
  /** Reads a document's one key tuple from its bytes: the entries hold no keys while every document has one. */
  readonly #reader: KeyReader;
  readonly #dirs: readonly (1 | -1)[];

  /** An empty index for `spec` over the documents of `table`. */
  constructor(readonly spec: IndexSpec, table: DocTable) {
    this.fields = Object.keys(spec.key);
    this.topFields = new Set(["_id", ...this.fields.map((field) => field.split(".")[0])]);
    this.#flat = this.fields.every((field) => !field.includes("."));
    this.#ownOnly = namesHazardousField(this.fields);
    this.#table = table;
    this.collation = parseCollation(spec.collation);
    this.covers = spec.partialFilterExpression !== undefined
      ? partialFilterCoverage(spec.partialFilterExpression, this.collation)
      : spec.sparse
      ? sparseCoverage(this.fields)
      : undefined;
    this.#dirs = this.fields.map((f) => (spec.key[f] === -1 ? -1 : 1) as 1 | -1);
    this.entries = new SortedBlocks(this.#dirs, this.collation?.compare, table);
    this.#reader = (n, out, at) => {
      const doc = table.fields(n, this.topFields);
      for (let f = 0; f < this.fields.length; f++) {
        out[at + f] = (this.#ownOnly ? ownField(doc, this.fields[f]) : doc[this.fields[f]]) ?? null;
      }
    };
  }

  /** Whether the entries may read their keys from the documents: every one is flat and single. */
  #keyReader(): KeyReader | undefined {
    return this.#flat && !this.multikey ? this.#reader : undefined;
  }

  /** The key tuples a document produces (see keyTuples); one holding an array makes the index multikey. */
  keys(doc: Document): unknown[][] {
    if (!this.multikey && touchesAnyArray(doc, this.fields)) this.multikey = true;
    return keyTuples(doc, this.fields, this.entries.compareKey);
  }

  /** Records the entries of a stored document (`doc`, numbered `n`; its {@link topFields} suffice). */
  add(doc: Document, n: number): void {
    const key = this.#singleKey(doc);
    if (key !== undefined) return this.entries.insert(key, n, doc._id);
    const tuples = this.keys(doc);
    this.entries.readKeysWith(this.#keyReader());
    for (const tuple of tuples) this.entries.insert(tuple, n, doc._id);
  }

  /** Forgets the entries of a document being deleted. */
  remove(doc: Document): void {
    const key = this.#singleKey(doc);
    if (key !== undefined) this.#remove(key, doc._id);
    else for (const tuple of this.keys(doc)) this.#remove(tuple, doc._id);
  }

  /**
   * Removes an entry, which must be there. It is missing only from an order loaded unchecked
   * that is wrong (a search in misordered entries misses); the index is then {@link stale}.
   */
  #remove(key: readonly unknown[], id: unknown): void {
    if (!this.entries.remove(key, id) && this.#unchecked !== undefined) this.stale = true;
  }

  /**
   * A write found this index's entries out of order (see {@link #remove}): its owner must
   * build it again before anything reads it, as an entry may name a document gone since.
   */
  stale = false;

  /**
   * Moves the entries of a stored document to its new version (same `_id`, numbered `n`):
   * entries whose key is unchanged only get the new number; the others are removed and inserted.
   */
  replace(old: Document, doc: Document, n: number): void {
    const single = this.#singleKey(old);
    const next = single === undefined ? undefined : this.#singleKey(doc);
    if (single !== undefined && next !== undefined) {
      // The common case, one entry before and after: no tuple sets to build.
      if (sameTuple(single, next) && this.entries.swap(single, n, doc._id)) return;
      this.#remove(single, old._id);
      this.entries.insert(next, n, doc._id);
      return;
    }
    const before = this.keys(old);
    const after = this.keys(doc);
    this.entries.readKeysWith(this.#keyReader());
    const unchanged = new Set(after.map((k) => keyOf(k)));
    const kept = new Set<ValueKey>();
    for (const key of before) {
      const k = keyOf(key);
      if (unchanged.has(k) && this.entries.swap(key, n, doc._id)) kept.add(k);
      else this.#remove(key, old._id);
    }
    for (const key of after) if (!kept.has(keyOf(key))) this.entries.insert(key, n, doc._id);
  }

  /**
   * The one key tuple of `doc` when every indexed field is top-level and none holds an array
   * (then {@link keys} would give exactly this tuple); undefined otherwise. Writes take this
   * path: building key tuples through {@link keys} cost more than the index's own work.
   */
  #singleKey(doc: Document): unknown[] | undefined {
    if (!this.#flat) return undefined;
    const key: unknown[] = new Array(this.fields.length);
    return this.#pushKeys(doc, key, 0) ? key : undefined;
  }

  /**
   * Rebuilds the entries from the documents with one sort. Builds sharing `ranks` (recovery
   * building every index of a collection) rank a field once when it holds no array anywhere:
   * then every such build has one entry per document, in the same order.
   */
  build(numbers: Iterable<number>, ranks?: Map<string, Ranked>): void {
    indexStats.builds++;
    this.multikey = false;
    this.#unchecked = undefined;
    this.stale = false;
    const keys: unknown[] = [];
    const owners: number[] = [];
    // Top-level fields read directly: no path split, array of values or tuple per document.
    for (const n of numbers) {
      const doc = this.#table.fields(n, this.topFields);
      const at = keys.length;
      if (this.#flat && this.#pushKeys(doc, keys, at)) {
        owners.push(n);
        continue;
      }
      keys.length = at; // a multikey document: its tuples come from keys() below
      for (const key of this.keys(doc)) {
        for (const v of key) keys.push(v);
        owners.push(n);
      }
    }
    this.entries.readKeysWith(this.#keyReader(), false);
    const shared = ranks && !this.multikey ? { names: this.#rankNames(), ranks } : undefined;
    this.entries.load(keys, owners, shared, this.#lastKeyIsId());
  }

  /** The names the key fields' ranks go by: they depend on the values and the comparator, the field's path and the collation. */
  #rankNames(): string[] {
    const collation = JSON.stringify(this.spec.collation ?? null);
    return this.fields.map((field) => `${field}\0${collation}`);
  }

  /** Whether the last key field is `_id` ascending in binary order (see sortedEntries). */
  #lastKeyIsId(): boolean {
    return this.fields[this.fields.length - 1] === "_id" && this.spec.key._id === 1 && this.collation === undefined;
  }

  /**
   * Builds the entries from the documents numbered `docs` (in `_id` order) taken in a saved
   * order: entry k is `docs[positions[k]]`, then, when the journal wrote since (`since`), drops the entries of
   * the versions it replaced and merges in those of the versions it wrote. The order is checked
   * as it is read, and the index is left as it was (false) unless it is exactly the one a
   * sorted build would make: a permutation of the documents, none of them multikey, keys never
   * decreasing in index order and equal keys in `_id` order (and no written version multikey
   * either). A check per entry is far cheaper than the sort it replaces.
   */
  buildInOrder(docs: readonly number[], positions: Int32Array, since?: WrittenSince): boolean {
    const { fields, entries } = this;
    if (positions.length !== docs.length || !this.#flat) return false;
    if (this.collation === undefined) {
      return since === undefined ? this.#loadUnchecked(docs, positions) : this.#mergeUnchecked(docs, positions, since);
    }
    const w = fields.length;
    const keys: unknown[] = new Array(docs.length * w);
    const owners: number[] = new Array(docs.length);
    const seen = new Uint8Array(docs.length);
    for (let k = 0; k < positions.length; k++) {
      const at = positions[k];
      if (!(at >= 0 && at < docs.length) || seen[at] === 1) return false;
      seen[at] = 1;
      const n = docs[at];
      if (!this.#pushKeys(this.#table.fields(n, this.topFields), keys, k * w)) return false;
      owners[k] = n;
      if (k > 0 && !this.#inOrder(keys, k, positions[k - 1] < at)) return false;
    }
    entries.readKeysWith(this.#reader, false);
    if (since === undefined) entries.loadInOrder(keys, owners);
    else if (!this.#mergeWritten(keys, owners, positions, since)) return false;
    indexStats.fromSavedOrder++;
    this.multikey = false;
    return true;
  }

  /**
   * Loads a saved order of an index in binary order without reading a key: checking it would
   * decode every entry's keys (seconds at a million documents), so only the positions are
   * checked now and the keys later, a slice at a time, by {@link checkSavedOrder}. (An order
   * under a collation is checked at once: its strings' order comes from the runtime's ICU,
   * which may differ from the one that saved it.)
   */
  #loadUnchecked(docs: readonly number[], positions: Int32Array): boolean {
    const seen = new Uint8Array(docs.length);
    for (let k = 0; k < positions.length; k++) {
      const at = positions[k];
      if (!(at >= 0 && at < docs.length) || seen[at] === 1) return false;
      seen[at] = 1;
    }
    this.entries.readKeysWith(this.#reader, false);
    // Straight into the blocks: a list of a million entries' documents on the way was garbage
    // the process still held when it began to serve.
    this.entries.loadInOrder([], docs, positions);
    indexStats.fromSavedOrder++;
    this.multikey = false;
    this.#unchecked = new OrderCheck(this.entries, this.#table);
    return true;
  }

  /**
   * {@link #loadUnchecked} for an order the journal wrote to since: the saved entries less
   * those of the versions it replaced, with the entries of the versions it wrote (their keys
   * read now; false, loading nothing, when one is multikey) merged in by galloping, so that
   * only about k log(n/k) saved keys are read. Checked after start-up as the others.
   */
  #mergeUnchecked(
    docs: readonly number[],
    positions: Int32Array,
    { replacedAt, written, writtenFields, ranks }: WrittenSince,
  ): boolean {
    const seen = new Uint8Array(docs.length);
    const kept = new Int32Array(docs.length);
    let count = 0;
    for (let k = 0; k < positions.length; k++) {
      const at = positions[k];
      if (!(at >= 0 && at < docs.length) || seen[at] === 1) return false;
      seen[at] = 1;
      if (replacedAt[at] !== 1) kept[count++] = docs[at];
    }
    const w = this.fields.length;
    const extraKeys: unknown[] = new Array(written.length * w);
    for (let i = 0; i < written.length; i++) {
      if (!this.#pushKeys(writtenFields[i], extraKeys, i * w)) return false;
    }
    this.entries.readKeysWith(this.#reader, false);
    const stored = new StoredKeyComparer(this.fields, this.#dirs, this.#table);
    const shared = { names: this.#rankNames(), ranks };
    this.entries.loadGallopMerged(kept.subarray(0, count), extraKeys, written, {
      stored,
      shared,
      lastKeyIsId: this.#lastKeyIsId(),
    });
    indexStats.fromSavedOrder++;
    this.multikey = false;
    this.#unchecked = new OrderCheck(this.entries, this.#table);
    return true;
  }

  /** Whether {@link checkSavedOrder} has entries left to check. */
  get orderUnchecked(): boolean {
    return this.#unchecked !== undefined;
  }

  /**
   * Checks up to `budget` more entries of an order loaded unchecked (see {@link OrderCheck}):
   * "wrong" when it is out of place (the caller sorts the index again), "done" once every entry
   * checked out, "more" otherwise.
   */
  checkSavedOrder(budget: number): OrderCheckResult {
    const result = this.#unchecked?.step(budget) ?? "done";
    if (result === "done") this.#unchecked = undefined;
    return result;
  }

  /** Writes `doc`'s key tuple at `keys[at..]`; false when an indexed field holds an array (see pushFlatKey). */
  #pushKeys(doc: Document, keys: unknown[], at: number): boolean {
    return pushFlatKey(doc, this.fields, keys, at, this.#ownOnly);
  }

  /**
   * Loads the saved entries (in order) less those of replaced versions, merged with the
   * entries of the written ones; false, loading nothing, when a written version is multikey.
   */
  #mergeWritten(
    keys: unknown[],
    owners: number[],
    positions: Int32Array,
    { replacedAt, written }: WrittenSince,
  ): boolean {
    const w = this.fields.length;
    const extraKeys: unknown[] = new Array(written.length * w);
    for (let i = 0; i < written.length; i++) {
      if (!this.#pushKeys(this.#table.fields(written[i], this.topFields), extraKeys, i * w)) return false;
    }
    let kept = 0;
    for (let k = 0; k < owners.length; k++) {
      if (replacedAt[positions[k]] === 1) continue;
      for (let f = 0; f < w; f++) keys[kept * w + f] = keys[k * w + f];
      owners[kept++] = owners[k];
    }
    keys.length = kept * w;
    owners.length = kept;
    this.entries.loadMerged(keys, owners, extraKeys, written);
    return true;
  }

  /** Whether entry k-1 sorts before entry k, by their keys, then by `_id` (`idsAscending`). */
  #inOrder(keys: readonly unknown[], k: number, idsAscending: boolean): boolean {
    const { entries } = this;
    const w = this.fields.length;
    for (let f = 0; f < w; f++) {
      const c = entries.compareKey(keys[(k - 1) * w + f], keys[k * w + f]) * entries.dirs[f];
      if (c !== 0) return c < 0;
    }
    return idsAscending;
  }

  /**
   * Each entry's document as its position in the `_id` order (`positionOf[n]` for document
   * number n, -1 for none; `count` documents), in index order: what {@link buildInOrder} takes
   * back. Undefined when the index is multikey or an entry's document is not there.
   */
  savedOrder(positionOf: Int32Array, count: number): Int32Array | undefined {
    if (this.multikey || !this.#flat || this.entries.size !== count) return undefined;
    const positions = new Int32Array(this.entries.size);
    let k = 0;
    for (const n of this.entries.owners()) {
      const at = n < positionOf.length ? positionOf[n] : -1;
      if (at < 0) return undefined;
      positions[k++] = at;
    }
    return positions;
  }

  /**
   * The first key tuple of `doc` already held by another document (`selfId` is the `_id` key of
   * `doc`'s own stored version), or undefined. Numbers of any width are equal by value, and a
   * missing field equals null, as in MongoDB's unique indexes.
   */
  conflict(doc: Document, selfId: ValueKey): unknown[] | undefined {
    const { entries, covers } = this;
    if (covers !== undefined && !covers(doc)) return undefined;
    for (const key of this.keys(doc)) {
      let pos = entries.seek((keys, base) => {
        for (let f = 0; f < key.length; f++) {
          const c = entries.compareKey(keys[base + f], key[f]);
          if (c !== 0) return c * entries.dirs[f];
        }
        return 0;
      });
      for (; entries.valid(pos) && sameKey(entries, pos, key); pos = entries.next(pos)) {
        if (keyOf(entries.idAt(pos)) !== selfId && (covers === undefined || covers(entries.docAt(pos)))) return key;
      }
    }
    return undefined;
  }

  /** The `{ field: value }` document MongoDB reports as keyValue for a duplicate key tuple. */
  keyValue(key: readonly unknown[]): Document {
    return keyValueOf(key, this.fields);
  }
}

function sameKey(entries: SortedBlocks, pos: { block: number; offset: number }, key: readonly unknown[]): boolean {
  for (let f = 0; f < key.length; f++) if (entries.compareKey(entries.keyAt(pos, f), key[f]) !== 0) return false;
  return true;
}
