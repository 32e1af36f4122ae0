import type { Document } from "bson";
import type { Change, CollectionOptions, IndexSpec } from "../changes.ts";
import type { Catalog } from "./catalog.ts";
import type { Collection } from "./collection.ts";
import type { Ledger, Restore, Slot } from "./ledger.ts";
import type { DuplicateKey } from "./unique.ts";
import { keyOf } from "./values.ts";

/** A collection's database and name. */
export interface Namespace {
  db: string;
  name: string;
}

/** The ledger key of a collection's options (a symbol: no document key can collide with it). */
const OPTIONS_SLOT = Symbol("options");

/**
 * The changes one command makes. Each one is applied to the catalog at once (so a
 * read-modify-write stays synchronous), described as a {@link Change} for the sink, and
 * recorded in the ledger with what undoes it, so a failed append can be rolled back (without
 * a ledger, nothing is recorded: the sink cannot fail).
 */
export class WriteSet {
  /** What the sink must make durable, in order. */
  readonly changes: Change[] = [];
  readonly #slots: Slot[] = [];
  /** Collections whose slot this write already holds (skips re-recording it per document). */
  readonly #held = new Set<Collection>();

  /** Changes go to `catalog`; their undo records to `ledger`, if any. */
  constructor(
    private readonly catalog: Catalog,
    private readonly ledger: Ledger | undefined,
  ) {}

  /** The collection `db.name`, created if missing (with `options`: a default collation, a view, a validator). */
  ensure(db: string, name: string, options?: CollectionOptions): Collection {
    const existing = this.catalog.get(db, name);
    if (existing) return existing;
    this.#collectionSlot(db, name, undefined);
    this.changes.push(
      options ? { op: "createCollection", db, coll: name, options } : { op: "createCollection", db, coll: name },
    );
    const coll = this.catalog.create(db, name, options);
    this.#held.add(coll);
    return coll;
  }

  /** Stores a document (insert or replace). Checks nothing: callers did. */
  put(coll: Collection, doc: Document): void {
    this.#documentSlot(coll, doc._id);
    coll.put(doc);
    this.changes.push({ op: "put", db: coll.db, coll: coll.name, doc });
  }

  /** Removes the document with this `_id`. */
  delete(coll: Collection, id: unknown): void {
    this.#documentSlot(coll, id);
    coll.delete(id);
    this.changes.push({ op: "delete", db: coll.db, coll: coll.name, id });
  }

  /** Drops a collection; false when it did not exist. */
  dropCollection(db: string, name: string): boolean {
    const coll = this.catalog.get(db, name);
    if (!coll) return false;
    this.#collectionSlot(db, name, coll);
    this.catalog.drop(db, name);
    this.changes.push({ op: "dropCollection", db, coll: name });
    return true;
  }

  /**
   * Moves a collection to another namespace with its documents, indexes and options, dropping
   * the target first when `dropTarget` (callers checked both exist as they must).
   */
  renameCollection(from: Namespace, to: Namespace, dropTarget: boolean): void {
    const coll = this.catalog.get(from.db, from.name)!;
    if (dropTarget) this.dropCollection(to.db, to.name);
    this.#collectionSlot(from.db, from.name, coll);
    this.#collectionSlot(to.db, to.name, this.catalog.get(to.db, to.name));
    this.catalog.rename(from.db, from.name, to.db, to.name);
    this.changes.push({ op: "renameCollection", db: from.db, coll: from.name, toDb: to.db, toColl: to.name });
  }

  /** Drops a database; false when it did not exist. */
  dropDatabase(db: string): boolean {
    for (const coll of this.catalog.collections(db)) this.#collectionSlot(db, coll.name, coll);
    if (!this.catalog.dropDatabase(db)) return false;
    this.changes.push({ op: "dropDatabase", db });
    return true;
  }

  /** Adds an index; a unique one that the documents violate is not added (the duplicate is returned). */
  addIndex(coll: Collection, spec: IndexSpec): DuplicateKey | undefined {
    this.#indexSlot(coll, spec.name);
    const dup = coll.addIndex(spec);
    if (!dup) this.changes.push({ op: "createIndex", db: coll.db, coll: coll.name, spec });
    return dup;
  }

  /** Drops an index by name. */
  dropIndex(coll: Collection, name: string): void {
    this.#indexSlot(coll, name);
    coll.dropIndex(name);
    this.changes.push({ op: "dropIndex", db: coll.db, coll: coll.name, name });
  }

  /** Sets the expiry of a TTL index (or makes a single-field index one); the index must exist. */
  setIndexExpiry(coll: Collection, name: string, expireAfterSeconds: number): void {
    const previous = coll.indexes.get(name)!;
    if (this.ledger) {
      this.#holdCollection(coll);
      this.#record([coll.indexes, name], previous, (spec) => {
        if (!spec) coll.dropIndex(name);
        else if (!coll.replaceIndexSpec(spec as IndexSpec)) coll.addIndex(spec as IndexSpec, true);
      });
    }
    coll.replaceIndexSpec({ ...previous, expireAfterSeconds });
    this.changes.push({ op: "setIndexExpiry", db: coll.db, coll: coll.name, name, expireAfterSeconds });
  }

  /** Replaces a collection's options (view definition, validation settings). */
  setOptions(coll: Collection, options: CollectionOptions): void {
    if (this.ledger) {
      this.#holdCollection(coll);
      this.#record([coll, OPTIONS_SLOT], coll.options, (previous) => {
        coll.options = previous as CollectionOptions;
      });
    }
    coll.options = options;
    this.changes.push({ op: "setOptions", db: coll.db, coll: coll.name, options });
  }

  /** The changes are durable: forget how to undo them. */
  settle(): void {
    this.ledger?.settle(this, this.#slots);
  }

  /** The changes will never be durable: undo them in memory. */
  rollBack(): void {
    this.ledger?.rollBack(this, this.#slots);
  }

  #record(slot: Slot, previous: unknown, restore: Restore): void {
    if (this.ledger?.record(this, slot, previous, restore)) this.#slots.push(slot);
  }

  #collectionSlot(db: string, name: string, previous: Collection | undefined): void {
    if (!this.ledger) return;
    const { catalog } = this;
    this.#record([catalog, JSON.stringify([db, name])], previous, (coll) => {
      if (coll) catalog.attach(db, name, coll as Collection);
      else catalog.drop(db, name);
    });
  }

  // A write into a collection also holds the collection itself, so undoing an older write
  // that created it cannot drop the collection while this write may still become durable.
  #holdCollection(coll: Collection): void {
    if (this.#held.has(coll)) return;
    this.#held.add(coll);
    this.#collectionSlot(coll.db, coll.name, coll);
  }

  #documentSlot(coll: Collection, id: unknown): void {
    if (!this.ledger) return;
    this.#holdCollection(coll);
    const key = keyOf(id);
    this.#record([coll, key], coll.docs.get(id), (doc) => {
      if (doc) coll.put(doc as Document);
      else coll.delete(id);
    });
  }

  #indexSlot(coll: Collection, name: string): void {
    if (!this.ledger) return;
    this.#holdCollection(coll);
    this.#record([coll.indexes, name], coll.indexes.get(name), (spec) => {
      if (!spec) coll.dropIndex(name);
      else if (!coll.indexes.has(name)) coll.addIndex(spec as IndexSpec, true);
    });
  }
}
