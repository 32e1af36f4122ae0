import type { Document } from "bson";
import type { CollectionOptions, IndexSpec } from "../changes.ts";
import { type Collation, parseCollation } from "./collation.ts";
import { OrderedDocs } from "./ordered.ts";
import { OrderedIndex } from "./ordered-index.ts";
import type { Ranked } from "./rank-sort.ts";
import { SavedOrders } from "./saved-orders.ts";
import type { DuplicateKey } from "./unique.ts";
import { CollectionUsage } from "./usage.ts";
import { keyOf } from "./values.ts";

/** The index every collection has. */
export const ID_INDEX: IndexSpec = { name: "_id_", key: { _id: 1 } };

/**
 * One collection: its documents in `_id` order plus its secondary indexes, each kept ordered
 * by its key (see {@link OrderedIndex}) so equality, `$in`, ranges, prefix regexes and sorts on
 * indexed fields need no scan of the collection.
 */
export class Collection {
  /** Documents by `_id`. */
  readonly docs = new OrderedDocs();
  /** Secondary index specs by name (the `_id` index is implicit). */
  readonly indexes = new Map<string, IndexSpec>();
  readonly #ordered = new Map<string, OrderedIndex>();
  #options: CollectionOptions = {};
  #collation: Collation | undefined;
  /**
   * True while recovery replays changes: writes skip index maintenance, which
   * {@link rebuildIndexes} then does once with one sort per index instead of a splice per
   * document and index (the difference between seconds and minutes at a million documents).
   */
  #indexesDeferred = false;
  /** Index orders a snapshot saved, while recovery has the indexes deferred. */
  #savedOrders: SavedOrders | undefined;
  /** Puts and deletes so far: a snapshot saves index orders only when none ran while it listed the documents. */
  #writes = 0;
  /** See {@link #indexedFields}. */
  #indexed: ReadonlySet<string> | undefined;
  /** How often each index served a query, and how often the collection was scanned. */
  readonly usage = new CollectionUsage();

  #db: string;
  #name: string;

  /** Creates an empty collection `db.name` with its `create` options. */
  constructor(db: string, name: string, options: CollectionOptions = {}) {
    this.#db = db;
    this.#name = name;
    this.options = options;
    this.usage.register(ID_INDEX.name);
  }

  /** Its database. */
  get db(): string {
    return this.#db;
  }

  /** Its name in the database. */
  get name(): string {
    return this.#name;
  }

  /** Takes the namespace the catalog now holds it at (a rename, or a rename undone). */
  moveTo(db: string, name: string): void {
    this.#db = db;
    this.#name = name;
  }

  /** Its default collation, a view's definition, its validation settings (see CollectionOptions). */
  get options(): CollectionOptions {
    return this.#options;
  }

  /** Replaces the options (create, collMod, recovery, an undone collMod). */
  set options(options: CollectionOptions) {
    // Parsed once here, not per operation: every read and write of the collection needs it.
    this.#collation = parseCollation(options.collation);
    this.#options = options;
  }

  /** The default collation of its reads, writes and new indexes (none: binary order). */
  get collation(): Collation | undefined {
    return this.#collation;
  }

  /** Every index spec including `_id_`, in creation order. */
  allIndexes(): IndexSpec[] {
    return [ID_INDEX, ...this.indexes.values()];
  }

  /** The secondary indexes, in creation order, for query planning. */
  orderedIndexes(): Iterable<OrderedIndex> {
    return this.#ordered.values();
  }

  /**
   * The duplicate `doc` would create, or undefined. `doc` may replace the stored document with
   * the same `_id` unless `isInsert`.
   */
  findDuplicate(doc: Document, isInsert: boolean): DuplicateKey | undefined {
    if (isInsert && this.docs.has(doc._id)) {
      return { index: ID_INDEX, keyValue: { _id: doc._id } };
    }
    const self = keyOf(doc._id);
    for (const index of this.#ordered.values()) {
      const key = index.spec.unique ? index.conflict(doc, self) : undefined;
      if (key !== undefined) return { index: index.spec, keyValue: index.keyValue(key) };
    }
    return undefined;
  }

  /**
   * Stores a document (insert or replace), maintaining the indexes. Checks nothing. The indexes
   * take their keys from the stored bytes, decoded, so they hold exactly what later reads see.
   */
  put(doc: Document): void {
    this.#store(this.docs.table.add(doc), doc._id);
  }

