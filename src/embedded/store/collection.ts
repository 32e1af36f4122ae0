import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { MultiIndex, type KeyedIndex } from "./keyed-index.ts";
import { OrderedDocs } from "./ordered.ts";
import { UniqueIndex, type DuplicateKey } from "./unique.ts";
import { keyOf } from "./values.ts";

/** The index every collection has. */
export const ID_INDEX: IndexSpec = { name: "_id_", key: { _id: 1 } };

/**
 * One collection: its documents in `_id` order plus its secondary indexes, each kept as a map
 * from index key to documents so equality and `$in` filters on indexed fields need no scan.
 */
export class Collection {
  /** Documents by `_id`. */
  readonly docs = new OrderedDocs();
  /** Secondary index specs by name (the `_id` index is implicit). */
  readonly indexes = new Map<string, IndexSpec>();
  readonly #lookups = new Map<string, KeyedIndex>();
  readonly #unique = new Map<string, UniqueIndex>();
  /** The lookup structures in planning order: unique ones first, as they narrow best. */
  #planOrder: KeyedIndex[] = [];

  /** Creates an empty collection `db.name`. */
  constructor(
    readonly db: string,
    readonly name: string,
  ) {}

  /** Every index spec including `_id_`, in creation order. */
  allIndexes(): IndexSpec[] {
    return [ID_INDEX, ...this.indexes.values()];
  }

  /** The secondary indexes, unique ones first, for query planning. */
  lookupIndexes(): readonly KeyedIndex[] {
    return this.#planOrder;
  }

  #reorder(): void {
    const all = [...this.#lookups.values()];
    this.#planOrder = [...all.filter((i) => i instanceof UniqueIndex), ...all.filter((i) => !(i instanceof UniqueIndex))];
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
    for (const index of this.#unique.values()) {
      if (index.conflict(doc, self) !== undefined) return { index: index.spec, keyValue: index.keyValue(doc) };
    }
    return undefined;
  }

  /** Stores a document (insert or replace), maintaining the indexes. Checks nothing. */
  put(doc: Document): Document | undefined {
    const old = this.docs.put(doc);
    for (const index of this.#lookups.values()) {
      if (old) index.replace(old, doc);
      else index.add(doc);
    }
    return old;
  }

  /** Removes a document by `_id`; returns it. */
  delete(id: unknown): Document | undefined {
    const old = this.docs.delete(id);
    if (old) for (const index of this.#lookups.values()) index.remove(old);
    return old;
  }

  /**
   * Adds an index, built over the existing documents. For a unique one the returned duplicate
   * (if any) means it was not added; `lenient` (recovery) skips that check.
   */
  addIndex(spec: IndexSpec, lenient = false): DuplicateKey | undefined {
    const unique = spec.unique ? new UniqueIndex(spec) : undefined;
    const index = unique ?? new MultiIndex(spec);
    for (const doc of this.docs.iterate()) {
      if (unique && !lenient && unique.conflict(doc, keyOf(doc._id)) !== undefined) {
        return { index: spec, keyValue: unique.keyValue(doc) };
      }
      index.add(doc);
    }
    this.indexes.set(spec.name, spec);
    this.#lookups.set(spec.name, index);
    if (unique) this.#unique.set(spec.name, unique);
    this.#reorder();
    return undefined;
  }

  /** Drops an index by name; returns false when there is none. */
  dropIndex(name: string): boolean {
    this.#unique.delete(name);
    this.#lookups.delete(name);
    this.#reorder();
    return this.indexes.delete(name);
  }

  /** Rebuilds the index structures from the documents (after recovery replayed them loosely). */
  rebuildIndexes(): void {
    for (const index of this.#lookups.values()) {
      index.clear();
      for (const doc of this.docs.iterate()) index.add(doc);
    }
  }
}
