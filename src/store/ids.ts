import type { Db } from "mongodb";
import { duplicateKeyField } from "../errors.ts";

/** Collection holding one sequence per model collection. */
export const COUNTERS = "_counters";

interface Counter {
  _id: string;
  seq: number;
}

/**
 * Hands out the next integer id for a collection. The atomic `$inc` on one counter document
 * makes ids unique under concurrent inserts, and since the counter only grows, an id is never
 * reused, even after its record is deleted.
 */
export async function nextId(db: Db, collection: string, maxTimeMS: number): Promise<number> {
  const counters = db.collection<Counter>(COUNTERS);
  const update = { $inc: { seq: 1 } };
  const options = { upsert: true, returnDocument: "after" as const, maxTimeMS };
  try {
    return (await counters.findOneAndUpdate({ _id: collection }, update, options))!.seq;
  } catch (error) {
    // Two first-ever upserts can race on a real MongoDB; the loser retries as a plain update.
    if (duplicateKeyField(error) === null) throw error;
    return (await counters.findOneAndUpdate({ _id: collection }, update, options))!.seq;
  }
}

/**
 * Raises a counter to the largest id already stored, for collections filled outside the
 * framework (imports, restores). Runs once per model at start-up.
 */
export async function syncCounter(db: Db, collection: string): Promise<void> {
  const [last] = await db.collection(collection).find({}, { projection: { _id: 1 }, sort: { _id: -1 }, limit: 1 })
    .toArray();
  if (typeof last?._id !== "number") return;
  await db.collection<Counter>(COUNTERS).updateOne({ _id: collection }, { $max: { seq: last._id } }, { upsert: true });
}

/**
 * Reserves `count` consecutive ids at once (bulk loads, the seeder) and returns the first. One
 * atomic `$inc`, so ids handed out meanwhile by {@link nextId} never overlap the block.
 */
export async function reserveIds(db: Db, collection: string, count: number): Promise<number> {
  await syncCounter(db, collection);
  const after = await db.collection<Counter>(COUNTERS).findOneAndUpdate({ _id: collection }, { $inc: { seq: count } }, {
    upsert: true,
    returnDocument: "after",
  });
  return after!.seq - count + 1;
}
