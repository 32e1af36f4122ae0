import { Buffer } from "node:buffer";
import { BSON, type Document, type ObjectId } from "bson";
import { bsonTag, SERIALIZE } from "../bson.ts";
import { decodeDocumentAt, decodeFieldsAt, decodeIdAt, int32 } from "../decode.ts";
import { compareNonNaN, compareValues } from "./values.ts";

/** Bytes of a full-size chunk of documents; a document larger than a quarter of it gets a chunk of its own. */
const CHUNK_BYTES = 4 << 20;
/** Bytes of a table's first chunk (see DocTable's #nextChunkBytes). */
const FIRST_CHUNK_BYTES = 64 << 10;
/** Bytes before each document in a chunk: the document's number, so a chunk can be compacted. */
const NUMBER_BYTES = 4;
/** Decoded documents kept per table (see {@link DocTable.decode}). */
const DECODED_KEPT = 2048;

/** Where the value of a first field `_id` starts: after the length, the type and "_id\0". */
const ID_VALUE_AT = 9;

/**
 * The number a document at `bytes[at..]` has as its first-place `_id` when that is an int32 or
 * a double other than NaN (numbers compare by value across the two); NaN for anything else.
 */
function numberIdAt(bytes: Buffer, at: number): number {
  if (bytes[at + 5] !== 0x5f || bytes[at + 6] !== 0x69 || bytes[at + 7] !== 0x64 || bytes[at + 8] !== 0) return NaN;
  const type = bytes[at + 4];
  if (type === 0x10) return int32(bytes, at + ID_VALUE_AT);
  return type === 0x01 ? bytes.readDoubleLE(at + ID_VALUE_AT) : NaN;
}

/** Whether the document at `bytes[at..]` starts with an ObjectId `_id`. */
function objectIdFirst(bytes: Buffer, at: number): boolean {
  return bytes[at + 4] === 0x07 && bytes[at + 5] === 0x5f && bytes[at + 6] === 0x69 && bytes[at + 7] === 0x64 &&
    bytes[at + 8] === 0;
}

/**
 * A collection's documents as BSON bytes, each known by a number that stays its own while it
 * is stored. Documents held as decoded objects took 2.7 times their BSON size at a million
 * users (docs/benchmarks.md, "how low a redesigned store could go"); here they take their size
 * plus 12 bytes, in chunks outside the JS heap, and are decoded when read (the last few
 * thousand read stay decoded, so a page read again is not decoded again). A document's
 * number is freed when it is deleted or replaced and then reused, except while the table
 * {@link hold}s freed documents (recovery tells versions apart by number, and reads replaced
 * ones). A chunk half dead is compacted into the newest.
 */
export class DocTable {
  readonly #chunks: (Buffer | undefined)[] = [];
  /** Bytes written to each chunk, and of those, bytes of documents since freed. */
  readonly #used: number[] = [];
  readonly #dead: number[] = [];
  /** Per document number: its chunk (-1 when free) and offset there (its BSON's first byte). */
  #chunkOf = new Int32Array(1024).fill(-1);
  #offsetOf = new Int32Array(1024);
  #next = 0;
  readonly #free: number[] = [];
  /** The chunk new documents go to. */
  #current = -1;
  /** The documents decoded last, by number, oldest first. */
  readonly #decoded = new Map<number, Document>();
  /**
   * A table whose first chunk holds `firstChunkBytes` (64 KiB by default), each next one twice
   * the last, up to 4 MiB.
   */
  constructor(private readonly firstChunkBytes = FIRST_CHUNK_BYTES) {}

  /** Documents freed while holding, or undefined when not holding. */
  #held: number[] | undefined;

  /** Stores `doc` (encoded as the wire would encode it); returns its number. */
  add(doc: Document): number {
    const bytes = BSON.serialize(doc, SERIALIZE);
    return this.addBytes(bytes, 0, bytes.length);
  }

  /** Stores the BSON document at `bytes[start, start + length)`; returns its number. */
  addBytes(bytes: Uint8Array, start: number, length: number): number {
    const n = this.#number();
    this.#place(n, bytes, start, length);
    return n;
  }

