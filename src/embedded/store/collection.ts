import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { OrderedDocs } from "./ordered.ts";
import { OrderedIndex } from "./ordered-index.ts";
import type { DuplicateKey } from "./unique.ts";
import { compareValues, keyOf } from "./values.ts";

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
  /** Recovery is replaying changes: indexes are registered but built once, at its end. */
  #deferred = false;

  /** Creates an empty collection `db.name`. */
  constructor(
    readonly db: string,
    readonly name: string,
  ) {}

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

  /**
   * From now until {@link rebuildIndexes}, writes leave the indexes alone and new indexes are
   * not built: a recovery replaying a million puts and every createIndexes ever journaled then
   * builds each index once, at the end, instead of once per createIndexes record and entry by entry.
   */
  deferIndexes(): void {
    this.#deferred = true;
  }

  /** Stores a document (insert or replace), maintaining the indexes. Checks nothing. */
  put(doc: Document): Document | undefined {
    const old = this.docs.put(doc);
    if (this.#deferred) return old;
    for (const index of this.#ordered.values()) {
      if (old) index.replace(old, doc);
      else index.add(doc);
    }
    return old;
  }

  /** Removes a document by `_id`; returns it. */
  delete(id: unknown): Document | undefined {
    const old = this.docs.delete(id);
    if (old && !this.#deferred) for (const index of this.#ordered.values()) index.remove(old);
    return old;
  }

  /**
   * Adds an index, built over the existing documents with one sort. For a unique one the
   * returned duplicate (if any) means it was not added; `lenient` (recovery) skips that check.
   */
  addIndex(spec: IndexSpec, lenient = false): DuplicateKey | undefined {
    const index = new OrderedIndex(spec);
    if (!this.#deferred) index.build(this.docs.iterate());
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

  /** Rebuilds the index structures from the documents (after recovery replayed them loosely), and stops deferring. */
  rebuildIndexes(): void {
    this.#deferred = false;
    for (const index of this.#ordered.values()) index.build(this.docs.iterate());
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
    for (let f = 0; same && f < index.fields.length; f++) same = compareValues(entries.keyAt(prev, f), entries.keyAt(pos, f)) === 0;
    if (same) return entries.docAt(pos);
  }
  return undefined;
}
