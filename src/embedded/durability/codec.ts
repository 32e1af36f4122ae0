import { Buffer } from "node:buffer";
import { BSON, type Document } from "bson";
import { SERIALIZE } from "../bson.ts";
import type { Change } from "../changes.ts";
import { decodeDocumentAt } from "./decode.ts";

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
  "dropDatabase",
  "createIndex",
  "dropIndex",
  "setOptions",
  "indexOrder",
]);

/** Encodes changes as one record payload. */
export function encodeChanges(changes: Iterable<Change>): Buffer {
  const parts: Uint8Array[] = [];
  for (const change of changes) parts.push(encodeDocument(change as unknown as Document));
  return Buffer.concat(parts);
}

/** Encodes a single document (also used for snapshot header and trailer records). */
export function encodeDocument(doc: Document): Uint8Array {
  // The wire's options: a recovered document has the same types the engine held before.
  return BSON.serialize(doc, SERIALIZE);
}

/** Splits a record payload into its documents. Throws if the payload is not a clean run. */
export function decodeDocuments(payload: Uint8Array): Document[] {
  const docs: Document[] = [];
  const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let offset = 0;
  while (offset < view.length) {
    if (view.length - offset < 5) throw new Error("record payload ends inside a BSON length");
    const length = view.readInt32LE(offset);
    if (length < 5 || offset + length > view.length) {
      throw new Error(`record payload holds a BSON document of bad length ${length}`);
    }
    docs.push(decodeDocumentAt(view, offset, length));
    offset += length;
  }
  return docs;
}

/** True if `doc` looks like a Change (has a known `op`). */
export function isChange(doc: Document): boolean {
  return typeof doc.op === "string" && OPS.has(doc.op);
}

/** Decodes a payload written by `encodeChanges`. */
export function decodeChanges(payload: Uint8Array): Change[] {
  return decodeDocuments(payload).map((doc) => {
    if (!isChange(doc)) throw new Error(`record holds an unknown change (op ${String(doc.op)})`);
    return doc as unknown as Change;
  });
}
