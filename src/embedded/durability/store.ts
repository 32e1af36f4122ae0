import { setImmediate } from "node:timers";
import type { Change, RecoveredChange } from "../changes.ts";
import { encodeChanges } from "./codec.ts";
import { removeOlderThan } from "./files.ts";
import { JournalWriter } from "./journal.ts";
import type { ReleaseLock } from "./lock.ts";
import { frameRecord } from "./records.ts";
import { recoverFolder, type SnapshotLoaded } from "./recovery.ts";
import { writeSnapshot } from "./snapshot.ts";

/** Tuning knobs of a durable store. */
export interface DurableStoreOptions {
  /**
   * Journal size (bytes) past which a compaction starts by itself, default 16 MiB. The bar is
   * raised to an eighth of the last snapshot's size when that is larger, so a big database is
   * not rewritten after every few writes. It bounds what a start-up after a crash replays.
   */
  compactThreshold?: number;
  /**
   * Journal size (bytes) past which close() folds the journal into a snapshot even though no
   * compaction is due, default 1 MiB: replaying a journal costs start-up far more per byte than
   * loading a snapshot, so a start after a clean stop reads the snapshot alone (a session that
   * only read included: the journal may be one a crash left).
   */
  closeCompactThreshold?: number;
  /** Changes taken from `dump()` between two turns of the event loop; default 2000. */
  snapshotChunk?: number;
  /** Receives notices such as a torn journal tail being discarded; default console.warn. */
  warn?: (message: string) => void;
}

const DEFAULT_THRESHOLD = 16 << 20;
const DEFAULT_CLOSE_THRESHOLD = 1 << 20;
const DEFAULT_CHUNK = 2000;

/** Where a store stands on disk. */
export interface StoreStats {
  /** Generation of the journal being appended to. */
  journalGen: number;
  /** Bytes written to that journal. */
  journalBytes: number;
  /** Size of the newest snapshot (0 if none yet). */
  snapshotBytes: number;
  /** Whether a compaction is under way. */
  compacting: boolean;
}

type Phase = "opened" | "recovering" | "ready" | "closing" | "closed";

/**
 * The journal + snapshot store behind `openDurableStore`. Lifecycle: recover() once, then
 * append() any number of times (compacting in the background when the journal grows), then
 * close(), which folds in any journal past `closeCompactThreshold`, so a start after a
 * clean stop replays next to nothing.
 */
export class JournaledStore {
  private phase: Phase = "opened";
  private journal: JournalWriter | undefined;
  private snapshotBytes = 0;
  private compaction: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  // Set when the journal's size called for a compaction (at start-up or while appending);
  // cleared once a snapshot commits, so close() retries one that failed or is still due.
  private owed = false;
  private readonly threshold: number;
  private readonly closeThreshold: number;
  private readonly chunk: number;
  private readonly warn: (message: string) => void;

  /** Wraps a locked folder; the store releases `releaseLock` on close. */
  constructor(
    private readonly dir: string,
    private readonly dump: () => Iterable<RecoveredChange>,
    private readonly releaseLock: ReleaseLock,
    options: DurableStoreOptions = {},
  ) {
    this.threshold = options.compactThreshold ?? DEFAULT_THRESHOLD;
    this.closeThreshold = options.closeCompactThreshold ?? DEFAULT_CLOSE_THRESHOLD;
    this.chunk = Math.max(1, options.snapshotChunk ?? DEFAULT_CHUNK);
    this.warn = options.warn ?? ((message) => console.warn(message));
  }

  /**
   * Feeds every change recovered from snapshot + journal to `apply`, in order; `afterSnapshot`
   * runs once the snapshot's are in, before the journal's.
   */
  async recover(
    apply: (change: RecoveredChange) => void,
    afterSnapshot?: (loaded: SnapshotLoaded) => void,
  ): Promise<void> {
    if (this.phase !== "opened") throw new Error(`recover() called while the store is ${this.phase}.`);
    this.phase = "recovering";
    try {
      const found = await recoverFolder(this.dir, apply, this.warn, afterSnapshot);
      this.snapshotBytes = found.snapshotBytes;
      const journal = await JournalWriter.open(this.dir, found.journalGen, () => this.maybeCompact());
      if (this.phase !== "recovering") {
        await journal.close();
        throw new Error("The store was closed during recovery.");
      }
      this.journal = journal;
      this.phase = "ready";
      // A large journal means slow restarts: fold it in. `apply` has run for every change, so
      // the engine's state (what dump() walks) is already complete.
      if (found.journalBytes > this.compactionBar()) this.maybeCompact(true);
    } catch (error) {
      if (this.phase === "recovering") this.phase = "opened";
      throw error;
    }
  }

