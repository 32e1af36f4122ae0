import { Buffer } from "node:buffer";
import { type FileHandle, open } from "node:fs/promises";
import { crc32 } from "node:zlib";

/**
 * Record framing shared by journals and snapshots:
 *
 *   [u32 LE payload length][u32 LE CRC-32 of payload][payload]
 *
 * A crash mid-write leaves a short or garbled last record; the length prefix tells where a
 * record should end and the checksum tells whether all its bytes made it, so a reader can
 * stop at the last intact record.
 */

/** Bytes of the length + checksum prefix. */
export const RECORD_HEADER_BYTES = 8;

// Reads are batched so a journal of many small records costs few syscalls.
const READ_BLOCK_BYTES = 1 << 20;

/** Frames `payload` as one record. */
export function frameRecord(payload: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payload.length);
  record.writeUInt32LE(payload.length, 0);
  record.writeUInt32LE(crc32(payload), 4);
  record.set(payload, RECORD_HEADER_BYTES);
  return record;
}

/** Where a scan stopped: `validBytes < fileBytes` means the tail is torn or corrupt. */
export interface ScanResult {
  validBytes: number;
  fileBytes: number;
  records: number;
}

/**
 * Reads `path` record by record, handing each intact payload to `onRecord`, and stops at the
 * first record that is cut short or fails its checksum. Payloads are views into the read
 * block, valid only while `onRecord` runs.
 */
export async function scanRecords(
  path: string,
  onRecord: (payload: Buffer) => void,
): Promise<ScanResult> {
  const handle = await open(path, "r");
  try {
    const reader = new BlockReader(handle, (await handle.stat()).size);
    let offset = 0;
    let records = 0;
    for (;;) {
      const payload = await readRecordAt(reader, offset);
      if (!payload) break;
      onRecord(payload);
      offset += RECORD_HEADER_BYTES + payload.length;
      records++;
    }
    return { validBytes: offset, fileBytes: reader.size, records };
  } finally {
    await handle.close();
  }
}

/**
 * The offset of the first intact record after `from` in `path`, if any. After a crash only the
 * last write can be incomplete (each group of records is fsync'ed before the next is
 * written), so an intact record beyond a damaged one means damage inside acknowledged data,
 * not a torn tail. Each offset is tested cheaply first: a plausible length, and a payload
 * that starts with a plausible BSON document, before its checksum.
 */
export async function intactRecordAfter(path: string, from: number): Promise<number | undefined> {
  const handle = await open(path, "r");
  try {
    const reader = new BlockReader(handle, (await handle.stat()).size);
    for (let offset = from + 1; offset + RECORD_HEADER_BYTES + 5 <= reader.size; offset++) {
      if (await plausibleRecordAt(reader, offset) && (await readRecordAt(reader, offset)) !== undefined) return offset;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

async function plausibleRecordAt(reader: BlockReader, offset: number): Promise<boolean> {
  const start = await reader.bytesAt(offset, RECORD_HEADER_BYTES + 4);
  if (!start) return false;
  const length = start.readUInt32LE(0);
  const firstDocument = start.readInt32LE(RECORD_HEADER_BYTES);
  return length >= 5 && offset + RECORD_HEADER_BYTES + length <= reader.size && firstDocument >= 5 &&
    firstDocument <= length;
}

async function readRecordAt(reader: BlockReader, offset: number): Promise<Buffer | undefined> {
  const header = await reader.bytesAt(offset, RECORD_HEADER_BYTES);
  if (!header) return undefined;
  const length = header.readUInt32LE(0);
  const checksum = header.readUInt32LE(4);
  // A zero length is what a file extended with zeros by a crash looks like.
  if (length === 0) return undefined;
  const payload = await reader.bytesAt(offset + RECORD_HEADER_BYTES, length);
  if (!payload || crc32(payload) !== checksum) return undefined;
  return payload;
}

/** Sequential reads through a block buffer; records may straddle blocks. */
class BlockReader {
  private block = Buffer.alloc(0);
  private blockStart = 0;
  /** The memory blocks are read into, reused: a fresh megabyte per block left recovery's garbage in the process. */
  private memory = Buffer.alloc(0);

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** `length` bytes at `offset`, or undefined if the file ends first. */
  async bytesAt(offset: number, length: number): Promise<Buffer | undefined> {
    if (offset + length > this.size) return undefined;
    const end = offset + length;
    if (offset < this.blockStart || end > this.blockStart + this.block.length) {
      await this.load(offset, length);
    }
    return this.block.subarray(offset - this.blockStart, end - this.blockStart);
  }

  private async load(offset: number, minLength: number): Promise<void> {
    const wanted = Math.min(Math.max(minLength, READ_BLOCK_BYTES), this.size - offset);
    // The previous block is done with: payloads are valid only while their record is handled.
    if (this.memory.length < wanted) this.memory = Buffer.allocUnsafe(wanted);
    const block = this.memory.subarray(0, wanted);
    let filled = 0;
    while (filled < wanted) {
      const { bytesRead } = await this.handle.read(block, filled, wanted - filled, offset + filled);
      if (bytesRead === 0) throw new Error(`file shrank while reading (at byte ${offset + filled})`);
      filled += bytesRead;
    }
    this.block = block;
    this.blockStart = offset;
  }
}

/** Writes all of `bytes` through `handle` at its current (append) position. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const result = await handle.write(bytes, written, bytes.length - written);
    written += result.bytesWritten;
  }
}
