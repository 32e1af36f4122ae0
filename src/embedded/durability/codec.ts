import { Buffer } from "node:buffer";
import { BSON, type Document } from "bson";
import { SERIALIZE } from "../bson.ts";
import type { Change, EncodedPut, RecoveredChange } from "../changes.ts";
import { decodeDocumentAt, nameIs, textAt, walkFields } from "../decode.ts";

/**
 * BSON encoding of Changes. A record payload is a run of BSON documents, one per Change, each
 * self-delimited by its own length; this keeps a large batch clear of BSON's 16 MiB limit on
 * a single document. The Change object itself is the document, so a delete's `id` (any BSON
 * value) and a put's `doc` are just fields.
 */

const OPS = new Set<string>([
  "put",
  "delete",
  "createCollection",
  "dropCollection",
  "renameCollection",
  "dropDatabase",
  "createIndex",
  "dropIndex",
  "setIndexExpiry",
  "setOptions",
  "indexOrder",
]);

/** Encodes changes as one record payload. */
export function encodeChanges(changes: Iterable<Change>): Buffer {
  const parts: Uint8Array[] = [];
  for (const change of changes) parts.push(encodeDocument(change as unknown as Document));
  return Buffer.concat(parts);
}

/**
 * Encodes one change as its document; a put left encoded becomes the put record it was read
 * from, its document's bytes copied as they are, after the fields {@link encodeDocument}
 * writes first (op, db, coll).
 */
export function encodeChange(change: RecoveredChange): Uint8Array {
  if (change.op !== "putEncoded") return encodeDocument(change as unknown as Document);
  const head = putHead(change.db, change.coll);
  const total = 4 + head.length + change.length + 1;
  const out = Buffer.allocUnsafe(total);
  out.writeInt32LE(total, 0);
  out.set(head, 4);
  out.set(change.bytes.subarray(change.start, change.start + change.length), 4 + head.length);
  out[total - 1] = 0;
  return out;
}

/** The elements of a put record before its document's bytes, per collection (a snapshot writes millions). */
const PUT_HEADS = new Map<string, Buffer>();

function putHead(db: string, coll: string): Buffer {
  const key = `${db}\0${coll}`;
  let head = PUT_HEADS.get(key);
  if (head === undefined) {
    const docName = Buffer.from([0x03, ...Buffer.from("doc"), 0]);
    head = Buffer.concat([stringElement("op", "put"), stringElement("db", db), stringElement("coll", coll), docName]);
    if (PUT_HEADS.size >= 1024) PUT_HEADS.clear();
    PUT_HEADS.set(key, head);
  }
  return head;
}

/** A BSON string element `name: value`: type, name, length, UTF-8 bytes, terminators. */
function stringElement(name: string, value: string): Buffer {
  const text = Buffer.from(value, "utf8");
  const length = Buffer.alloc(4);
  length.writeInt32LE(text.length + 1);
  return Buffer.concat([
    Buffer.from([0x02]),
    Buffer.from(name, "utf8"),
    Buffer.from([0]),
    length,
    text,
    Buffer.from([0]),
  ]);
}

/** Encodes a single document (also used for snapshot header and trailer records). */
export function encodeDocument(doc: Document): Uint8Array {
  // The wire's options: a recovered document has the same types the engine held before.
  return BSON.serialize(doc, SERIALIZE);
}

/** True if `doc` looks like a Change (has a known `op`). */
export function isChange(doc: Document): boolean {
  return typeof doc.op === "string" && OPS.has(doc.op);
}

/** The one put recovery hands out at a time (see {@link encodedPutAt}). */
const PUT: EncodedPut = { op: "putEncoded", db: "", coll: "", bytes: new Uint8Array(0), start: 0, length: 0 };

/**
 * The put change encoded at `view[offset, offset + length)`, with its document left encoded
 * (recovery stores documents as the bytes they are); undefined for any other change. The same
 * object is returned each time, valid until the next call: recovery applies it at once, and a
 * million puts then allocate nothing here.
 */
export function encodedPutAt(view: Buffer, offset: number, length: number): EncodedPut | undefined {
  let op: string | undefined;
  let db: string | undefined;
  let coll: string | undefined;
  let docAt = -1;
  const walked = walkFields(view, offset, length, (from, to, type, at) => {
    if (type === 0x02 && nameIs(view, from, to, "op")) op = textAt(view, at);
    else if (type === 0x02 && nameIs(view, from, to, "db")) db = textAt(view, at);
    else if (type === 0x02 && nameIs(view, from, to, "coll")) coll = textAt(view, at);
    else if (type === 0x03 && nameIs(view, from, to, "doc")) docAt = at;
    else return false; // a field a put does not have
    return op === undefined || op === "put";
  });
  if (!walked || op !== "put" || db === undefined || coll === undefined || docAt < 0) return undefined;
  const docLength = view.readInt32LE(docAt);
  if (docLength < 5 || docAt + docLength > offset + length - 1) return undefined;
  PUT.db = db;
  PUT.coll = coll;
  PUT.bytes = view;
  PUT.start = docAt;
  PUT.length = docLength;
  return PUT;
}

/**
 * Replays a payload written by `encodeChanges` through `apply`, puts left encoded (see
 * {@link encodedPutAt}). Throws if the payload is not a clean run.
 */
export function replayChanges(payload: Uint8Array, apply: (change: RecoveredChange) => void): void {
  forEachDocument(payload, (view, offset, length) => {
    const put = encodedPutAt(view, offset, length);
    if (put !== undefined) return apply(put);
    const doc = decodeDocumentAt(view, offset, length);
    if (!isChange(doc)) throw new Error(`record holds an unknown change (op ${String(doc.op)})`);
    apply(doc as unknown as Change);
  });
}

/** Calls `visit` with the place of each BSON document of a payload. Throws if the payload is not a clean run. */
export function forEachDocument(
  payload: Uint8Array,
  visit: (view: Buffer, offset: number, length: number) => void,
): void {
  const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let offset = 0;
  while (offset < view.length) {
    if (view.length - offset < 5) throw new Error("record payload ends inside a BSON length");
    const length = view.readInt32LE(offset);
    if (length < 5 || offset + length > view.length) {
      throw new Error(`record payload holds a BSON document of bad length ${length}`);
    }
    visit(view, offset, length);
    offset += length;
  }
}

/** A recovered change as a plain {@link Change}: an encoded put's document decoded (tests and tools). */
export function asChange(change: RecoveredChange): Change {
  if (change.op !== "putEncoded") return change;
  const { db, coll, bytes, start, length } = change;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { op: "put", db, coll, doc: decodeDocumentAt(view, start, length) };
}
