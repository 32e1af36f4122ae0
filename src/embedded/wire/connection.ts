import type { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import type { Document } from "bson";
import { readDocument } from "../bson.ts";
import type { EngineState, Reply } from "../commands/context.ts";
import { dispatch } from "../commands/registry.ts";
import { errorReply } from "../errors.ts";
import { Batch } from "../cursors.ts";
import { encodeBatch } from "./batch-reply.ts";
import { FrameReader } from "./frames.ts";
import { encodeReply, OP_MSG, parseRequest, type Request } from "./messages.ts";

/** A batch as an ordinary document, for the rare cursor reply sent over OP_QUERY. */
function batchDocument(batch: Batch): Document {
  const docs = batch.docs.map((bytes) => readDocument(bytes));
  return { cursor: { [batch.field]: docs, id: batch.cursorId, ns: batch.ns }, ok: 1 };
}

function encodeAny(request: Request, reply: Reply): Uint8Array {
  if (!(reply instanceof Batch)) return encodeReply(request, reply);
  return request.opCode === OP_MSG ? encodeBatch(reply, request.requestId) : encodeReply(request, batchDocument(reply));
}

/** Encodes a reply; one that cannot be encoded (e.g. too large) becomes an error reply. */
function encode(request: Request, reply: Reply): Uint8Array {
  try {
    return encodeAny(request, reply);
  } catch (error) {
    return encodeReply(request, errorReply(error));
  }
}

/**
 * Serves one client socket. Anything malformed (bad length, garbage, unknown opcode, invalid
 * BSON) destroys this socket only; command failures are replies, never exceptions.
 * `track` receives each command's completion, so the engine can wait for writes in flight
 * before closing its store.
 */
export function serveConnection(socket: Socket, id: number, engine: EngineState, track: (done: Promise<void>) => void): void {
  const reader = new FrameReader(engine.limits.maxMessageSizeBytes);
  socket.setNoDelay(true);
  const fail = (): void => {
    socket.destroy();
  };
  const send = (request: Request, reply: Reply): void => {
    if (!request.moreToCome && !socket.destroyed) socket.write(encode(request, reply));
  };
  const handle = (frame: Buffer): void => {
    let request: Request;
    try {
      request = parseRequest(frame, engine.limits);
    } catch {
      return fail();
    }
    const reply = dispatch({ engine, request, db: request.db, body: request.body, connectionId: id });
    // Only commands still running need tracking (and a promise): reads answer at once.
    if (reply instanceof Promise) {
      track(reply.then((done) => send(request, done)).catch(fail));
      return;
    }
    try {
      send(request, reply);
    } catch {
      fail();
    }
  };
  socket.on("data", (chunk: Buffer) => {
    if (socket.destroyed) return;
    let frames: Buffer[];
    try {
      frames = reader.push(chunk);
    } catch {
      return fail();
    }
    for (const frame of frames) handle(frame);
  });
  socket.on("error", fail);
}
