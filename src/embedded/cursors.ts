import { clearInterval, setInterval } from "node:timers";
import { type Document, Long } from "bson";
import { writeDocument } from "./bson.ts";
import { EncodedDocs } from "./encoded.ts";
import { CommandError } from "./errors.ts";
import { nextTurn, type Operation, PAUSE, type Paused, runAs } from "./query/interrupts.ts";
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

/**
 * A read whose query plan a drop, a rename or an index drop kills: an open cursor, or a read
 * between two of its slices (query/interrupts.ts).
 */
export interface PlanReader {
  /**
   * The collection (namespace) whose query plan the read goes through, for a find or an
   * aggregate (a view's: its base collection): dropping or renaming it kills the read. Other
   * cursors (`listIndexes`, `listCollections`) hold their answer and survive, as on MongoDB.
   */
  readonly reads: string | undefined;
  /** The secondary index the read's plan goes through, if any: dropping it kills the read. */
  readonly index: string | undefined;
  /** The collections its joins read (`$lookup`, `$unionWith`): dropping or renaming one kills the read too. */
  readonly joins?: ReadonlySet<string>;
  /**
   * Why the read was killed (its collection dropped or renamed, its index dropped: 175
   * QueryPlanKilled; the cursor itself killed while a getMore filled it: 237 CursorKilled; the
   * engine closing): its next slice, or the next getMore, fails with this (and frees the cursor).
   */
  killed?: CommandError;
}

/** A cursor's state between getMore calls. */
export interface OpenCursor extends PlanReader {
  /** Assigned only when the cursor outlives its first batch (most reads end there). */
  id: Long;
  readonly ns: string;
  lastUsed: number;
  /** Documents still to hand out, lazily produced, with the pauses of a sliced read. */
  readonly source: Iterator<Paused<Document>>;
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
  /** What is left of the command's `maxTimeMS` for the next getMore (undefined: no limit). */
  leftover: number | undefined;
  /** A getMore is filling a batch across yields: another getMore is refused meanwhile (143 CursorInUse). */
  busy: boolean;
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
  /** The collections the read's joins read (see {@link PlanReader.joins}). */
  joins?: ReadonlySet<string>;
  /**
   * The command filling the batch: the deadline its pauses check, and the clock of its slices.
   * Without it, a pause neither yields nor expires.
   */
  operation?: Operation;
}

/** A batch being filled: what it holds so far, and the documents pulled for the next chunk to encode. */
interface BatchFill {
  readonly want: number;
  readonly docs: Uint8Array[];
  bytes: number;
  raw: Document[];
}

/** A filled batch's documents, and whether the cursor has more. */
interface Filled {
  docs: Uint8Array[];
  more: boolean;
}

