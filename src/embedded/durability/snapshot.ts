import { Buffer } from "node:buffer";
import { type FileHandle, open, rename } from "node:fs/promises";
import { setImmediate } from "node:timers";
import type { Document } from "bson";
import type { Change, EncodedPut, RecoveredChange } from "../changes.ts";
import { decodeDocumentAt } from "../decode.ts";
import { encodeChange, encodeDocument, encodedPutAt, forEachDocument, isChange } from "./codec.ts";
import { fsyncDir, removeIfExists, snapshotPath, snapshotTempPath } from "./files.ts";
import { frameRecord, scanRecords, writeAll } from "./records.ts";

/**
 * Snapshots: the whole state as Changes, in records framed like the journal's, between a
 * header record and a trailer record. The trailer is what proves the file complete; the
 * temp-file + rename protocol is what keeps an incomplete one from ever carrying the final name.
 */

// 2 added index orders (the indexOrder change); a format-1 snapshot reads the same, without them.
const FORMAT = 2;
const READABLE_FORMATS = new Set([1, 2]);

// Cap on one chunk record, so a collection of large documents does not build one huge buffer.
const CHUNK_BYTES = 4 << 20;

/** How `writeSnapshot` paces itself and when it commits. */
export interface SnapshotWriteOptions {
  /** Changes taken from the dump per chunk; the event loop gets a turn between chunks. */
  chunkChanges: number;
  /** Runs after the file is complete and fsync'ed, just before the rename that commits it. */
  beforeCommit: () => Promise<void>;
}

/**
 * Writes `changes` as snapshot `gen` of `dir`: to a temp file, fsync, rename into place, fsync
 * the folder. Returns the snapshot's size in bytes. On any failure the temp file is removed
 * and no snapshot `gen` exists.
 */
export async function writeSnapshot(
  dir: string,
  gen: number,
  changes: Iterable<RecoveredChange>,
  options: SnapshotWriteOptions,
): Promise<number> {
  const temp = snapshotTempPath(dir, gen);
  const handle = await open(temp, "w", 0o600);
  let handleOpen = true;
  try {
    const bytes = await writeBody(handle, gen, changes, options);
    await handle.sync();
    handleOpen = false;
    await handle.close();
    await options.beforeCommit();
    await rename(temp, snapshotPath(dir, gen));
    await fsyncDir(dir);
    return bytes;
  } catch (error) {
    if (handleOpen) await handle.close().catch(() => {});
    await removeIfExists(temp);
    throw error;
  }
}

async function writeBody(
  handle: FileHandle,
  gen: number,
  changes: Iterable<RecoveredChange>,
  options: SnapshotWriteOptions,
): Promise<number> {
  let bytes = 0;
  const write = async (payload: Uint8Array) => {
    const record = frameRecord(payload);
    await writeAll(handle, record);
    bytes += record.length;
  };
  await write(encodeDocument({ snapshot: FORMAT, gen }));
  const iterator = changes[Symbol.iterator]();
  let count = 0;
  for (;;) {
    const chunk = takeChunk(iterator, options.chunkChanges);
    if (chunk.count > 0) await write(chunk.payload);
    count += chunk.count;
    if (chunk.done) break;
    // Let requests run between chunks: the dump walks live engine state.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await write(encodeDocument({ end: true, changes: count }));
  return bytes;
}

// Encodes up to `limit` changes at once, so each one is captured as it is at this moment.
function takeChunk(
  iterator: Iterator<RecoveredChange>,
  limit: number,
): { payload: Buffer; count: number; done: boolean } {
  const parts: Uint8Array[] = [];
  let size = 0;
  while (parts.length < limit && size < CHUNK_BYTES) {
    const next = iterator.next();
    if (next.done) return { payload: Buffer.concat(parts), count: parts.length, done: true };
    const encoded = encodeChange(next.value);
    parts.push(encoded);
    size += encoded.length;
  }
  return { payload: Buffer.concat(parts), count: parts.length, done: false };
}

/**
 * Feeds the changes of snapshot `gen` to `apply` and returns the file's size. Throws if the
 * file is not a complete, intact snapshot of that generation: once committed, a snapshot is
 * the only copy of the data it holds.
 */
export async function readSnapshot(
  dir: string,
  gen: number,
  apply: (change: RecoveredChange) => void,
): Promise<number> {
  const reader = new SnapshotReader(snapshotPath(dir, gen), gen, apply);
  const scan = await scanRecords(reader.path, (payload) => {
    forEachDocument(payload, (view, offset, length) => {
      const put = encodedPutAt(view, offset, length);
      if (put !== undefined) reader.readPut(put);
      else reader.read(decodeDocumentAt(view, offset, length));
    });
  });
  if (scan.validBytes !== scan.fileBytes) throw reader.damaged(`bad record at byte ${scan.validBytes}`);
  reader.finish();
  return scan.fileBytes;
}

// Checks the header / changes / trailer sequence while applying the changes.
class SnapshotReader {
  private header = false;
  private trailer: number | undefined;
  private count = 0;

  constructor(
    readonly path: string,
    private readonly gen: number,
    private readonly apply: (change: RecoveredChange) => void,
  ) {}

  read(doc: Document): void {
    if (this.trailer !== undefined) throw this.damaged("records after the trailer");
    if (!this.header) {
      if (!READABLE_FORMATS.has(doc.snapshot) || doc.gen !== this.gen) throw this.damaged("unknown header");
      this.header = true;
    } else if (doc.end === true) {
      this.trailer = Number(doc.changes);
    } else if (isChange(doc)) {
      this.apply(doc as unknown as Change);
      this.count++;
    } else {
      throw this.damaged("unexpected record");
    }
  }

  /** A put change, its document left encoded. */
  readPut(put: EncodedPut): void {
    if (this.trailer !== undefined) throw this.damaged("records after the trailer");
    if (!this.header) throw this.damaged("unknown header");
    this.apply(put);
    this.count++;
  }

  finish(): void {
    if (this.trailer === undefined) throw this.damaged("no trailer");
    if (this.trailer !== this.count) throw this.damaged("change count does not match the trailer");
  }

  damaged(reason: string): Error {
    return new Error(`Snapshot ${this.path} is damaged (${reason}); the engine cannot start from it.`);
  }
}
