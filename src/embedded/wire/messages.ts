import { Buffer } from "node:buffer";
import type { Document } from "bson";
import { isPlainObject, readDocument, writeDocument } from "../bson.ts";
import { crc32c } from "./crc32c.ts";
import { HEADER_SIZE, ProtocolError } from "./frames.ts";

/** Opcodes the engine speaks. */
export const OP_REPLY = 1;
/** Legacy query: only used by drivers for the first hello of a connection. */
export const OP_QUERY = 2004;
/** The modern message format, used for every command after the handshake. */
export const OP_MSG = 2013;

const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
/** Bits 0-15 are "required": an unknown one set means we cannot interpret the message. */
const REQUIRED_BITS = 0xffff;

/** Size limits announced in hello and enforced on requests. */
export interface WireLimits {
  maxBsonObjectSize: number;
  maxMessageSizeBytes: number;
}

/** A parsed command request. */
export interface Request {
  requestId: number;
  opCode: number;
  db: string;
  body: Document;
  /** Kind-1 document sequences by identifier (e.g. `documents` of an insert). */
  sequences: Map<string, Document[]>;
  /** The client expects no reply (fire-and-forget write). */
  moreToCome: boolean;
  /** A document larger than maxBsonObjectSize was sent; the command must fail with 10334. */
  tooLarge?: string;
}

function docAt(frame: Buffer, offset: number, end: number): { doc: Document; size: number } {
  if (offset + 5 > end) throw new ProtocolError("truncated document");
  const size = frame.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new ProtocolError("bad document length");
  try {
    return { doc: readDocument(frame.subarray(offset, offset + size)), size };
  } catch (error) {
    throw new ProtocolError(`invalid BSON: ${(error as Error).message}`);
  }
}

function cstringEnd(frame: Buffer, offset: number, end: number): number {
  const zero = frame.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new ProtocolError("unterminated string");
  return zero;
}

function parseSequence(frame: Buffer, offset: number, end: number, limits: WireLimits, request: Request): number {
  if (offset + 4 > end) throw new ProtocolError("truncated section");
  const size = frame.readInt32LE(offset);
  const sectionEnd = offset + size;
  if (size < 5 || sectionEnd > end) throw new ProtocolError("bad section length");
  const nameEnd = cstringEnd(frame, offset + 4, sectionEnd);
  const name = frame.toString("latin1", offset + 4, nameEnd);
  const docs: Document[] = [];
  for (let p = nameEnd + 1; p < sectionEnd;) {
    const { doc, size: docSize } = docAt(frame, p, sectionEnd);
    if (docSize > limits.maxBsonObjectSize) request.tooLarge ??= `${name}[${docs.length}]`;
    docs.push(doc);
    p += docSize;
  }
  // Two sequences of one name would leave which one the command acts on to chance.
  if (request.sequences.has(name)) throw new ProtocolError(`Duplicate document sequence: ${name}`);
  request.sequences.set(name, docs);
  return sectionEnd;
}

