import { clearTimeout, setTimeout } from "node:timers";
import type { Document } from "bson";
import type { Catalog } from "./store/catalog.ts";
import type { Collection } from "./store/collection.ts";
import { WriteSet } from "./store/write-set.ts";
import { collect, runRead } from "./query/plan.ts";
import type { EngineState } from "./commands/context.ts";

/**
 * MongoDB's TTL monitor: a background pass, every 60 seconds by default, that deletes from each
 * collection with a TTL index (one with `expireAfterSeconds`) the documents whose indexed field
 * holds a date (the earliest, for an array of them) more than `expireAfterSeconds` in the past
 * (and, for a partial index, that its filter matches).
 * Documents whose field is missing or not a date stay. The deletes are an ordinary write: read
 * through the index (a `$lt` on a date only reaches dates), journaled, undone if the journal
 * refuses them, and counted, so caches of the collection are invalidated.
 */

/** How the monitor runs. */
export interface TtlOptions {
  /** Time between passes, in ms (default 60,000, as MongoDB's `ttlMonitorSleepSecs`). */
  intervalMs?: number;
  /** The clock the expiry is measured against, in ms since the epoch (default `Date.now`). */
  now?: () => number;
  /** Called after each pass with how many documents it deleted (tests wait for a pass with it). */
  onPass?: (deleted: number) => void;
}

const DEFAULT_INTERVAL_MS = 60_000;
/**
 * Documents deleted per write: a pass after a long stop (or a lowered expiry) may find millions
 * expired, which are deleted a batch at a time, each journaled on its own, with the event loop
 * free between batches, rather than held in memory and written as one record.
 */
export const TTL_BATCH = 1000;

/** The TTL indexes of every collection, as (collection, field, seconds, the partial filter if any). */
function* ttlIndexes(catalog: Catalog) {
  for (const db of catalog.databases()) {
    for (const coll of catalog.collections(db)) {
      if (coll.options.viewOn !== undefined) continue;
      for (const spec of coll.indexes.values()) {
        if (spec.expireAfterSeconds === undefined) continue;
        const { expireAfterSeconds: seconds, partialFilterExpression: partial } = spec;
        yield { coll, field: Object.keys(spec.key)[0], seconds, partial };
      }
    }
  }
}

/** One pass: deletes every expired document as of `now`, {@link TTL_BATCH} at a time; resolves with how many. */
export async function expireDocuments(engine: EngineState, now: number): Promise<number> {
  const { catalog } = engine;
  let deleted = 0;
  for (const { coll, field, seconds, partial } of [...ttlIndexes(catalog)]) {
    const expired = { [field]: { $lt: new Date(now - seconds * 1000) } };
    // A partial TTL index expires only the documents its filter covers, as MongoDB's does.
    const filter = partial === undefined ? expired : { $and: [expired, partial] };
    for (;;) {
      // Looked up again each batch: the last one's commit let other commands run, which may have dropped it.
      if (catalog.get(coll.db, coll.name) !== coll) break;
      // Untracked: MongoDB's index usage counts the clients' operations, not the TTL monitor's.
      const expired = collect(runRead(coll, { filter, limit: TTL_BATCH, collation: coll.collation, untracked: true }));
      if (expired.length > 0) await deleteBatch(engine, coll, expired);
      deleted += expired.length;
      if (expired.length < TTL_BATCH) break;
    }
  }
  return deleted;
}

/** Deletes documents as one journaled write, undone if the journal refuses it, and counts it. */
async function deleteBatch(engine: EngineState, coll: Collection, docs: readonly Document[]): Promise<void> {
  const { catalog, ledger, sink } = engine;
  const writes = new WriteSet(catalog, sink.mayFail === false ? undefined : ledger);
  for (const doc of docs) writes.delete(coll, doc._id);
  try {
    await sink.append(writes.changes);
  } catch (error) {
    writes.rollBack();
    throw error;
  }
  writes.settle();
  engine.writes.count(coll.db, coll.name);
}

/** Starts the monitor; returns a function that stops it (and waits for a pass under way). */
export function startTtlMonitor(engine: EngineState, options: TtlOptions = {}): () => Promise<void> {
  const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const now = options.now ?? Date.now;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const pass = async () => {
    try {
      // Awaited on its own line: `onPass?.(await …)` skips its argument, the whole pass, without the hook.
      const deleted = await expireDocuments(engine, now());
      options.onPass?.(deleted);
    } catch (error) {
      // A pass that fails (a full disk) deletes nothing and is tried again at the next one.
      console.warn(`mongorest embedded engine: the TTL pass failed: ${String(error)}`);
    }
    if (!stopped) schedule();
  };
  const schedule = () => {
    // Unref'd, so an idle engine does not keep the process alive.
    timer = setTimeout(() => (running = pass()), interval).unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
