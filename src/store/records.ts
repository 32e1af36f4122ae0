import { allOf } from "../plan/conditions.ts";
import type { Collection, Db, Document, Sort } from "mongodb";
import { type CountBounds, RecordCounter } from "./counts.ts";
import { nextId } from "./ids.ts";

/** One page of a list query, already planned. */
export interface PageQuery {
  filter: Document;
  sort: Sort;
  skip: number;
  limit: number;
  projection?: Document;
}

/** A stored document with its integer `_id`. */
export type StoredDocument = Document & { _id: number };

/**
 * Data access for one model. It knows collections, ids and timestamps, and nothing of HTTP:
 * handlers turn its results into responses.
 */
export class RecordStore {
  readonly collection: Collection<StoredDocument>;
  /** The list's totals, by count strategy, kept until the collection is next written. */
  readonly counter: RecordCounter;
  /** Where record timestamps come from. */
  readonly clock: () => Date;
  /** `maxTimeMS` of every command this store sends: the server stops a command that runs longer (code 50). */
  readonly timeMs: number;

  /**
   * `clock` stamps created_at, updated_at and deleted_at (tests inject one to order writes
   * without waiting); `changeCount`, the embedded engine's write counter of this collection,
   * lets counts be reused until the collection is next written; `timeMs` is the time limit of
   * each of its commands.
   */
  constructor(
    private readonly db: Db,
    collectionName: string,
    options: { bounds: CountBounds; timeMs: number; clock?: () => Date; changeCount?: () => number },
  ) {
    this.collection = db.collection<StoredDocument>(collectionName);
    this.clock = options.clock ?? (() => new Date());
    this.timeMs = options.timeMs;
    this.counter = new RecordCounter(
      this.collection as unknown as Collection<Document>,
      options.bounds,
      options.timeMs,
      options.changeCount,
    );
  }

  /** The documents of one page, in one batch. */
  async find(query: PageQuery): Promise<StoredDocument[]> {
    const { filter, sort, skip, limit, projection } = query;
    // batchSize = limit: the whole page in the first batch, never a getMore round trip (default is 101).
    const maxTimeMS = this.timeMs;
    return (await this.collection.find(filter, { sort, skip, limit, projection, batchSize: limit, maxTimeMS })
      .toArray()) as StoredDocument[];
  }

  /** Whether any record matches `filter` (reads at most one id). */
  async exists(filter: Document): Promise<boolean> {
    const options = { projection: { _id: 1 }, limit: 1, batchSize: 1, maxTimeMS: this.timeMs };
    return (await this.collection.find(filter, options).toArray()).length > 0;
  }

  /** One record by id within an optional extra filter (soft delete, hooks), or null. */
  async findById(id: number, filter: Document = {}, projection?: Document): Promise<StoredDocument | null> {
    const options = { projection, maxTimeMS: this.timeMs };
    // allOf ANDs the two when `filter` names `_id` itself (an access rule's), never overwriting it.
    return (await this.collection.findOne(allOf([filter, { _id: id }]), options)) as StoredDocument | null;
  }

  /** Stores a new record with the next id and both timestamps; returns what was stored. */
  async insert(data: Document): Promise<StoredDocument> {
    const now = this.clock();
    const doc: StoredDocument = {
      _id: await nextId(this.db, this.collection.collectionName, this.timeMs),
      ...data,
      created_at: now,
      updated_at: now,
      _rev: 1,
    };
    await this.collection.insertOne(doc, { maxTimeMS: this.timeMs });
    return doc;
  }

  /**
   * Applies `set`/`unset` to a record and returns the new version, or null if no record
   * matched `guard` (gone, or changed since it was read).
   */
  async update(guard: Document, set: Document, unset: readonly string[] = []): Promise<StoredDocument | null> {
    // _rev counts writes so If-Match can pin the exact version a client saw.
    const update: Document = { $set: { ...set, updated_at: this.clock() }, $inc: { _rev: 1 } };
    if (unset.length > 0) update.$unset = Object.fromEntries(unset.map((field) => [field, ""]));
    const options = { returnDocument: "after" as const, maxTimeMS: this.timeMs };
    return (await this.collection.findOneAndUpdate(guard, update, options)) as
      | StoredDocument
      | null;
  }

  /** Removes a record for good; true when one was removed. */
  async remove(guard: Document): Promise<boolean> {
    return (await this.collection.deleteOne(guard, { maxTimeMS: this.timeMs })).deletedCount === 1;
  }

  /**
   * {@link update} for every record matching `filter` in one command, with the same bookkeeping
   * (`updated_at`, `_rev`), so their ETags and the response cache move as after any write.
   * Returns how many records changed.
   */
  async updateMany(filter: Document, set: Document, unset: readonly string[] = []): Promise<number> {
    const update: Document = { $set: { ...set, updated_at: this.clock() }, $inc: { _rev: 1 } };
    if (unset.length > 0) update.$unset = Object.fromEntries(unset.map((field) => [field, ""]));
    return (await this.collection.updateMany(filter, update, { maxTimeMS: this.timeMs })).modifiedCount;
  }

  /** Removes every record matching `filter` for good, in one command; returns how many. */
  async removeMany(filter: Document): Promise<number> {
    return (await this.collection.deleteMany(filter, { maxTimeMS: this.timeMs })).deletedCount;
  }
}
