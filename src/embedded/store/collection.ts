import type { Document } from "bson";
import type { CollectionOptions, IndexSpec } from "../changes.ts";
import { type Collation, parseCollation } from "./collation.ts";
import { OrderedDocs } from "./ordered.ts";
import { OrderedIndex } from "./ordered-index.ts";
import type { Ranked } from "./rank-sort.ts";
import { SavedOrders } from "./saved-orders.ts";
import type { DuplicateKey } from "./unique.ts";
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

  /** Creates an empty collection `db.name` with its `create` options. */
  constructor(
    readonly db: string,
    readonly name: string,
    options: CollectionOptions = {},
  ) {
    this.options = options;
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
    if (isInsert && this.docs.get(doc._id) !== undefined) {
      return { index: ID_INDEX, keyValue: { _id: doc._id } };
    }
    const self = keyOf(doc._id);
    for (const index of this.#ordered.values()) {
      if (index.spec.unique && index.conflict(doc, self)) return { index: index.spec, keyValue: index.keyValue(doc) };
    }
    return undefined;
  }

  /** Stores a document (insert or replace), maintaining the indexes. Checks nothing. */
  put(doc: Document): Document | undefined {
    this.#savedOrders?.beforeWrite();
    const old = this.docs.put(doc);
    this.#writes++;
    if (this.#indexesDeferred) {
      this.#savedOrders?.wrote(doc, old);
      return old;
    }
    for (const index of this.#ordered.values()) {
      if (old) index.replace(old, doc);
      else index.add(doc);
    }
    return old;
  }

  /** Removes a document by `_id`; returns it. */
  delete(id: unknown): Document | undefined {
    if (this.#savedOrders !== undefined && this.docs.get(id) !== undefined) this.#savedOrders.beforeWrite();
    const old = this.docs.delete(id);
    if (old === undefined) return undefined;
    this.#writes++;
    if (this.#indexesDeferred) this.#savedOrders?.wrote(undefined, old);
    else for (const index of this.#ordered.values()) index.remove(old);
    return old;
  }

  /**
   * Adds an index, built over the existing documents with one sort. For a unique one the
   * returned duplicate (if any) means it was not added; `lenient` (recovery) skips that check.
   */
  addIndex(spec: IndexSpec, lenient = false): DuplicateKey | undefined {
    const index = new OrderedIndex(spec);
    if (!this.#indexesDeferred) index.build(this.docs.view());
    if (spec.unique && !lenient) {
      const dup = firstDuplicate(index);
      if (dup) return { index: spec, keyValue: index.keyValue(dup) };
    }
    this.indexes.set(spec.name, spec);
    this.#ordered.set(spec.name, index);
    return undefined;
  }

  /** Drops an index by name; returns false when there is none. */
  dropIndex(name: string): boolean {
    this.#ordered.delete(name);
    return this.indexes.delete(name);
  }

  /**
   * Stops maintaining the indexes on each write until {@link rebuildIndexes} (recovery only:
   * nothing may read the indexes meanwhile, and unique ones are not checked).
   */
  deferIndexes(): void {
    this.#indexesDeferred = true;
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
    const docs = this.docs.view();
    const since = saved?.since(docs);
    for (const [name, index] of this.#ordered) {
      const positions = saved?.get(name);
      if (positions === undefined || !index.buildInOrder(saved!.docs, positions, since)) index.build(docs, ranks);
    }
  }

  /**
   * Keeps part of a snapshot's saved order of index `name` (its entries `from`.. of `count`)
   * for {@link rebuildIndexes}; recovery only.
   */
  keepSavedOrder(name: string, count: number, from: number, part: Int32Array): void {
    if (!this.#indexesDeferred) return;
    const saved = this.#savedOrders ??= new SavedOrders(this.docs.view());
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
   * Maps the documents to their positions once, transiently.
   */
  *savedOrders(): Generator<[string, Int32Array]> {
    if (this.#indexesDeferred || this.#ordered.size === 0) return;
    const positionOf = new Map<Document, number>();
    const docs = this.docs.view();
    for (let i = 0; i < docs.length; i++) positionOf.set(docs[i], i);
    for (const [name, index] of this.#ordered) {
      const positions = index.savedOrder(positionOf);
      if (positions !== undefined) yield [name, positions];
    }
  }
}

/** The second of two documents sharing a key in a freshly built index, if any. */
function firstDuplicate(index: OrderedIndex): Document | undefined {
  const { entries } = index;
  let prev = entries.seek(() => 0);
  if (!entries.valid(prev)) return undefined;
  for (let pos = entries.next(prev); entries.valid(pos); prev = pos, pos = entries.next(pos)) {
    if (keyOf(entries.docAt(pos)._id) === keyOf(entries.docAt(prev)._id)) continue;
    let same = true;
    for (let f = 0; same && f < index.fields.length; f++) {
      same = entries.compareKey(entries.keyAt(prev, f), entries.keyAt(pos, f)) === 0;
    }
    if (same) return entries.docAt(pos);
  }
  return undefined;
}
