import { Binary } from "bson";
import type { Change, CollectionOptions, EncodedPut, RecoveredChange } from "../changes.ts";
import { int32 } from "../decode.ts";
import { Collection } from "./collection.ts";
import type { OrderedDocs } from "./ordered.ts";

/**
 * All databases and collections of the engine. Commands read it and change it synchronously
 * through a WriteSet, which also describes every change as a {@link Change} for the sink;
 * {@link Catalog.applyChange} replays those descriptions during recovery.
 */
export class Catalog {
  readonly #dbs = new Map<string, Map<string, Collection>>();

  /** The collection `db.name`, if it exists. */
  get(db: string, name: string): Collection | undefined {
    return this.#dbs.get(db)?.get(name);
  }

  /** Creates an empty collection `db.name` (replacing any: callers check first). */
  create(db: string, name: string, options?: CollectionOptions): Collection {
    const coll = new Collection(db, name, options);
    this.attach(db, name, coll);
    return coll;
  }

  /** Puts a collection object at `db.name` (a dropped one coming back when its drop is undone, a renamed one). */
  attach(db: string, name: string, coll: Collection): void {
    let colls = this.#dbs.get(db);
    if (!colls) this.#dbs.set(db, colls = new Map());
    colls.set(name, coll);
    coll.moveTo(db, name);
  }

  /** Moves the collection `db.name` to `toDb.toName`, replacing any there; false when there is none to move. */
  rename(db: string, name: string, toDb: string, toName: string): boolean {
    const coll = this.get(db, name);
    if (!coll) return false;
    this.drop(db, name);
    this.attach(toDb, toName, coll);
    return true;
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
  applyChange(change: RecoveredChange): void {
    switch (change.op) {
      case "put":
        this.#replaying(change.db, change.coll).put(change.doc);
        return;
      case "putEncoded":
        this.#replaying(change.db, change.coll).putEncoded(change.bytes, change.start, change.length);
        return;
      case "delete":
        this.get(change.db, change.coll)?.delete(change.id);
        return;
      case "createCollection":
        if (!this.get(change.db, change.coll)) this.create(change.db, change.coll, change.options).deferIndexes();
        return;
      case "dropCollection":
        this.drop(change.db, change.coll);
        return;
      case "renameCollection":
        this.rename(change.db, change.coll, change.toDb, change.toColl);
        return;
      case "dropDatabase":
        this.dropDatabase(change.db);
        return;
      case "createIndex": {
        const coll = this.#replaying(change.db, change.coll);
        if (!coll.indexes.has(change.spec.name)) coll.addIndex(change.spec, true);
        return;
      }
      case "dropIndex":
        this.get(change.db, change.coll)?.dropIndex(change.name);
        return;
      case "setIndexExpiry": {
        const coll = this.get(change.db, change.coll);
        const spec = coll?.indexes.get(change.name);
        if (spec) coll!.replaceIndexSpec({ ...spec, expireAfterSeconds: change.expireAfterSeconds });
        return;
      }
      case "setOptions":
        (this.get(change.db, change.coll) ?? this.create(change.db, change.coll)).options = change.options;
        return;
      case "indexOrder": {
        const part = int32sOf(change.positions);
        const { count, from } = change;
        if (part === undefined || !Number.isSafeInteger(count) || !Number.isSafeInteger(from)) return;
        this.get(change.db, change.coll)?.keepSavedOrder(change.name, count, from, part);
        return;
      }
    }
  }

  /** The collection a replayed change goes to, created if needed, with its indexes deferred. */
  #replaying(db: string, name: string): Collection {
    let coll = this.get(db, name);
    if (!coll) (coll = this.create(db, name)).deferIndexes();
    return coll;
  }