  /**
   * The document numbered `n`, decoded. Callers must not change it: a document read again soon
   * is the same object (which caches keyed by document, such as the wire's, rely on).
   */
  decode(n: number): Document {
    const kept = this.#decoded.get(n);
    if (kept !== undefined) return kept;
    const chunk = this.#chunkAt(n);
    const at = this.#offsetOf[n];
    const doc = decodeDocumentAt(chunk, at, chunk.readInt32LE(at));
    if (this.#decoded.size >= DECODED_KEPT) this.#decoded.delete(this.#decoded.keys().next().value!);
    this.#decoded.set(n, doc);
    return doc;
  }

  /** The top-level fields of document `n` that `wanted` names (see decodeFieldsAt). */
  fields(n: number, wanted: ReadonlySet<string>): Document {
    const chunk = this.#chunkAt(n);
    const at = this.#offsetOf[n];
    return decodeFieldsAt(chunk, at, chunk.readInt32LE(at), wanted);
  }

  /** {@link id} as a function of its own, for code that takes a reader of ids. */
  readonly idOf = (n: number): unknown => this.id(n);

  /** The `_id` of document `n`. */
  id(n: number): unknown {
    const chunk = this.#chunkAt(n);
    const at = this.#offsetOf[n];
    return decodeIdAt(chunk, at, chunk.readInt32LE(at));
  }

  /**
   * Compares the `_id`s of documents `a` and `b` as compareValues would: on the bytes when both
   * are ObjectIds or both plain numbers in first place (as the engine stores them), decoded
   * otherwise.
   */
  compareIds(a: number, b: number): number {
    const chunkA = this.#chunkAt(a), chunkB = this.#chunkAt(b);
    const atA = this.#offsetOf[a], atB = this.#offsetOf[b];
    if (!objectIdFirst(chunkA, atA) || !objectIdFirst(chunkB, atB)) {
      const x = numberIdAt(chunkA, atA), y = numberIdAt(chunkB, atB);
      if (x === x && y === y) return compareNonNaN(x, y);
      return compareValues(this.id(a), this.id(b));
    }
    for (let i = ID_VALUE_AT; i < ID_VALUE_AT + 12; i++) {
      const c = chunkA[atA + i] - chunkB[atB + i];
      if (c !== 0) return c < 0 ? -1 : 1;
    }
    return 0;
  }

  /**
   * A function comparing a stored document's `_id` with `id`, as `compareValues(id(n), id)`
   * would: on the bytes, without decoding, when both are ObjectIds or both plain numbers (the
   * stored one in first place). A binary search by `_id` makes one and calls it ~20 times.
   */
  idComparer(id: unknown): (n: number) => number {
    if (typeof id === "number" && id === id) {
      return (n) => {
        const stored = numberIdAt(this.#chunkAt(n), this.#offsetOf[n]);
        return stored === stored ? compareNonNaN(stored, id) : compareValues(this.id(n), id);
      };
    }
    if (bsonTag(id) !== "ObjectId") return (n) => compareValues(this.id(n), id);
    const bytes = (id as ObjectId).id;
    return (n) => {
      const chunk = this.#chunkAt(n);
      const at = this.#offsetOf[n];
      if (!objectIdFirst(chunk, at)) return compareValues(this.id(n), id);
      for (let i = 0; i < 12; i++) {
        const c = chunk[at + ID_VALUE_AT + i] - bytes[i];
        if (c !== 0) return c < 0 ? -1 : 1;
      }
      return 0;
    };
  }

  /** Document `n`'s BSON bytes: a view (stored bytes are never overwritten, only dropped). */
  bytes(n: number): Buffer {
    const chunk = this.#chunkAt(n);
    const at = this.#offsetOf[n];
    return chunk.subarray(at, at + chunk.readInt32LE(at));
  }

  /** Document `n`'s `_id` when it is an int32 or a double other than NaN, read from its bytes; NaN otherwise. */
  numberId(n: number): number {
    return numberIdAt(this.#chunkAt(n), this.#offsetOf[n]);
  }

  /** The chunk holding document `n`'s bytes, for readers of raw BSON (see {@link start}). */
  chunk(n: number): Buffer {
    return this.#chunkAt(n);
  }

  /** Where document `n` starts in its {@link chunk}: its length, then its BSON. */
  start(n: number): number {
    return this.#offsetOf[n];
  }

  /** Whether document `n` is stored (freed ones held by {@link hold} count as stored). */
  holds(n: number): boolean {
    return n >= 0 && n < this.#next && this.#chunkOf[n] >= 0;
  }

  /** Forgets document `n`: its bytes become dead space, its number free. */
  free(n: number): void {
    if (this.#held !== undefined) {
      this.#held.push(n);
      return;
    }
    const c = this.#chunkOf[n];
    if (c < 0) return;
    this.#decoded.delete(n);
    const chunk = this.#chunks[c]!;
    this.#dead[c] += NUMBER_BYTES + chunk.readInt32LE(this.#offsetOf[n]);
    this.#chunkOf[n] = -1;
    this.#free.push(n);
    if (c !== this.#current && this.#dead[c] * 2 >= this.#used[c]) this.#compact(c);
  }

  /** Until {@link release}, freed documents stay readable and their numbers are not reused. */
  hold(): void {
    this.#held ??= [];
  }

  /**
   * Frees the documents freed since {@link hold}, and stops holding. Then compacts every chunk
   * an eighth dead: a journal replayed on a snapshot replaces documents all over the table,
   * leaving each chunk a little dead, never the half that compacts it as writes go on, and a
   * fifth of the data's size held for nothing after a large journal.
   */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const n of held) this.free(n);
    if (held.length === 0) return;
    for (let c = 0; c < this.#chunks.length; c++) {
      if (this.#chunks[c] !== undefined && c !== this.#current && this.#dead[c] * 8 >= this.#used[c]) this.#compact(c);
    }
  }

  /** Forgets every document. */
  clear(): void {
    this.#chunks.length =
      this.#used.length =
      this.#dead.length =
      this.#free.length =
        0;
    if (this.#held !== undefined) this.#held = [];
    this.#decoded.clear();
    this.#chunkOf = new Int32Array(1024).fill(-1);
    this.#offsetOf = new Int32Array(1024);
    this.#next = 0;
    this.#current = -1;
  }

  /**
   * Bytes of the stored documents' BSON, given how many there are: every chunk's written bytes
   * less the dead ones and each live document's number.
   */
  dataBytes(documents: number): number {
    let written = 0;
    for (let c = 0; c < this.#chunks.length; c++) {
      if (this.#chunks[c] !== undefined) written += this.#used[c] - this.#dead[c];
    }
    return written - NUMBER_BYTES * documents;
  }

  /** Bytes of the chunks no live document holds: dead documents and room not yet written. */
  get freeBytes(): number {
    let free = 0;
    for (let c = 0; c < this.#chunks.length; c++) {
      const chunk = this.#chunks[c];
      if (chunk !== undefined) free += chunk.length - this.#used[c] + this.#dead[c];
    }
    return free;
  }

  /** Bytes the chunks hold, live and dead (for tests and benchmarks). */
  get chunkBytes(): number {
    let total = 0;
    for (const chunk of this.#chunks) total += chunk?.length ?? 0;
    return total;
  }

  #chunkAt(n: number): Buffer {
    const c = this.#chunkOf[n];
    if (c < 0 || n >= this.#next) throw new Error(`stored document ${n} does not exist`);
    return this.#chunks[c]!;
  }

  #number(): number {
    if (this.#free.length > 0) return this.#free.pop()!;
    const n = this.#next++;
    if (n === this.#chunkOf.length) {
      const chunkOf = new Int32Array(n * 2).fill(-1);
      chunkOf.set(this.#chunkOf);
      const offsetOf = new Int32Array(n * 2);
      offsetOf.set(this.#offsetOf);
      this.#chunkOf = chunkOf;
      this.#offsetOf = offsetOf;
    }
    return n;
  }

  /** Copies document `n`'s bytes into the current chunk (or a chunk of its own when large). */
  #place(n: number, bytes: Uint8Array, start: number, length: number): void {
    const need = NUMBER_BYTES + length;
    let c = this.#current;
    if (need > CHUNK_BYTES / 4) {
      c = this.#newChunk(need);
    } else if (c < 0 || this.#used[c] + need > this.#chunks[c]!.length) {
      c = this.#current = this.#newChunk(Math.max(need, this.#nextChunkBytes()));
    }
    const chunk = this.#chunks[c]!;
    const at = this.#used[c];
    chunk.writeInt32LE(n, at);
    chunk.set(bytes.subarray(start, start + length), at + NUMBER_BYTES);
    this.#used[c] = at + need;
    this.#chunkOf[n] = c;
    this.#offsetOf[n] = at + NUMBER_BYTES;
  }

  /**
   * The size of the next shared chunk: the first one's size for a table's first, doubling up
   * to {@link CHUNK_BYTES}, so a small collection does not hold 4 MiB.
   */
  #nextChunkBytes(): number {
    let live = 0;
    for (const chunk of this.#chunks) if (chunk !== undefined) live++;
    return Math.min(CHUNK_BYTES, this.firstChunkBytes * 2 ** live);
  }

  #newChunk(bytes: number): number {
    let c = this.#chunks.indexOf(undefined);
    if (c < 0) c = this.#chunks.length;
    // Outside the JS heap, and not from the shared pool: a chunk is long-lived.
    this.#chunks[c] = Buffer.allocUnsafeSlow(bytes);
    this.#used[c] = 0;
    this.#dead[c] = 0;
    return c;
  }

  /** Moves chunk `c`'s live documents to the current chunk and drops it. */
  #compact(c: number): void {
    const chunk = this.#chunks[c]!;
    const used = this.#used[c];
    for (let at = 0; at < used;) {
      const n = chunk.readInt32LE(at);
      const length = chunk.readInt32LE(at + NUMBER_BYTES);
      if (this.#chunkOf[n] === c && this.#offsetOf[n] === at + NUMBER_BYTES) {
        this.#chunkOf[n] = -1; // moving, not freed
        this.#place(n, chunk, at + NUMBER_BYTES, length);
      }
      at += NUMBER_BYTES + length;
    }
    // Only now may a new chunk take its slot: the loop above tells live documents by it.
    this.#chunks[c] = undefined;
  }
}
