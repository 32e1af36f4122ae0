import { Buffer } from "node:buffer";
import { open, type FileHandle } from "node:fs/promises";
import { fsyncDir, journalPath } from "./files.ts";
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
  private failure: unknown;
  private closed = false;

  private constructor(
    private readonly dir: string,
    private handle: FileHandle,
    private currentGen: number,
    private currentBytes: number,
    private readonly onFlushed: () => void,
  ) {}

  /**
   * Opens journal `gen` of `dir` for appending, creating it if needed. `onFlushed` runs after
   * each durable write, which is where the owner decides whether to compact.
   */
  static async open(dir: string, gen: number, onFlushed: () => void): Promise<JournalWriter> {
    const handle = await open(journalPath(dir, gen), "a");
    const { size } = await handle.stat();
    await fsyncDir(dir);
    return new JournalWriter(dir, handle, gen, size, onFlushed);
  }

  /** Generation of the file new records go to. */
  get gen(): number {
    return this.currentGen;
  }

  /** Bytes written to the current journal file. */
  get bytes(): number {
    return this.currentBytes;
  }

  /** Resolves once `record` is written and fsync'ed. */
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
      await this.settle([head], () => this.switchTo(head.gen));
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
  }

  private async switchTo(gen: number): Promise<void> {
    const next = await open(journalPath(this.dir, gen), "wx");
    await fsyncDir(this.dir);
    await this.handle.close();
    this.handle = next;
    this.currentGen = gen;
    this.currentBytes = 0;
  }

  // Once a write or fsync fails, what reached the disk is unknown, so nothing later may be
  // acknowledged: the journal refuses everything from then on.
  private async settle(entries: Entry[], work: () => Promise<void>): Promise<void> {
    try {
      if (this.failure) throw this.failure;
      await work();
      for (const entry of entries) entry.resolve();
    } catch (error) {
      this.failure ??= journalFailure(error);
      for (const entry of entries) entry.reject(this.failure);
    }
  }
}

function journalFailure(cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new Error(`Journal write failed (${reason}); restart the engine to recover.`, { cause });
}