  /**
   * Builds the indexes deferred during a replay, each from its saved order or with one sort.
   * Recovery may call it between the snapshot and the journal too: the journal's writes then
   * maintain the indexes one by one, and only collections the journal creates wait for the
   * final call.
   */
  finishRecovery(): void {
    for (const colls of this.#dbs.values()) for (const coll of colls.values()) coll.rebuildIndexes();
  }

  /**
   * Checks up to `budget` more entries of every index order recovery loaded unchecked (see
   * Collection.checkSavedOrders): whether any remain, and the indexes (`db.coll.name`) that
   * proved wrong and were sorted again.
   */
  checkSavedOrders(budget: number): { more: boolean; resorted: string[] } {
    let more = false;
    const resorted: string[] = [];
    for (const [db, colls] of this.#dbs) {
      for (const [name, coll] of colls) {
        const result = coll.checkSavedOrders(budget);
        more ||= result.more;
        for (const index of result.resorted) resorted.push(`${db}.${name}.${index}`);
      }
    }
    return { more, resorted };
  }

  /**
   * The whole state as changes (for snapshots). Lazy and safe to consume across event-loop
   * turns: document iteration re-seeks by `_id` after concurrent writes, so every document
   * that exists throughout is yielded; later writes are covered by the journal anyway. Each
   * collection's documents are followed by its index orders, unless a write ran while they
   * were listed (then the orders might not describe the documents listed, and recovery sorts),
   * in parts of `orderPart` entries.
   */
  dump(orderPart = ORDER_PART): Generator<Change> {
    return this.#dump(orderPart, false) as Generator<Change>;
  }

  /**
   * {@link dump} with each document's put left as the bytes it is stored as: what a snapshot
   * writes, copied without decoding and encoding a million documents again.
   */
  dumpEncoded(orderPart = ORDER_PART): Generator<RecoveredChange> {
    return this.#dump(orderPart, true);
  }

  *#dump(orderPart: number, encodedPuts: boolean): Generator<RecoveredChange> {
    // Every collection is taken with its name when the dump starts: one renamed meanwhile into a
    // database already dumped is still dumped, under the name the journal's rename moves it from.
    const entries = [...this.#dbs].flatMap(([db, colls]) => [...colls].map(([name, coll]) => ({ db, name, coll })));
    for (const { db, name, coll } of entries) {
      // One change carries all the options (collation, view, validator): setOptions is for collMod.
      const { options } = coll;
      yield Object.keys(options).length
        ? { op: "createCollection", db, coll: name, options }
        : { op: "createCollection", db, coll: name };
      for (const spec of [...coll.indexes.values()]) yield { op: "createIndex", db, coll: name, spec };
      const writes = coll.writes;
      if (encodedPuts) yield* encodedPutsOf(db, name, coll.docs);
      else for (const doc of coll.docs.iterate()) yield { op: "put", db, coll: name, doc };
      for (const [index, positions] of LITTLE_ENDIAN ? coll.savedOrders() : []) {
        if (coll.writes !== writes) break;
        for (let from = 0; from < positions.length; from += orderPart) {
          const part = positions.subarray(from, from + orderPart);
          yield {
            op: "indexOrder",
            db,
            coll: name,
            name: index,
            count: positions.length,
            from,
            positions: bytesOf(part),
          };
        }
      }
    }
  }
}

/** Entries of an index order per snapshot record: 4 MiB, well under BSON's 16 MiB per document. */
export const ORDER_PART = 1 << 20;

/** Whether this machine stores Int32s little-endian, the order saved index orders are written in. */
const LITTLE_ENDIAN = new Uint8Array(new Int32Array([1]).buffer)[0] === 1;

/** The puts of a collection's documents in `_id` order, as the bytes they are stored as (see Catalog.dumpEncoded). */
function* encodedPutsOf(db: string, coll: string, docs: OrderedDocs): Generator<EncodedPut> {
  const { table } = docs;
  for (const n of docs.numbersInOrder()) {
    const bytes = table.chunk(n);
    const start = table.start(n);
    yield { op: "putEncoded", db, coll, bytes, start, length: int32(bytes, start) };
  }
}

/** The Int32s' bytes (in the machine's order: orders are saved on little-endian machines only). */
function bytesOf(positions: Int32Array): Uint8Array {
  return new Uint8Array(positions.buffer, positions.byteOffset, positions.byteLength);
}

/**
 * The Int32s of a saved order as recovery decoded it (a BSON Binary, or bytes), copied into an
 * aligned array; undefined when it cannot be read as such here (then the index is sorted).
 */
function int32sOf(value: unknown): Int32Array | undefined {
  const bytes = value instanceof Uint8Array ? value : binaryBytes(value);
  if (!LITTLE_ENDIAN || bytes === undefined || bytes.byteLength % 4 !== 0) return undefined;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Int32Array(copy.buffer);
}

function binaryBytes(value: unknown): Uint8Array | undefined {
  return value instanceof Binary ? value.buffer.subarray(0, value.position) : undefined;
}
