import { clearInterval, setInterval } from "node:timers";
import { type Document, Long } from "bson";
import { writeDocument } from "./bson.ts";
import { EncodedDocs } from "./encoded.ts";
import { CommandError } from "./errors.ts";
import type { Projector } from "./query/project.ts";

/** One batch of a cursor, already serialised, ready for the wire (see wire/cursor-reply.ts). */
export class Batch {
  /** `cursorId` 0 means the cursor is exhausted (or was single-batch) and was freed. */
  constructor(
    readonly ns: string,
    readonly cursorId: Long,
    readonly field: "firstBatch" | "nextBatch",
    readonly docs: Uint8Array[],
  ) {}
}

/** A cursor's state between getMore calls. */
export interface OpenCursor {
  /** Assigned only when the cursor outlives its first batch (most reads end there). */
  id: Long;
  readonly ns: string;
  lastUsed: number;
  /** Documents still to hand out, lazily produced. */
  readonly source: Iterator<Document>;
  readonly project: Projector;
  /** The source yields stored documents and `project` depends on them alone: use the cache. */
  readonly cached: boolean;
  /** Serialised documents that did not fit the previous batch's byte budget. */
  pending: Uint8Array[];
  /** A document pulled to find out whether the source was exhausted. */
  lookahead: Document | undefined;
  /** The key of the session that opened the cursor (see sessions.ts); getMore must run in it. */
  readonly session: string | undefined;
  /** Opened with `noCursorTimeout`: never idle-expires, but dies with its session. */
  readonly noTimeout: boolean;
  /**
   * The collection (namespace) whose query plan the cursor reads, for a find or an aggregate
   * (a view's: its base collection): dropping or renaming it kills the cursor. Other cursors
   * (`listIndexes`, `listCollections`) hold their answer and survive, as on MongoDB.
   */
  readonly reads: string | undefined;
  /** The secondary index the cursor's plan reads through, if any: dropping it kills the cursor. */
  readonly index: string | undefined;
  /**
   * Why the cursor's plan was killed (its collection dropped or renamed, its index dropped):
   * the next getMore fails with this message (175 QueryPlanKilled) and frees the cursor.
   */
  killed?: string;
}

/** How {@link CursorRegistry.first} produces a first batch and keeps the rest. */
export interface FirstBatchOptions {
  /** Shapes each document as the client asked (null: as stored). */
  project?: Projector;
  /** Documents in the first batch (undefined: no count bound). */
  batchSize?: number;
  /** Close the cursor after the first batch whatever remains. */
  single?: boolean;
  /** The source yields stored documents and `project` depends on them alone: use the cache. */
  cached?: boolean;
  /** The key of the session the cursor is opened in. */
  session?: string;
  /** The client asked for `noCursorTimeout`. */
  noTimeout?: boolean;
  /** The collection whose query plan the cursor reads (see {@link OpenCursor.reads}). */
  reads?: string;
  /** The secondary index the plan reads through (see {@link OpenCursor.index}). */
  index?: string;
}

/** What getMore checks of a cursor before reading it. */
export interface CursorOwner {
  readonly ns: string;
  readonly session: string | undefined;
}

/** Bytes of serialised documents kept for page reads (see {@link EncodedDocs}). */
const ENCODED_BUDGET = 8 * 1024 * 1024;

/** Default number of documents of a first batch, as in MongoDB. */
export const DEFAULT_FIRST_BATCH = 101;

/**
 * Open cursors by id. Cursors are pull-based over the lazy read, so an open cursor holds its
 * position, not its results. Idle cursors expire after `timeoutMs` (MongoDB: 10 minutes),
 * swept by an unref'd timer so an idle engine does not keep the process alive.
 */
export class CursorRegistry {
  readonly #open = new Map<string, OpenCursor>();
  readonly #encoded = new EncodedDocs(ENCODED_BUDGET);
  #nextId = BigInt(Date.now()) * 1000n;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** `now` is injectable so expiry can be tested without waiting. */
  constructor(
    readonly maxBatchBytes: number,
    readonly timeoutMs = 10 * 60_000,
    readonly now: () => number = Date.now,
  ) {}

  /** Number of open cursors. */
  get size(): number {
    return this.#open.size;
  }

  /** Starts the expiry sweep. */
  startSweeper(intervalMs = 60_000): void {
    this.#timer = setInterval(() => this.sweep(), intervalMs);
    this.#timer.unref();
  }

  /** Frees cursors idle for longer than the timeout (but `noCursorTimeout` ones); returns how many. */
  sweep(): number {
    const cutoff = this.now() - this.timeoutMs;
    let n = 0;
    for (const [key, cursor] of this.#open) {
      if (!cursor.noTimeout && cursor.lastUsed < cutoff) {
        this.#open.delete(key);
        n++;
      }
    }
    return n;
  }

