import type { Change } from "../changes.ts";
import { Collection } from "./collection.ts";

/**
 * All databases and collections of the engine. Commands read and change it synchronously;
 * every change they make is also described as a {@link Change} for the sink, and
 * {@link Catalog.applyChange} replays those descriptions during recovery.
 */
export class Catalog {
  readonly #dbs = new Map<string, Map<string, Collection>>();

  /** The collection `db.name`, if it exists. */
  get(db: string, name: string): Collection | undefined {
    return this.#dbs.get(db)?.get(name);
  }

  /** The collection `db.name`, created (and the creation recorded in `changes`) if missing. */
  ensure(db: string, name: string, changes: Change[]): Collection {
    const existing = this.get(db, name);
    if (existing) return existing;
    changes.push({ op: "createCollection", db, coll: name });
    return this.#create(db, name);
  }

  #create(db: string, name: string): Collection {
    let colls = this.#dbs.get(db);
    if (!colls) this.#dbs.set(db, (colls = new Map()));
    const coll = new Collection(db, name);
    colls.set(name, coll);
    return coll;
  }

  /** Collections of a database, in creation order. */
  collections(db: string): Collection[] {
    return [...(this.#dbs.get(db)?.values() ?? [])];
  }

  /** Names of the databases that hold at least one collection. */
  databases(): string[] {
    return [...this.#dbs].filter(([, colls]) => colls.size > 0).map(([name]) => name);
  }

  /** Removes a collection; returns false when it did not exist. */
  drop(db: string, name: string): boolean {
    return this.#dbs.get(db)?.delete(name) ?? false;
  }

  /** Removes a database; returns false when it did not exist. */
  dropDatabase(db: string): boolean {
    return this.#dbs.delete(db);
  }

  /**
   * Replays one change (recovery). Idempotent: a put overwrites, deleting a missing document or
   * creating an existing collection does nothing. Unique indexes are maintained loosely here;
   * call {@link Catalog.finishRecovery} once all changes are in.
   */
  applyChange(change: Change): void {
    switch (change.op) {
      case "put":
        (this.get(change.db, change.coll) ?? this.#create(change.db, change.coll)).put(change.doc);
        return;
      case "delete":
        this.get(change.db, change.coll)?.delete(change.id);
        return;
      case "createCollection":
        if (!this.get(change.db, change.coll)) this.#create(change.db, change.coll);
        return;
      case "dropCollection":
        this.drop(change.db, change.coll);
        return;
      case "dropDatabase":
        this.dropDatabase(change.db);
        return;
      case "createIndex": {
        const coll = this.get(change.db, change.coll) ?? this.#create(change.db, change.coll);
        if (!coll.indexes.has(change.spec.name)) coll.addIndex(change.spec, true);
        return;
      }
      case "dropIndex":
        this.get(change.db, change.coll)?.dropIndex(change.name);
        return;
    }
  }

  /** Makes the unique indexes exact after a loose replay. */
  finishRecovery(): void {
    for (const colls of this.#dbs.values()) for (const coll of colls.values()) coll.rebuildIndexes();
  }

  /**
   * The whole state as changes (for snapshots). Lazy and safe to consume across event-loop
   * turns: document iteration re-seeks by `_id` after concurrent writes, so every document
   * that exists throughout is yielded; later writes are covered by the journal anyway.
   */
  *dump(): Generator<Change> {
    for (const [db, colls] of [...this.#dbs]) {
      for (const [name, coll] of [...colls]) {
        yield { op: "createCollection", db, coll: name };
        for (const spec of [...coll.indexes.values()]) yield { op: "createIndex", db, coll: name, spec };
        for (const doc of coll.docs.iterate()) yield { op: "put", db, coll: name, doc };
      }
    }
  }
}
