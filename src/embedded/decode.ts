import type { Buffer } from "node:buffer";
import { BSON, type Document, Long, ObjectId } from "bson";
import { DESERIALIZE } from "./bson.ts";
import { isHazardousName, markHazardous, markIfHazardous, setField } from "./field-names.ts";

/**
 * A decoder for the documents recovery reads by the million (a snapshot's puts), faster than
 * `BSON.deserialize` on the common shapes because it decodes each field name once per run of
 * documents (a small cache of recent names) instead of once per document, and does not copy
 * the bytes first. It handles ASCII strings, doubles, int32, int64, booleans, dates, null,
 * ObjectIds, embedded documents and arrays; on anything else (binary, decimal, regex, non-ASCII
 * text, `$`-prefixed or `__proto__` names, malformed bytes) it gives up and the whole document
 * goes to `BSON.deserialize`, so the result is always exactly what that would have returned.
 * A document holding a name a plain object already answers to (`constructor`, `__proto__`...)
 * at any depth is marked (field-names.ts), for the code that hands documents to mingo.
 */

/** Thrown inside the fast path to hand a document to `BSON.deserialize`. */
const GIVE_UP = Symbol("give up");

const CACHE_SIZE = 512;
const names: (string | undefined)[] = new Array(CACHE_SIZE);

/**
 * Short string values recently decoded, so that documents repeating a value (a surname, a
 * status, a country) share one string instead of holding a copy each: strings are immutable,
 * so sharing is invisible. Longer strings are rarely repeated and are not looked up.
 */
const TEXT_CACHE_SIZE = 8192;
const SHARED_TEXT_BYTES = 33;
const texts: (string | undefined)[] = new Array(TEXT_CACHE_SIZE);

/** Set when the fast path decodes a hazardous field name (such names are never cached, so each is seen). */
let sawHazardousName = false;

/** Decodes one BSON document spanning `bytes[start, start + length)` (length from its header). */
export function decodeDocumentAt(bytes: Buffer, start: number, length: number): Document {
  try {
    sawHazardousName = false;
    const doc = readObject(bytes, start, start + length, false) as Document;
    return sawHazardousName ? markHazardous(doc) : doc;
  } catch (error) {
    if (error !== GIVE_UP) throw error;
    // A copy, because decoded Binary values are views into their input and would otherwise
    // pin the reader's whole read block in memory.
    return markIfHazardous(BSON.deserialize(bytes.slice(start, start + length), DESERIALIZE));
  }
}

/**
 * The top-level fields of the document at `bytes[start, start + length)` that `wanted` names,
 * decoded exactly as {@link decodeDocumentAt} would decode them, the others skipped: what an
 * index needs of a stored document, for a fraction of the cost of decoding all of it.
 */
export function decodeFieldsAt(bytes: Buffer, start: number, length: number, wanted: ReadonlySet<string>): Document {
  try {
    return readFields(bytes, start, start + length, wanted);
  } catch (error) {
    if (error !== GIVE_UP) throw error;
    const doc = decodeDocumentAt(bytes, start, length);
    const out: Document = {};
    for (const name in doc) if (wanted.has(name)) setField(out, name, doc[name]);
    return out;
  }
}

/** The `_id` of the document at `bytes[start, start + length)` (undefined when it has none). */
export function decodeIdAt(bytes: Buffer, start: number, length: number): unknown {
  return decodeFieldsAt(bytes, start, length, ID_ONLY)._id;
}

const ID_ONLY: ReadonlySet<string> = new Set(["_id"]);

/**
 * Calls `visit` with each top-level field of the document at `bytes[start, start + length)`:
 * where its name starts and ends, its BSON type, and where its value starts; stops early when
 * `visit` returns false. Decodes nothing. False when the bytes cannot be walked.
 */
export function walkFields(
  bytes: Buffer,
  start: number,
  length: number,
  visit: (nameStart: number, nameEnd: number, type: number, at: number) => boolean,
): boolean {
  const end = start + length;
  if (end > bytes.length || int32(bytes, start) !== length || bytes[end - 1] !== 0) return false;
  try {
    let at = start + 4;
    while (at < end - 1) {
      const type = bytes[at++];
      const nameEnd = bytes.indexOf(0, at);
      if (nameEnd < 0 || nameEnd >= end) return false;
      const valueAt = nameEnd + 1;
      if (!visit(at, nameEnd, type, valueAt)) return true;
      at = skipValue(bytes, type, valueAt);
      if (at < valueAt || at > end - 1) return false;
    }
    return true;
  } catch (error) {
    if (error !== GIVE_UP) throw error;
    return false;
  }
}