  /**
   * Produces the first batch of a read; keeps a cursor open only if more documents remain.
   * `cached`: the source yields stored documents and `project` depends on them alone, so their
   * serialised form may be reused (page reads; see {@link EncodedDocs}).
   */
  first(ns: string, source: Iterator<Document>, options: FirstBatchOptions = {}): Batch {
    const cursor: OpenCursor = {
      id: Long.ZERO,
      ns,
      lastUsed: this.now(),
      source,
      project: options.project ?? null,
      cached: options.cached ?? false,
      pending: [],
      lookahead: undefined,
      session: options.session,
      noTimeout: options.noTimeout ?? false,
      reads: options.reads,
      index: options.index,
    };
    const { docs, more } = this.#fill(cursor, options.batchSize);
    if (!more || options.single) return new Batch(ns, Long.ZERO, "firstBatch", docs);
    cursor.id = Long.fromBigInt(++this.#nextId);
    this.#open.set(cursor.id.toString(), cursor);
    return new Batch(ns, cursor.id, "firstBatch", docs);
  }

  /** The namespace and session of an open cursor, for getMore to check; undefined when not open. */
  ownerOf(id: Long): CursorOwner | undefined {
    return this.#open.get(id.toString());
  }

  /** Frees the cursors opened in the given sessions (every session's, for "all"); returns how many. */
  killSessions(keys: ReadonlySet<string> | "all"): number {
    let n = 0;
    for (const [key, cursor] of this.#open) {
      if (cursor.session !== undefined && (keys === "all" || keys.has(cursor.session))) {
        this.#open.delete(key);
        n++;
      }
    }
    return n;
  }

  /**
   * Marks the cursors whose query plan reads `ns` as killed, as MongoDB kills a plan whose
   * collection was dropped or renamed (or, given `index`, whose index was dropped): they stay
   * open, so the next getMore passes the owner checks and then fails with `reason` (see
   * {@link more}). A cursor on a view is killed by its base collection's; one that reads no
   * plan (`listIndexes`) is kept. Returns how many were marked.
   */
  killPlans(ns: string, reason: string, index?: string): number {
    let n = 0;
    for (const cursor of this.#open.values()) {
      if (cursor.reads !== ns || cursor.killed !== undefined) continue;
      if (index !== undefined && cursor.index !== index) continue;
      cursor.killed = reason;
      n++;
    }
    return n;
  }

  /**
   * The next batch of an open cursor, or undefined when the id is unknown. A cursor whose plan
   * was killed is freed and fails with 175, as a getMore on MongoDB does.
   */
  more(id: Long, batchSize: number | undefined): Batch | undefined {
    const cursor = this.#open.get(id.toString());
    if (!cursor) return undefined;
    if (cursor.killed !== undefined) {
      this.#open.delete(id.toString());
      throw new CommandError("QueryPlanKilled", cursor.killed);
    }
    cursor.lastUsed = this.now();
    const { docs, more } = this.#fill(cursor, batchSize);
    if (!more) this.#open.delete(id.toString());
    return new Batch(cursor.ns, more ? cursor.id : Long.ZERO, "nextBatch", docs);
  }

  /** Frees a cursor; false when it was not open. */
  kill(id: Long): boolean {
    return this.#open.delete(id.toString());
  }

  /** Stops the sweeper and frees every cursor. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#open.clear();
    this.#encoded.clear();
  }

  #pull(cursor: OpenCursor): Document | undefined {
    if (cursor.lookahead !== undefined) {
      const doc = cursor.lookahead;
      cursor.lookahead = undefined;
      return doc;
    }
    const step = cursor.source.next();
    return step.done ? undefined : step.value;
  }

  /** Pulls, projects and serialises up to `n` more documents into `pending`. */
  #refill(cursor: OpenCursor, n: number): void {
    const raw: Document[] = [];
    while (raw.length < n) {
      const doc = this.#pull(cursor);
      if (doc === undefined) break;
      raw.push(doc);
    }
    if (cursor.cached) {
      cursor.pending = this.#encoded.encode(raw, cursor.project);
      return;
    }
    const projected = cursor.project && raw.length ? cursor.project(raw) : raw;
    cursor.pending = projected.map(writeDocument);
  }

  /**
   * Fills a batch of up to `batchSize` documents (undefined: no count bound) within the byte
   * budget, working in small chunks so a large result is never held whole.
   */
  #fill(cursor: OpenCursor, batchSize: number | undefined): { docs: Uint8Array[]; more: boolean } {
    if (batchSize === 0) return { docs: [], more: true };
    const want = batchSize ?? Number.MAX_SAFE_INTEGER;
    const docs: Uint8Array[] = [];
    let bytes = 0;
    while (docs.length < want) {
      if (cursor.pending.length === 0) this.#refill(cursor, Math.min(want - docs.length, 256));
      const next = cursor.pending[0];
      if (next === undefined) break;
      if (docs.length > 0 && bytes + next.length > this.maxBatchBytes) break;
      cursor.pending.shift();
      docs.push(next);
      bytes += next.length;
    }
    if (cursor.pending.length === 0 && cursor.lookahead === undefined) cursor.lookahead = this.#pull(cursor);
    return { docs, more: cursor.pending.length > 0 || cursor.lookahead !== undefined };
  }
}