  /** Stores the BSON document at `bytes[start, start + length)` as {@link put} stores a document (recovery). */
  putEncoded(bytes: Uint8Array, start: number, length: number): void {
    this.#store(this.docs.table.addBytes(bytes, start, length));
  }

  /** Puts document number `n` (already in the table, `_id` `id`) in the `_id` order and the indexes. */
  #store(n: number, id?: unknown): void {
    this.#savedOrders?.beforeWrite();
    const { table } = this.docs;
    const old = this.docs.place(n, id);
    this.#writes++;
    if (this.#indexesDeferred) {
      this.#savedOrders?.wrote(n, old);
    } else if (this.#ordered.size > 0) {
      const fields = this.#indexedFields();
      const stored = table.fields(n, fields);
      const before = old < 0 ? undefined : table.fields(old, fields);
      for (const index of this.#ordered.values()) {
        if (before) index.replace(before, stored, n);
        else index.add(stored, n);
      }
      this.#rebuildStale();
    }
    if (old >= 0) table.free(old);
  }

  /** Indexes sorted again since {@link checkSavedOrders} last reported them. */
  #resorted: string[] = [];

  /** Builds again any index a write found out of order (see OrderedIndex.stale), before anything reads it. */
  #rebuildStale(): void {
    for (const [name, index] of this.#ordered) {
      if (!index.stale) continue;
      index.build(this.docs.numbers());
      this.#resorted.push(name);
    }
  }

  /** Removes a document by `_id`; false when there is none. */
  delete(id: unknown): boolean {
    if (this.#savedOrders !== undefined && this.docs.has(id)) this.#savedOrders.beforeWrite();
    const old = this.docs.unplace(id);
    if (old < 0) return false;
    this.#writes++;
    const { table } = this.docs;
    if (this.#indexesDeferred) {
      this.#savedOrders?.wrote(-1, old);
    } else if (this.#ordered.size > 0) {
      const before = table.fields(old, this.#indexedFields());
      for (const index of this.#ordered.values()) index.remove(before);
      this.#rebuildStale();
    }
    table.free(old);
    return true;
  }

  /** The top-level fields any index reads (see OrderedIndex.topFields), cached until the indexes change. */
  #indexedFields(): ReadonlySet<string> {
    if (this.#indexed === undefined) {
      const fields = new Set<string>();
      for (const index of this.#ordered.values()) for (const field of index.topFields) fields.add(field);
      this.#indexed = fields;
    }
    return this.#indexed;
  }

  /**
   * Adds an index, built over the existing documents with one sort. For a unique one the
   * returned duplicate (if any) means it was not added; `lenient` (recovery) skips that check.
   */
  addIndex(spec: IndexSpec, lenient = false): DuplicateKey | undefined {
    const index = new OrderedIndex(spec, this.docs.table);
    if (!this.#indexesDeferred) index.build(this.docs.numbers());
    if (spec.unique && !lenient) {
      const dup = firstDuplicate(index);
      if (dup) return { index: spec, keyValue: index.keyValue(dup) };
    }
    this.indexes.set(spec.name, spec);
    this.#ordered.set(spec.name, index);
    this.#indexed = undefined;
    this.usage.register(spec.name);
    return undefined;
  }

  /**
   * Replaces the spec of an existing index by one differing only in its options that do not
   * touch the entries (a TTL index's expiry); false when there is no such index.
   */
  replaceIndexSpec(spec: IndexSpec): boolean {
    if (!this.indexes.has(spec.name)) return false;
    this.indexes.set(spec.name, spec);
    return true;
  }

  /** Drops an index by name; returns false when there is none. */
  dropIndex(name: string): boolean {
    this.#ordered.delete(name);
    this.usage.forget(name);
    this.#indexed = undefined;
    return this.indexes.delete(name);
  }

  /**
   * Stops maintaining the indexes on each write until {@link rebuildIndexes} (recovery only:
   * nothing may read the indexes meanwhile, and unique ones are not checked).
   */
  deferIndexes(): void {
    this.#indexesDeferred = true;
    // Saved orders name documents by number and read the versions the journal replaced.
    this.docs.table.hold();
  }

  /**
   * Builds the index structures from the documents, after recovery replayed them loosely: from
   * the snapshot's saved order where one checks out, merged with what the journal wrote since,
   * else with one sort. Does nothing once they are built (recovery may build them before
   * replaying a journal, see Catalog).
   */
  rebuildIndexes(): void {
    if (!this.#indexesDeferred) return;
    this.#indexesDeferred = false;
    const saved = this.#savedOrders;
    this.#savedOrders = undefined;
    // Shared between the builds, so a field in several indexes is ranked once. The builds read
    // the `_id`-ordered array directly: nothing writes meanwhile, so no iterator is needed.
    const ranks = new Map<string, Ranked>();
    const docs = this.docs.numbers();
    const since = saved?.since(docs, (n) => this.docs.table.fields(n, this.#indexedFields()));
    for (const [name, index] of this.#ordered) {
      const positions = saved?.get(name);
      if (positions === undefined || !index.buildInOrder(saved!.docs, positions, since)) index.build(docs, ranks);
    }
    this.docs.table.release();
  }

  /**
   * Checks up to `budget` more entries of each index loaded from a saved order unchecked (see
   * OrderedIndex.checkSavedOrder), sorting again any index whose order proves wrong. Returns
   * whether entries remain to check, and the names of the indexes sorted again.
   */
  checkSavedOrders(budget: number): { more: boolean; resorted: string[] } {
    let more = false;
    const resorted = this.#resorted;
    this.#resorted = [];
    for (const [name, index] of this.#ordered) {
      if (!index.orderUnchecked) continue;
      const result = index.checkSavedOrder(budget);
      if (result === "more") more = true;
      if (result !== "wrong") continue;
      index.build(this.docs.numbers());
      resorted.push(name);
    }
    return { more, resorted };
  }

  /**
   * Keeps part of a snapshot's saved order of index `name` (its entries `from`.. of `count`)
   * for {@link rebuildIndexes}; recovery only.
   */
  keepSavedOrder(name: string, count: number, from: number, part: Int32Array): void {
    if (!this.#indexesDeferred) return;
    const saved = this.#savedOrders ??= new SavedOrders(
      this.docs.numbers(),
      (a, b) => this.docs.table.compareIds(a, b),
    );
    // An order read after a write would describe documents other than the ones kept.
    if (saved.unchanged) saved.add(name, count, from, part);
  }

  /** Puts and deletes so far (see {@link savedOrders}). */
  get writes(): number {
    return this.#writes;
  }

  /**
   * The order of each secondary index that is not multikey, by name, as positions of its
   * entries' documents in the `_id` order: what a snapshot saves for {@link keepSavedOrder}.
   * Maps the documents' numbers to their positions once, transiently.
   */
  *savedOrders(): Generator<[string, Int32Array]> {
    if (this.#indexesDeferred || this.#ordered.size === 0) return;
    const docs = this.docs.numbers();
    let highest = -1;
    for (const n of docs) if (n > highest) highest = n;
    const positionOf = new Int32Array(highest + 1).fill(-1);
    for (let i = 0; i < docs.length; i++) positionOf[docs[i]] = i;
    for (const [name, index] of this.#ordered) {
      const positions = index.savedOrder(positionOf, docs.length);
      if (positions !== undefined) yield [name, positions];
    }
  }
}

/** The first key tuple two covered documents share, read from the built index. */
function firstDuplicate(index: OrderedIndex): unknown[] | undefined {
  const { entries, covers } = index;
  let prev = entries.seek(() => 0);
  // A sparse or partial index's uniqueness is among the documents it covers only.
  while (entries.valid(prev) && covers !== undefined && !covers(entries.docAt(prev))) prev = entries.next(prev);
  if (!entries.valid(prev)) return undefined;
  for (let pos = entries.next(prev); entries.valid(pos); pos = entries.next(pos)) {
    if (covers !== undefined && !covers(entries.docAt(pos))) continue;
    const last = prev;
    prev = pos;
    if (keyOf(entries.idAt(pos)) === keyOf(entries.idAt(last))) continue;
    let same = true;
    for (let f = 0; same && f < index.fields.length; f++) {
      same = entries.compareKey(entries.keyAt(last, f), entries.keyAt(pos, f)) === 0;
    }
    if (same) return index.fields.map((_, f) => entries.keyAt(pos, f));
  }
  return undefined;
}