/** What a pull answers when the read paused and its slice is over: the fill goes on after a turn. */
const YIELD = Symbol("yield");

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
  /** Reads between two slices that no open cursor holds yet: a first batch, a count, a distinct. */
  readonly #pinned = new Set<PlanReader>();
  readonly #encoded = new EncodedDocs(ENCODED_BUDGET);
  #nextId = BigInt(Date.now()) * 1000n;
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * `now` is injectable so expiry can be tested without waiting; `turn`, how a read lets other
   * commands run between two slices (one turn of the event loop), so a test can act in between.
   */
  constructor(
    readonly maxBatchBytes: number,
    readonly timeoutMs = 10 * 60_000,
    readonly now: () => number = Date.now,
    readonly turn: () => Promise<void> = nextTurn,
  ) {}

  /** Number of open cursors. */
  get size(): number {
    return this.#open.size;
  }

  /** Whether any read could be killed: an open cursor, or a read between two slices. */
  get reading(): boolean {
    return this.#open.size > 0 || this.#pinned.size > 0;
  }

  /** Starts the expiry sweep. */
  startSweeper(intervalMs = 60_000): void {
    this.#timer = setInterval(() => this.sweep(), intervalMs);
    this.#timer.unref();
  }

  /**
   * Frees cursors idle for longer than the timeout (but `noCursorTimeout` ones, and those a
   * getMore is filling); returns how many.
   */
  sweep(): number {
    const cutoff = this.now() - this.timeoutMs;
    let n = 0;
    for (const [key, cursor] of this.#open) {
      if (!cursor.noTimeout && !cursor.busy && cursor.lastUsed < cutoff) {
        this.#open.delete(key);
        n++;
      }
    }
    return n;
  }

  /**
   * Produces the first batch of a read; keeps a cursor open only if more documents remain.
   * `cached`: the source yields stored documents and `project` depends on them alone, so their
   * serialised form may be reused (page reads; see {@link EncodedDocs}). A sliced read's batch
   * may take several slices, and then comes as a promise (see {@link fillAcross}).
   */
  first(ns: string, source: Iterator<Document>, options?: FirstBatchOptions): Batch;
  first(ns: string, source: Iterator<Paused<Document>>, options?: FirstBatchOptions): Batch | Promise<Batch>;
  first(ns: string, source: Iterator<Paused<Document>>, options: FirstBatchOptions = {}): Batch | Promise<Batch> {
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
      joins: options.joins,
      leftover: undefined,
      busy: false,
    };
    const { operation } = options;
    const filled = this.#fill(cursor, options.batchSize, operation);
    if (!(filled instanceof Promise)) return this.#opened(cursor, filled, options.single, operation);
    return filled.then((done) => this.#opened(cursor, done, options.single, operation));
  }

  /** The first batch, filled: the cursor is kept open (with the time left of its command) when more remains. */
  #opened(cursor: OpenCursor, { docs, more }: Filled, single: boolean | undefined, operation?: Operation): Batch {
    if (!more || single) return new Batch(cursor.ns, Long.ZERO, "firstBatch", docs);
    cursor.id = Long.fromBigInt(++this.#nextId);
    cursor.leftover = operation?.remaining();
    this.#open.set(cursor.id.toString(), cursor);
    return new Batch(cursor.ns, cursor.id, "firstBatch", docs);
  }

  /** The namespace and session of an open cursor, for getMore to check; undefined when not open. */
  ownerOf(id: Long): CursorOwner | undefined {
    return this.#open.get(id.toString());
  }

  /**
   * Frees the cursors opened in the given sessions (every session's, for "all"); returns how
   * many. One a getMore is filling stops at its next slice (see {@link kill}).
   */
  killSessions(keys: ReadonlySet<string> | "all"): number {
    let n = 0;
    for (const [key, cursor] of this.#open) {
      if (cursor.session !== undefined && (keys === "all" || keys.has(cursor.session))) {
        this.#free(key, cursor);
        n++;
      }
    }
    return n;
  }

  /**
   * Marks the reads whose query plan reads `ns` (or whose joins do) as killed, as MongoDB kills
   * a plan whose collection was dropped or renamed (or, given `index`, whose index was dropped): open
   * cursors stay open, so the next getMore passes the owner checks and then fails with 175 and
   * `reason` (see {@link more}); a read between two slices fails at its next one. A cursor on a
   * view is killed by its base collection's; one that reads no plan (`listIndexes`) is kept.
   * Returns how many were marked.
   */
  killPlans(ns: string, reason: string, index?: string): number {
    let n = 0;
    for (const reader of [...this.#open.values(), ...this.#pinned]) {
      if (reader.killed !== undefined) continue;
      const read = reader.reads === ns && (index === undefined || reader.index === index);
      if (!read && (index !== undefined || reader.joins?.has(ns) !== true)) continue;
      reader.killed = new CommandError("QueryPlanKilled", reason);
      n++;
    }
    return n;
  }

  /**
   * The next batch of an open cursor, or undefined when the id is unknown. The cursor takes
   * what is left of its command's `maxTimeMS` (MongoDB counts it over every batch): `operation`
   * is the getMore's, its deadline set from the cursor's leftover time. A cursor whose plan was
   * killed is freed and fails with 175, as a getMore on MongoDB does; so is one whose getMore
   * fails (past its time limit, say), as MongoDB frees it. A cursor a getMore is still filling
   * is refused (143 CursorInUse).
   */
  more(id: Long, batchSize: number | undefined, operation?: Operation): Batch | Promise<Batch> | undefined {
    const key = id.toString();
    const cursor = this.#open.get(key);
    if (!cursor) return undefined;
    if (cursor.busy) throw new CommandError("CursorInUse", `cursor id ${key} is already in use`);
    if (cursor.killed !== undefined) {
      this.#open.delete(key);
      throw cursor.killed;
    }
    cursor.lastUsed = this.now();
    operation?.limitTo(cursor.leftover);
    let filled: Filled | Promise<Filled>;
    try {
      filled = this.#fill(cursor, batchSize, operation);
    } catch (error) {
      return this.#failed(cursor, error);
    }
    if (!(filled instanceof Promise)) return this.#next(cursor, filled, operation);
    cursor.busy = true;
    return filled.then((done) => this.#next(cursor, done, operation), (error) => this.#failed(cursor, error));
  }

  /** A getMore's batch, filled: the cursor keeps the time left of its command, or is freed once exhausted. */
  #next(cursor: OpenCursor, { docs, more }: Filled, operation: Operation | undefined): Batch {
    cursor.busy = false;
    cursor.leftover = operation?.remaining();
    if (!more) this.#open.delete(cursor.id.toString());
    return new Batch(cursor.ns, more ? cursor.id : Long.ZERO, "nextBatch", docs);
  }

  /** A getMore failed: its cursor is freed, as MongoDB frees it. */
  #failed(cursor: OpenCursor, error: unknown): never {
    cursor.busy = false;
    const key = cursor.id.toString();
    if (this.#open.get(key) === cursor) this.#open.delete(key);
    throw error;
  }

  /** Frees a cursor; false when it was not open. One a getMore is filling stops at its next slice. */
  kill(id: Long): boolean {
    const key = id.toString();
    const cursor = this.#open.get(key);
    if (cursor === undefined) return false;
    this.#free(key, cursor);
    return true;
  }

  /**
   * Forgets a cursor. A getMore filling it across slices is interrupted, as MongoDB interrupts
   * the operation using a cursor it kills: 237 CursorKilled at its next slice.
   */
  #free(key: string, cursor: OpenCursor): void {
    this.#open.delete(key);
    if (cursor.busy) {
      cursor.killed ??= new CommandError(
        "CursorKilled",
        "Executor error during getMore :: caused by :: operation was interrupted",
      );
    }
  }

  /**
   * Stops the sweeper and frees every cursor; reads between two slices stop at their next one
   * (11600 InterruptedAtShutdown), so closing waits for none of them to finish.
   */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    const shutdown = new CommandError("InterruptedAtShutdown", "interrupted at shutdown");
    for (const reader of [...this.#open.values(), ...this.#pinned]) reader.killed ??= shutdown;
    this.#open.clear();
    this.#encoded.clear();
  }

  /**
   * Pulls a sliced read to its end for a command answered at once (count, distinct), handing
   * each value to `take` until it returns false; synchronous while the read's slice lasts, and
   * otherwise going on after a turn of the event loop (resolving then), as {@link first} does.
   * `reader` says what plan the read goes through, so that a drop in between kills it.
   */
  drain<T>(
    source: Iterator<Paused<T>>,
    operation: Operation,
    reader: PlanReader,
    take: (value: T) => boolean,
  ): void | Promise<void> {
    for (let step = source.next(); !step.done; step = source.next()) {
      if (step.value !== PAUSE) {
        if (!take(step.value)) return;
      } else if (operation.atPause()) {
        return this.#afterTurn(reader, operation, () => this.drain(source, operation, reader, take));
      }
    }
  }

  /**
   * Goes on with a read after one turn of the event loop, in which other commands run: the
   * read is pinned meanwhile, so that a drop or a kill reaches it, and fails at once if one
   * did (see {@link PlanReader.killed}).
   */
  #afterTurn<T>(reader: PlanReader, operation: Operation, rest: () => T | Promise<T>): Promise<T> {
    this.#pinned.add(reader);
    return this.turn().then(() => {
      this.#pinned.delete(reader);
      if (reader.killed !== undefined) throw reader.killed;
      operation.resumed();
      return runAs(operation, rest);
    });
  }

  /**
   * The cursor's next document (undefined when the source is exhausted), or {@link YIELD} when
   * the read paused at the end of its slice. A pause without an operation yields nothing.
   */
  #pull(cursor: OpenCursor, operation: Operation | undefined): Document | undefined | typeof YIELD {
    if (cursor.lookahead !== undefined) {
      const doc = cursor.lookahead;
      cursor.lookahead = undefined;
      return doc;
    }
    for (;;) {
      const step = cursor.source.next();
      if (step.done) return undefined;
      if (step.value !== PAUSE) return step.value;
      if (operation?.atPause()) return YIELD;
    }
  }

  /**
   * Pulls, projects and serialises up to `n` more documents into `pending`; false when the read
   * paused at the end of its slice, the documents pulled so far kept in `fill.raw`.
   */
  #refill(cursor: OpenCursor, n: number, fill: BatchFill, operation: Operation | undefined): boolean {
    const raw = fill.raw;
    while (raw.length < n) {
      const doc = this.#pull(cursor, operation);
      if (doc === YIELD) return false;
      if (doc === undefined) break;
      raw.push(doc);
    }
    fill.raw = [];
    if (cursor.cached) {
      cursor.pending = this.#encoded.encode(raw, cursor.project);
      return true;
    }
    const projected = cursor.project && raw.length ? cursor.project(raw) : raw;
    cursor.pending = projected.map(writeDocument);
    return true;
  }

  /**
   * Fills a batch of up to `batchSize` documents (undefined: no count bound) within the byte
   * budget, working in small chunks so a large result is never held whole.
   */
  #fill(cursor: OpenCursor, batchSize: number | undefined, operation: Operation | undefined): Filled | Promise<Filled> {
    if (batchSize === 0) return { docs: [], more: true };
    return this.#fillFrom(
      cursor,
      { want: batchSize ?? Number.MAX_SAFE_INTEGER, docs: [], bytes: 0, raw: [] },
      operation,
    );
  }

  /**
   * Goes on filling a batch; once the read's slice is over, goes on after a turn of the event
   * loop (see {@link fillAcross}). Starting again at the top is right at any point: the chunk
   * pulled so far waits in `fill.raw`, a batch already full by bytes only tops up `pending`.
   */
  #fillFrom(cursor: OpenCursor, fill: BatchFill, operation: Operation | undefined): Filled | Promise<Filled> {
    const { docs } = fill;
    while (docs.length < fill.want) {
      if (
        cursor.pending.length === 0 && !this.#refill(cursor, Math.min(fill.want - docs.length, 256), fill, operation)
      ) {
        return this.#fillAcross(cursor, fill, operation!);
      }
      const next = cursor.pending[0];
      if (next === undefined) break;
      if (docs.length > 0 && fill.bytes + next.length > this.maxBatchBytes) break;
      cursor.pending.shift();
      docs.push(next);
      fill.bytes += next.length;
    }
    if (cursor.pending.length === 0 && cursor.lookahead === undefined) {
      const ahead = this.#pull(cursor, operation);
      if (ahead === YIELD) return this.#fillAcross(cursor, fill, operation!);
      cursor.lookahead = ahead;
    }
    return { docs, more: cursor.pending.length > 0 || cursor.lookahead !== undefined };
  }

  /**
   * Lets other commands run, then goes on filling the batch. A first batch's cursor is not open
   * yet: it is pinned meanwhile (see {@link afterTurn}), where a getMore's is open and busy.
   */
  #fillAcross(cursor: OpenCursor, fill: BatchFill, operation: Operation): Promise<Filled> {
    return this.#afterTurn(cursor, operation, () => this.#fillFrom(cursor, fill, operation));
  }
}
