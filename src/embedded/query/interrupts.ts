import { setImmediate, setTimeout } from "node:timers";
import { CommandError } from "../errors.ts";

// Time limits and fairness, as MongoDB has them (its OperationContext and PlanYieldPolicy). A
// command may carry `maxTimeMS`: its Operation then has a deadline, which long work checks as
// it goes (every INTERRUPT_EVERY documents or index entries, a sort's comparisons, a join's
// inputs), failing with 50 MaxTimeMSExpired. The engine runs on one thread, so a long read
// would also hold back every other connection: a *sliced* read hands up a PAUSE marker between
// two documents every INTERRUPT_EVERY documents it examines, and the consumer filling a batch
// or a count lets the event loop run once the slice has lasted YIELD_PERIOD_MS. Between two
// slices other commands run, writes included, as they do between a cursor's getMores: the
// scans find their place again after writes (DocIterator, scanEntries).

/** What a sliced read hands up between two documents: a point where its consumer may yield. */
export const PAUSE: unique symbol = Symbol("pause");

/** A value of a sliced read: a document (or whatever it reads), or a {@link PAUSE}. */
export type Paused<T> = T | typeof PAUSE;

/**
 * Documents (or index entries) between two interrupt points: a power of two, so the test is a
 * mask. MongoDB checks for interrupts at its yields, every 10 ms or 1,000 work cycles
 * (internalQueryExecYieldPeriodMS, internalQueryExecYieldIterations; 128 cycles before 4.4,
 * SERVER-46161); reading the clock every 128 documents costs nothing measurable here.
 */
export const INTERRUPT_EVERY = 128;
const INTERRUPT_MASK = INTERRUPT_EVERY - 1;

/**
 * Deno's event loop polls for I/O only every 61 turns of immediates (measured on Deno 2.9: a
 * socket's data came in after 61 `setImmediate` turns, however long each was), so a yield
 * there waits for a timer, which does poll it. A timer costs 2-3 ms on Deno, hence its longer
 * slices.
 */
const ON_DENO = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

/** How long a slice of a sliced read runs before it lets other commands run (MongoDB: 10 ms). */
export const YIELD_PERIOD_MS = ON_DENO ? 40 : 10;

/** True when a running count of examined items has reached an interrupt point. */
export function atInterruptPoint(count: number): boolean {
  return (count & INTERRUPT_MASK) === 0;
}

/** MongoDB's errmsg for an operation past its deadline. */
const EXPIRED = "operation exceeded time limit";

/**
 * One command as it runs: its deadline (from `maxTimeMS`, on the engine's clock), the context
 * MongoDB puts before an interruption's message, and where its current slice started. Made for
 * every command: the times are `undefined` when unset, so that making one allocates no number.
 */
export class Operation {
  /** When the operation expires, on {@link clock}; undefined for never. */
  deadline: number | undefined = undefined;
  /** MongoDB's prefix for an interruption ("Executor error during find command"), if any. */
  context: string | undefined = undefined;
  /** When the current slice started, once its first pause read the clock. */
  #sliceStart: number | undefined = undefined;

  constructor(readonly clock: () => number) {}

  /** Throws 50 MaxTimeMSExpired once the deadline has passed. */
  check(): void {
    if (this.deadline !== undefined && this.clock() >= this.deadline) throw this.#expired();
  }

  /** The operation stopped for `message` (an interruption's words), under MongoDB's context for this command. */
  interrupted(codeName: "MaxTimeMSExpired" | "CursorKilled" | "InterruptedAtShutdown", message: string): CommandError {
    return new CommandError(
      codeName,
      this.context === undefined ? message : `${this.context} :: caused by :: ${message}`,
    );
  }