  /** Resolves once `changes` are written and fsync'ed (as one record: all or none survive). */
  append(changes: readonly Change[]): Promise<void> {
    if (this.phase !== "ready" || !this.journal) {
      const closed = this.phase === "closed" || this.phase === "closing";
      const why = closed ? "the store is closed" : "recover() has not finished";
      return Promise.reject(new Error(`Cannot append: ${why}.`));
    }
    if (changes.length === 0) return this.journal.sync();
    let record: Uint8Array;
    try {
      record = frameRecord(encodeChanges(changes));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.journal.append(record);
  }

  /**
   * Writes a snapshot of `dump()` and drops the journals it makes redundant. Waits for a
   * compaction already running, then runs a fresh one, so everything appended before the call
   * is covered by a snapshot when it resolves.
   */
  async compact(): Promise<void> {
    await this.idle();
    if (this.phase !== "ready") throw new Error(`Cannot compact: the store is ${this.phase}.`);
    await this.startCompaction();
  }

  /** Resolves once no compaction is running, including one started by the size threshold. */
  async idle(): Promise<void> {
    while (this.compaction) await this.compaction.catch(() => {});
  }

  /**
   * Refuses further appends, finishes a running compaction (or runs one the journal's size
   * calls for, or whose journal is past the close threshold), flushes, closes files, releases
   * the lock. No write arrives meanwhile, so the
   * snapshot is of a still state and takes one pass over the data.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    const wasReady = this.phase === "ready";
    this.phase = "closing";
    this.closing = this.finishAndClose(wasReady);
    return this.closing;
  }

  private async finishAndClose(wasReady: boolean): Promise<void> {
    try {
      await this.idle();
      if (wasReady && (this.compactionDue() || (this.journal?.bytes ?? 0) > this.closeThreshold)) {
        await this.startCompaction().catch((error) => this.warn(`Compaction at close failed: ${String(error)}`));
      }
    } finally {
      this.phase = "closed";
      try {
        await this.journal?.close();
      } finally {
        await this.releaseLock();
      }
    }
  }

  /** Sizes and generation on disk, for tests and diagnostics. */
  stats(): StoreStats {
    return {
      journalGen: this.journal?.gen ?? 0,
      journalBytes: this.journal?.bytes ?? 0,
      snapshotBytes: this.snapshotBytes,
      compacting: this.compaction !== undefined,
    };
  }

  private compactionBar(): number {
    return Math.max(this.threshold, this.snapshotBytes / 8);
  }

  // A journal past the bar, or one whose compaction failed, not yet folded into a snapshot.
  private compactionDue(): boolean {
    return this.owed || (this.journal !== undefined && this.journal.bytes > this.compactionBar());
  }

  // Starts a background compaction when the journal has outgrown the bar (or when forced at
  // startup); failures are reported, never thrown at the writer that crossed the line.
  private maybeCompact(force = false): void {
    if (this.phase !== "ready" || this.compaction || !this.journal) return;
    if (!force && this.journal.bytes <= this.compactionBar()) return;
    this.owed = true;
    this.startCompaction().catch((error) => this.warn(`Compaction failed: ${String(error)}`));
  }

  private startCompaction(): Promise<void> {
    const run = this.runCompaction().finally(() => {
      this.compaction = undefined;
    });
    this.compaction = run;
    return run;
  }

  // Each step leaves a recoverable folder; see the crash notes in mod.ts.
  private async runCompaction(): Promise<void> {
    const journal = this.journal!;
    const gen = journal.gen + 1;
    const failuresBefore = journal.failures;
    await journal.rotate(gen);
    // Writers whose appends just became durable apply them after their await; give them that
    // turn so the dump below cannot miss a change that only the old journals hold.
    await new Promise((resolve) => setImmediate(resolve));
    this.snapshotBytes = await writeSnapshot(this.dir, gen, this.dump(), {
      chunkChanges: this.chunk,
      // Everything the dump saw must be durable before the snapshot replaces the old journals,
      // and nothing it saw may have failed since: a failed write is rolled back in memory, but
      // the dump may hold it.
      beforeCommit: async () => {
        await journal.sync();
        if (journal.failures !== failuresBefore) {
          throw new Error("Snapshot abandoned: a journal write failed while it was taken.");
        }
      },
    });
    this.owed = false;
    await removeOlderThan(this.dir, gen);
  }
}