/** Whether `bytes[from, to)` spells `name` (ASCII). */
export function nameIs(bytes: Buffer, from: number, to: number, name: string): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[from + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** The string value starting at `at` (its length first), shared with equal recent ones; undefined unless ASCII. */
export function textAt(bytes: Buffer, at: number): string | undefined {
  const size = int32(bytes, at);
  if (size < 1 || at + 4 + size > bytes.length || bytes[at + 3 + size] !== 0) return undefined;
  try {
    return size <= SHARED_TEXT_BYTES ? sharedText(bytes, at + 4, at + 3 + size) : ascii(bytes, at + 4, at + 3 + size);
  } catch (error) {
    if (error !== GIVE_UP) throw error;
    return undefined;
  }
}

/** {@link decodeFieldsAt}'s fast path; stops once every wanted field is read. */
function readFields(bytes: Buffer, start: number, end: number, wanted: ReadonlySet<string>): Document {
  if (end > bytes.length || int32(bytes, start) !== end - start || bytes[end - 1] !== 0) throw GIVE_UP;
  const out: Document = {};
  let found = 0;
  let at = start + 4;
  while (at < end - 1 && found < wanted.size) {
    const type = bytes[at++];
    const nameEnd = bytes.indexOf(0, at);
    if (nameEnd < 0 || nameEnd >= end) throw GIVE_UP;
    const name = fieldName(bytes, at, nameEnd);
    at = nameEnd + 1;
    if (wanted.has(name)) {
      out[name] = readValue(bytes, type, at, end);
      at = valueEnd;
      found++;
    } else {
      const next = skipValue(bytes, type, at);
      if (next < at) throw GIVE_UP;
      at = next;
    }
    if (at > end - 1) throw GIVE_UP;
  }
  return out;
}

/** Where the value of type `type` starting at `at` ends, without decoding it. */
function skipValue(bytes: Buffer, type: number, at: number): number {
  switch (type) {
    case 0x06:
    case 0x0a:
    case 0x7f:
    case 0xff:
      return at;
    case 0x08:
      return at + 1;
    case 0x10:
      return at + 4;
    case 0x01:
    case 0x09:
    case 0x11:
    case 0x12:
      return at + 8;
    case 0x07:
      return at + 12;
    case 0x13:
      return at + 16;
    case 0x02:
    case 0x0d:
    case 0x0e:
      return at + 4 + int32(bytes, at);
    case 0x03:
    case 0x04:
    case 0x0f:
      return at + int32(bytes, at);
    case 0x05:
      return at + 5 + int32(bytes, at);
    case 0x0b: {
      const pattern = bytes.indexOf(0, at);
      const flags = pattern < 0 ? -1 : bytes.indexOf(0, pattern + 1);
      if (flags < 0) throw GIVE_UP;
      return flags + 1;
    }
    case 0x0c:
      return at + 4 + int32(bytes, at) + 12;
    default:
      throw GIVE_UP;
  }
}

/** The little-endian int32 at `bytes[at]`: Buffer's readInt32LE checks bounds, a cost on hot paths. */
export function int32(bytes: Buffer, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
}

const FLOAT = new Float64Array(1);
const FLOAT_BYTES = new Uint8Array(FLOAT.buffer);

function float64(bytes: Buffer, at: number): number {
  for (let i = 0; i < 8; i++) FLOAT_BYTES[i] = bytes[at + i];
  return FLOAT[0];
}

/** The document or array whose header is at `start`; `end` is where it must end. */
function readObject(bytes: Buffer, start: number, end: number, isArray: boolean): Document | unknown[] {
  if (end > bytes.length || int32(bytes, start) !== end - start || bytes[end - 1] !== 0) throw GIVE_UP;
  const out: Document = {};
  const list: unknown[] = [];
  let at = start + 4;
  while (at < end - 1) {
    const type = bytes[at++];
    const nameEnd = bytes.indexOf(0, at);
    if (nameEnd < 0 || nameEnd >= end) throw GIVE_UP;
    const name = isArray ? "" : fieldName(bytes, at, nameEnd);
    at = nameEnd + 1;
    const value = readValue(bytes, type, at, end);
    at = valueEnd;
    if (at > end - 1) throw GIVE_UP;
    if (isArray) list.push(value);
    else out[name] = value;
  }
  return isArray ? list : out;
}

/** Where the value {@link readValue} read last ends. */
let valueEnd = 0;

/** The value of type `type` starting at `at` (inside a document ending at `end`); sets {@link valueEnd}. */
function readValue(bytes: Buffer, type: number, at: number, end: number): unknown {
  let value: unknown;
  switch (type) {
    case 0x01:
      value = float64(bytes, at);
      at += 8;
      break;
    case 0x02: {
      const size = int32(bytes, at);
      if (size < 1 || at + 4 + size > end || bytes[at + 3 + size] !== 0) throw GIVE_UP;
      value = size <= SHARED_TEXT_BYTES
        ? sharedText(bytes, at + 4, at + 3 + size)
        : ascii(bytes, at + 4, at + 3 + size);
      at += 4 + size;
      break;
    }
    case 0x03:
    case 0x04: {
      const size = int32(bytes, at);
      if (size < 5 || at + size > end) throw GIVE_UP;
      value = readObject(bytes, at, at + size, type === 0x04);
      at += size;
      break;
    }
    case 0x07:
      if (at + 12 > end) throw GIVE_UP;
      value = new ObjectId(bytes.subarray(at, at + 12));
      at += 12;
      break;
    case 0x08:
      if (bytes[at] > 1) throw GIVE_UP;
      value = bytes[at++] === 1;
      break;
    case 0x09:
      // As the bson library computes it: high word * 2^32 + unsigned low word.
      value = new Date(int32(bytes, at + 4) * 4294967296 + (int32(bytes, at) >>> 0));
      at += 8;
      break;
    case 0x0a:
      value = null;
      break;
    case 0x10:
      value = int32(bytes, at);
      at += 4;
      break;
    case 0x12:
      // Kept a Long, as the engine's options (promoteLongs: false) ask of the library.
      value = new Long(int32(bytes, at), int32(bytes, at + 4));
      at += 8;
      break;
    default:
      throw GIVE_UP;
  }
  valueEnd = at;
  return value;
}

/** A field name, from the cache when the same bytes were decoded before. */
function fieldName(bytes: Buffer, from: number, to: number): string {
  const length = to - from;
  if (length === 0 || bytes[from] === 0x24) throw GIVE_UP; // "$" names may form a DBRef
  const slot = (length * 31 + bytes[from] * 7 + bytes[to - 1]) & (CACHE_SIZE - 1);
  const cached = names[slot];
  if (cached !== undefined && cached.length === length) {
    let same = true;
    for (let i = 0; same && i < length; i++) same = cached.charCodeAt(i) === bytes[from + i];
    if (same) return cached;
  }
  const name = ascii(bytes, from, to);
  if (isHazardousName(name)) {
    if (name === "__proto__") throw GIVE_UP; // the library defines it as a field
    sawHazardousName = true;
    return name;
  }
  names[slot] = name;
  return name;
}

/** ASCII text in `bytes[from, to)`; gives up on any other byte (UTF-8 is left to the library). */
function ascii(bytes: Buffer, from: number, to: number): string {
  for (let i = from; i < to; i++) if (bytes[i] > 0x7f || bytes[i] === 0) throw GIVE_UP;
  return bytes.toString("latin1", from, to);
}

/** ASCII text in `bytes[from, to)` as {@link ascii}, shared with an equal recent value. */
function sharedText(bytes: Buffer, from: number, to: number): string {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    const b = bytes[i];
    if (b > 0x7f || b === 0) throw GIVE_UP;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  const slot = (hash >>> 0) & (TEXT_CACHE_SIZE - 1);
  const cached = texts[slot];
  if (cached !== undefined && cached.length === to - from) {
    let same = true;
    for (let i = 0; same && i < cached.length; i++) same = cached.charCodeAt(i) === bytes[from + i];
    if (same) return cached;
  }
  return (texts[slot] = bytes.toString("latin1", from, to));
}