  #expired(): CommandError {
    return this.interrupted("MaxTimeMSExpired", EXPIRED);
  }

  /**
   * At a pause of a sliced read: checks the deadline, and says whether the slice has run its
   * period, so that the read should let other commands run before going on. The first pause
   * of a slice starts its clock (a read shorter than one interval never reads the clock).
   */
  atPause(): boolean {
    const now = this.clock();
    if (this.deadline !== undefined && now >= this.deadline) throw this.#expired();
    if (this.#sliceStart === undefined) {
      this.#sliceStart = now;
      return false;
    }
    return now - this.#sliceStart >= YIELD_PERIOD_MS;
  }

  /** A yield is over: the next slice starts. */
  resumed(): void {
    this.#sliceStart = undefined;
  }

  /**
   * Time left (ms) for a cursor to take to its next getMore: MongoDB counts a find's or an
   * aggregate's `maxTimeMS` over all its batches, not the time between them. Undefined: none.
   */
  remaining(): number | undefined {
    return this.deadline === undefined ? undefined : Math.max(0, this.deadline - this.clock());
  }

  /** Shortens the deadline to `ms` from now, if that is sooner (explain's two maxTimeMS: the smaller holds). */
  within(ms: number): void {
    const deadline = this.clock() + ms;
    if (this.deadline === undefined || deadline < this.deadline) this.deadline = deadline;
  }

  /** Limits the operation to `ms` from now (a getMore taking its cursor's leftover time); undefined: no limit. */
  limitTo(ms: number | undefined): void {
    this.deadline = ms === undefined ? undefined : this.clock() + ms;
  }
}

/**
 * The operation whose work is running now on the engine's thread (MongoDB's OperationContext
 * of the running thread), for the interrupt points deep in a read that are not handed the
 * operation: mingo's stages and the engine's own inside them. Set only while a command's
 * synchronous part or one slice of it runs (see {@link runAs}), so work that runs later (a
 * write's continuation after its journal append, the TTL monitor) answers to no deadline.
 */
let running: Operation | undefined;

/**
 * Whether an error stopped the operation itself (MongoDB's Interruption category): a write
 * command fails as a whole with it, not with a write error for one statement.
 */
export function isInterruption(error: unknown): boolean {
  return error instanceof CommandError &&
    (error.codeName === "MaxTimeMSExpired" || error.codeName === "CursorKilled" ||
      error.codeName === "InterruptedAtShutdown");
}

/** Throws MaxTimeMSExpired when the running operation is past its deadline. */
export function checkForInterrupt(): void {
  if (running !== undefined && running.deadline !== undefined) running.check();
}

/** Makes `operation` the running one (see {@link running}); returns the one it replaces, for {@link leave}. */
export function enter(operation: Operation): Operation | undefined {
  const previous = running;
  running = operation;
  return previous;
}

/** Ends what {@link enter} began. */
export function leave(previous: Operation | undefined): void {
  running = previous;
}

/** Runs `work` as `operation`'s (see {@link running}). */
export function runAs<T>(operation: Operation, work: () => T): T {
  const previous = running;
  running = operation;
  try {
    return work();
  } finally {
    running = previous;
  }
}

/** Resolves after one turn of the event loop, in which I/O (other connections' commands) is handled. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => ON_DENO ? setTimeout(resolve, 0) : setImmediate(resolve));
}

/** A read's values without its pauses, for a consumer that does not yield: each pause checks the deadline instead. */
export function withoutPauses<T>(source: Iterator<Paused<T>>): Iterator<T> {
  return {
    next: () => {
      for (;;) {
        const step = source.next();
        if (step.done || step.value !== PAUSE) return step as IteratorResult<T>;
        checkForInterrupt();
      }
    },
  };
}

/** Drains a read that does not yield into an array (see {@link withoutPauses}). */
export function collectAll<T>(source: Iterator<Paused<T>>): T[] {
  const out: T[] = [];
  for (let step = source.next(); !step.done; step = source.next()) {
    if (step.value === PAUSE) checkForInterrupt();
    else out.push(step.value);
  }
  return out;
}
