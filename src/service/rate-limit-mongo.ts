import type { Collection, Db } from "mongodb";
import { type RateLimitStore, type WindowCount, windowOf } from "./rate-limit-store.ts";

interface WindowDocument {
  _id: string;
  count: number;
  expiresAt: Date;
}

/** MongoDB's duplicate-key code: two first hits of a window raced to insert it. */
const DUPLICATE_KEY = 11000;

/**
 * Counters in a MongoDB collection, so several app instances on one cluster share one limit.
 * Each hit is one atomic upsert that `$inc`s the window's document (`_id` = key and window
 * start), through the driver; ended windows are deleted now and then, here rather than by a
 * TTL index, whose monitor runs only once a minute and would leave a busy store's ended
 * windows behind for that long.
 */
export class MongoRateLimitStore implements RateLimitStore {
  readonly #collection: Collection<WindowDocument>;
  /** `maxTimeMS` of its commands, as every command a request causes carries one. */
  readonly #timeMs: number;
  #nextCleanup = 0;

  constructor(db: Db, collectionName = "rate_limits", timeMs = 5_000) {
    this.#collection = db.collection<WindowDocument>(collectionName);
    this.#timeMs = timeMs;
  }

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const { start, resetAt } = windowOf(windowMs, now);
    if (now >= this.#nextCleanup) this.#cleanUp(now, windowMs);
    const _id = `${start}:${key}`;
    const update = { $inc: { count: 1 }, $setOnInsert: { expiresAt: new Date(resetAt) } };
    const options = { upsert: true, returnDocument: "after" as const, maxTimeMS: this.#timeMs };
    let counted: WindowDocument | null;
    try {
      counted = await this.#collection.findOneAndUpdate({ _id }, update, options);
    } catch (error) {
      if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      counted = await this.#collection.findOneAndUpdate({ _id }, update, options); // the window exists now
    }
    return { count: counted!.count, resetAt };
  }

  #cleanUp(now: number, windowMs: number): void {
    this.#nextCleanup = now + windowMs;
    // Best effort: a failed cleanup only leaves ended windows behind until the next one.
    this.#collection.deleteMany({ expiresAt: { $lte: new Date(now) } }, { maxTimeMS: this.#timeMs }).catch(() => {});
  }
}
