import { Buffer } from "node:buffer";
import { type FileHandle, open } from "node:fs/promises";
import { fsyncDir, journalPath, removeIfExists } from "./files.ts";
import { isOutOfSpace, outOfSpace } from "./space.ts";
import { writeAll } from "./records.ts";

/**
 * The journal writer, with group commit: records handed in while a write + fsync is under way
 * queue up and go out together in the next one, so N concurrent writers cost one fsync rather
 * than N. Records land in the file in the order `append` was called.
 */

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

type Job = { kind: "data"; bytes: Uint8Array } | { kind: "rotate"; gen: number };

type Entry = Job & Waiter;

/** Appends framed records to the current journal file and rotates to new ones. */
export class JournalWriter {
  private queue: Entry[] = [];
  private draining = false;
  // A failure that makes every later append fail too; see settle().
  private failure: Error | undefined;
  private closed = false;
  private failedBatches = 0;

  private constructor(
    private readonly dir: string,
    private handle: FileHandle,
    private currentGen: number,
    private currentBytes: number,
    // Bytes of the current file known to be complete and synced: where a failed batch is cut back to.
    private durableBytes: number,
    private readonly onFlushed: () => void,
  ) {}

  /**
   * Opens journal `gen` of `dir` for appending, creating it if needed. `onFlushed` runs after
   * each durable write, which is where the owner decides whether to compact.
   */
  static async open(dir: string, gen: number, onFlushed: () => void): Promise<JournalWriter> {
    const handle = await open(journalPath(dir, gen), "a", 0o600);
    const { size } = await handle.stat();
    await fsyncDir(dir);
    return new JournalWriter(dir, handle, gen, size, size, onFlushed);
  }

  /** Generation of the file new records go to. */
  get gen(): number {
    return this.currentGen;
  }

  /** Bytes written to the current journal file. */
  get bytes(): number {
    return this.currentBytes;
  }

  /**
   * Number of batches that failed so far. A snapshot compares it before and after: a write
   * that failed meanwhile may be in the dump although it was rolled back, so that snapshot
   * must not commit.
   */
  get failures(): number {
    return this.failedBatches;
  }

  /**
   * Resolves once `record` is written and fsync'ed. Rejects with an OutOfSpaceError when the
   * disk is full: nothing of the record stays in the file, and later appends try again.
   */
  append(record: Uint8Array): Promise<void> {
    return this.enqueue({ kind: "data", bytes: record });
  }

  /** Resolves once everything appended before this call is durable. */
  sync(): Promise<void> {
    return this.enqueue({ kind: "data", bytes: new Uint8Array(0) });
  }

  /**
   * Switches to journal `gen`: records appended before this call go to the old file (durably,
   * once this resolves), records appended after it to the new one.
   */
  rotate(gen: number): Promise<void> {
    return this.enqueue({ kind: "rotate", gen });
  }

  /** Flushes what is queued, then closes the file. Later appends are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    const flushed = this.sync().catch(() => {});
    this.closed = true;
    await flushed;
    await this.handle.close();
  }

  private enqueue(job: Job): Promise<void> {
    if (this.closed) return Promise.reject(new Error("The journal is closed."));
    if (this.failure) return Promise.reject(this.failure);
    const promise = new Promise<void>((resolve, reject) => {
      this.queue.push({ ...job, resolve, reject });
    });
    void this.drain();
    return promise;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.step();
    } finally {
      this.draining = false;
    }
  }

  // One write + fsync for the queued data up to the next rotation, or one rotation.
  private async step(): Promise<void> {
    const head = this.queue[0];
    if (head.kind === "rotate") {
      this.queue.shift();
      await this.switchTo(head.gen).then(head.resolve, head.reject);
      return;
    }
    const stop = this.queue.findIndex((entry) => entry.kind === "rotate");
    const batch = this.queue.splice(0, stop === -1 ? this.queue.length : stop);
    await this.settle(batch, () => this.writeBatch(batch));
    if (!this.failure) this.onFlushed();
  }

  private async writeBatch(batch: Entry[]): Promise<void> {
    const parts = batch.flatMap((entry) => (entry.kind === "data" ? [entry.bytes] : []));
    const bytes = Buffer.concat(parts);
    if (bytes.length === 0) return;
    this.currentBytes += bytes.length;
    await writeAll(this.handle, bytes);
    // fdatasync also persists the grown file size, which is all an append needs.
    await this.handle.datasync();
    this.durableBytes = this.currentBytes;
  }

  // A rotation that fails (no room for the new file) leaves the old journal in use.
  private async switchTo(gen: number): Promise<void> {
    if (this.failure) throw this.failure;
    const path = journalPath(this.dir, gen);
    const next = await open(path, "wx", 0o600);
    try {
      await fsyncDir(this.dir);
    } catch (error) {
      await next.close();
      await removeIfExists(path);
      throw error;
    }
    const previous = this.handle;
    this.handle = next;
    // Everything in the old file is synced already; closing it cannot lose anything.
    await previous.close().catch(() => {});
    this.currentGen = gen;
    this.currentBytes = 0;
    this.durableBytes = 0;
  }

  // A batch that fails is cut back off the file, so that nothing its writers were told failed
  // can come back at a restart. A lack of space is then only that batch's failure: the next
  // one tries again, which is how the journal recovers once space is freed. Any other failure
  // (or a cut that fails) leaves the disk in an unknown state: nothing later is acknowledged.
  private async settle(entries: Entry[], work: () => Promise<void>): Promise<void> {
    try {
      if (this.failure) throw this.failure;
      await work();
      for (const entry of entries) entry.resolve();
    } catch (error) {
      const reported = this.failure ?? (await this.failBatch(error));
      for (const entry of entries) entry.reject(reported);
    }
  }

  private async failBatch(cause: unknown): Promise<Error> {
    this.failedBatches++;
    try {
      await this.cutBackTo(this.durableBytes);
    } catch (cutError) {
      this.failure = uncertainFailure(cause, cutError);
      return this.failure;
    }
    if (isOutOfSpace(cause)) return outOfSpace(cause);
    this.failure = journalFailure(cause);
    return this.failure;
  }

  private async cutBackTo(length: number): Promise<void> {
    this.currentBytes = length;
    await this.handle.truncate(length);
    await this.handle.sync();
  }
}

function reasonOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function journalFailure(cause: unknown): Error {
  return new Error(`Journal write failed (${reasonOf(cause)}); restart the engine to recover.`, { cause });
}

function uncertainFailure(cause: unknown, cutError: unknown): Error {
  return new Error(
    `Journal write failed (${reasonOf(cause)}) and its partial record could not be removed ` +
      `(${reasonOf(cutError)}): this write may or may not be applied after a restart. ` +
      `Restart the engine to recover.`,
    { cause },
  );
}
