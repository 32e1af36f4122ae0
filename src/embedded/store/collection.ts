import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { OrderedDocs } from "./ordered.ts";
import { UniqueIndex, type DuplicateKey } from "./unique.ts";
import { keyOf } from "./values.ts";

/** The index every collection has. */
export const ID_INDEX: IndexSpec = { name: "_id_", key: { _id: 1 } };

/**
 * One collection: its documents in `_id` order plus its indexes. Only unique indexes get a
 * lookup structure (they must be checked on every write anyway); other indexes are metadata.
 */
export class Collection {
  /** Documents by `_id`. */
  readonly docs = new OrderedDocs();
  /** Secondary indexes by name (the `_id` index is implicit). */
  readonly indexes = new Map<string, IndexSpec>();
  readonly #unique = new Map<string, UniqueIndex>();

  /** Creates an empty collection `db.name`. */
  constructor(
    readonly db: string,
    readonly name: string,
  ) {}

  /** Every index spec including `_id_`, in creation order. */
  allIndexes(): IndexSpec[] {
    return [ID_INDEX, ...this.indexes.values()];
  }

  /** The unique indexes, for query planning. */
  uniqueIndexes(): Iterable<UniqueIndex> {
    return this.#unique.values();
  }

  /**
   * The duplicate `doc` would create, or undefined. `doc` may replace the stored document with
   * the same `_id`; a different stored document with the same `_id` cannot exist by design.
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

  /** Stores a document (insert or replace), maintaining the unique indexes. Checks nothing. */
  put(doc: Document): Document | undefined {
    const old = this.docs.put(doc);
    if (this.#unique.size === 0) return old;
    for (const index of this.#unique.values()) {
      if (old) index.remove(old);
      index.add(doc);
    }
    return old;
  }

  /** Removes a document by `_id`; returns it. */
  delete(id: unknown): Document | undefined {
    const old = this.docs.delete(id);
    if (old) for (const index of this.#unique.values()) index.remove(old);
    return old;
  }

  /**
   * Adds an index. A unique one is built over the existing documents; the returned duplicate
   * (if any) means it was not added.
   */
  addIndex(spec: IndexSpec, lenient = false): DuplicateKey | undefined {
    if (!spec.unique) {
      this.indexes.set(spec.name, spec);
      return undefined;
    }
    const index = new UniqueIndex(spec);
    for (const doc of this.docs.iterate()) {
      const self = keyOf(doc._id);
      if (!lenient && index.conflict(doc, self) !== undefined) return { index: spec, keyValue: index.keyValue(doc) };
      index.add(doc);
    }
    this.indexes.set(spec.name, spec);
    this.#unique.set(spec.name, index);
    return undefined;
  }

  /** Drops an index by name; returns false when there is none. */
  dropIndex(name: string): boolean {
    this.#unique.delete(name);
    return this.indexes.delete(name);
  }

  /** Rebuilds the unique structures from the documents (after recovery replayed them loosely). */
  rebuildIndexes(): void {
    for (const index of this.#unique.values()) {
      index.clear();
      for (const doc of this.docs.iterate()) index.add(doc);
    }
  }
}