function parseMsg(frame: Buffer, requestId: number, limits: WireLimits): Request {
  if (frame.length < HEADER_SIZE + 5) throw new ProtocolError("truncated OP_MSG");
  const flags = frame.readUInt32LE(HEADER_SIZE);
  if (flags & REQUIRED_BITS & ~(CHECKSUM_PRESENT | MORE_TO_COME)) throw new ProtocolError("unknown required flag");
  const end = flags & CHECKSUM_PRESENT ? frame.length - 4 : frame.length;
  if (flags & CHECKSUM_PRESENT && (end < HEADER_SIZE + 5 || crc32c(frame, 0, end) !== frame.readUInt32LE(end))) {
    throw new ProtocolError("OP_MSG checksum does not match contents");
  }
  const request: Request = {
    requestId,
    opCode: OP_MSG,
    db: "",
    body: {},
    sequences: new Map(),
    moreToCome: (flags & MORE_TO_COME) !== 0,
  };
  let bodies = 0;
  for (let p = HEADER_SIZE + 4; p < end;) {
    const kind = frame[p++];
    if (kind === 0) {
      const { doc, size } = docAt(frame, p, end);
      if (size > limits.maxBsonObjectSize + 16 * 1024) request.tooLarge ??= "command";
      request.body = doc;
      bodies++;
      p += size;
    } else if (kind === 1) p = parseSequence(frame, p, end, limits, request);
    else throw new ProtocolError(`unknown section kind ${kind}`);
  }
  if (bodies !== 1) throw new ProtocolError("OP_MSG needs exactly one body section");
  for (const name of request.sequences.keys()) {
    // A field given both ways (deletes in the body and as a sequence) is as ambiguous.
    if (name in request.body) {
      throw new ProtocolError(`Duplicate field between command BSON and document sequence ${name}`);
    }
  }
  // A missing $db is refused when the command runs (40571), with a reply rather than a closed connection.
  request.db = typeof request.body.$db === "string" ? request.body.$db : "";
  return request;
}

function parseQuery(frame: Buffer, requestId: number): Request {
  const nameEnd = cstringEnd(frame, HEADER_SIZE + 4, frame.length);
  const ns = frame.toString("utf8", HEADER_SIZE + 4, nameEnd);
  const { doc } = docAt(frame, nameEnd + 9, frame.length);
  if ("$query" in doc && !isPlainObject(doc.$query)) throw new ProtocolError("$query must be a document");
  const body = "$query" in doc ? (doc.$query as Document) : doc;
  const dot = ns.indexOf(".");
  if (dot < 0 || ns.slice(dot + 1) !== "$cmd") throw new ProtocolError("OP_QUERY is only supported for commands");
  return { requestId, opCode: OP_QUERY, db: ns.slice(0, dot), body, sequences: new Map(), moreToCome: false };
}

/** Parses one frame into a request. Throws ProtocolError for anything malformed. */
export function parseRequest(frame: Buffer, limits: WireLimits): Request {
  const requestId = frame.readInt32LE(4);
  const opCode = frame.readInt32LE(12);
  if (opCode === OP_MSG) return parseMsg(frame, requestId, limits);
  if (opCode === OP_QUERY) return parseQuery(frame, requestId);
  throw new ProtocolError(`unsupported opcode ${opCode}`);
}

let nextRequestId = 1;

/** Writes the standard header into the first 16 bytes of `out`. */
export function writeHeader(out: Buffer, responseTo: number, opCode: number): void {
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(nextRequestId++ & 0x7fffffff, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(opCode, 12);
}

/** Completes an OP_MSG reply whose body was written after the first {@link MSG_PREFIX} bytes. */
export function finishMsg(out: Buffer, responseTo: number): Buffer {
  writeHeader(out, responseTo, OP_MSG);
  out.writeUInt32LE(0, HEADER_SIZE);
  out[HEADER_SIZE + 4] = 0;
  return out;
}

/** Bytes an OP_MSG reply needs before its body. */
export const MSG_PREFIX = HEADER_SIZE + 5;

/** Encodes a reply document for the request's opcode (OP_REPLY for OP_QUERY, else OP_MSG). */
export function encodeReply(request: Request, doc: Document): Buffer {
  const body = writeDocument(doc);
  if (request.opCode === OP_QUERY) {
    const out = Buffer.allocUnsafe(HEADER_SIZE + 20 + body.length);
    writeHeader(out, request.requestId, OP_REPLY);
    out.writeInt32LE(0, 16);
    out.writeBigInt64LE(0n, 20);
    out.writeInt32LE(0, 28);
    out.writeInt32LE(1, 32);
    out.set(body, 36);
    return out;
  }
  const out = Buffer.allocUnsafe(MSG_PREFIX + body.length);
  out.set(body, MSG_PREFIX);
  return finishMsg(out, request.requestId);
}
