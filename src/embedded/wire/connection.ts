import type { Buffer } from "node:buffer";
import { clearTimeout, setTimeout } from "node:timers";
import type { Socket } from "node:net";
import type { Document } from "bson";
import { firstKey, readDocument } from "../bson.ts";
import type { EngineState, Reply } from "../commands/context.ts";
import { dispatch } from "../commands/registry.ts";
import { errorReply } from "../errors.ts";
import { Batch } from "../cursors.ts";
import { encodeBatch } from "./batch-reply.ts";
import { FrameReader } from "./frames.ts";
import type { ConnectionLimits } from "./limits.ts";
import type { ScramSession } from "./scram.ts";
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
export function serveConnection(
  socket: Socket,
  id: number,
  engine: EngineState,
  limits: ConnectionLimits,
  track: (done: Promise<void>) => void,
  auth?: ScramSession,
): void {
  new Connection(socket, id, engine, limits, track, auth).start();
}

/**
 * One client connection. Messages are answered one at a time, in order, as MongoDB does: a
 * command still running holds the next one back. While more reply bytes wait unsent than
 * the limit allows, or a message waits its turn, the socket is not read, so a client that
 * does not read its replies cannot make the engine buffer without bound. A message must
 * arrive whole within `frameTimeoutMS`, and a connection doing nothing for `idleTimeoutMS`
 * is closed.
 */
class Connection {
  readonly #socket: Socket;
  readonly #id: number;
  readonly #engine: EngineState;
  readonly #limits: ConnectionLimits;
  readonly #track: (done: Promise<void>) => void;
  readonly #reader: FrameReader;
  /** Whole messages received and not yet handled, oldest first. */
  #queue: Buffer[] = [];
  /** A command is running: nothing else is handled until it answers. */
  #busy = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** What the armed timer waits for: a message to complete, or any activity. */
  #timerKind: "frame" | "idle" | undefined;
  /** On a port that requires authentication: this connection's SCRAM state. */
  readonly #auth: ScramSession | undefined;

  constructor(
    socket: Socket,
    id: number,
    engine: EngineState,
    limits: ConnectionLimits,
    track: (done: Promise<void>) => void,
    auth?: ScramSession,
  ) {
    this.#auth = auth;
    this.#socket = socket;
    this.#id = id;
    this.#engine = engine;
    this.#limits = limits;
    this.#track = track;
    this.#reader = new FrameReader(engine.limits.maxMessageSizeBytes);
  }

  start(): void {
    const socket = this.#socket;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("drain", () => this.#pump());
    socket.on("error", () => this.#fail());
    socket.on("close", () => this.#setTimer(undefined));
    this.#setTimer("idle");
  }

  #receive(chunk: Buffer): void {
    if (this.#socket.destroyed) return;
    this.#engine.counters.network.bytesIn += chunk.length;
    let completed = 0;
    try {
      for (const frame of this.#reader.push(chunk)) completed = this.#queue.push(frame);
    } catch {
      return this.#fail();
    }
    // A message that begins in the chunk that ended the last one gets a deadline of its own.
    if (completed > 0 && this.#timerKind === "frame") this.#setTimer(undefined);
    this.#pump();
  }

  /** Handles queued messages while nothing holds them back, then decides whether to read on. */
  #pump(): void {
    const socket = this.#socket;
    while (
      !this.#busy && this.#queue.length > 0 && !socket.destroyed &&
      socket.writableLength <= this.#limits.maxUnsentReplyBytes
    ) {
      this.#handle(this.#queue.shift()!);
    }
    if (socket.destroyed) return;
    const held = this.#busy || this.#queue.length > 0;
    if (held) socket.pause();
    else socket.resume();
    this.#setTimer(this.#busy ? undefined : this.#reader.partial ? "frame" : "idle");
  }

  #handle(frame: Buffer): void {
    let request: Request;
    try {
      request = parseRequest(frame, this.#engine.limits);
    } catch {
      return this.#fail();
    }
    const engine = this.#engine;
    engine.counters.network.numRequests++;
    let reply: Reply | Promise<Reply>;
    const answered = this.#auth && this.#authenticate(request);
    if (answered) return this.#send(request, answered);
    try {
      reply = dispatch({ engine, request, db: request.db, body: request.body, connectionId: this.#id });
    } catch (error) {
      // dispatch answers every failure itself; should a bug still throw, one client gets an error, not the process.
      reply = errorReply(error);
    }
    if (!(reply instanceof Promise)) return this.#send(request, reply);
    // Only commands still running need tracking (and a promise): reads answer at once.
    this.#busy = true;
    this.#track(
      reply.then(
        (done) => {
          this.#busy = false;
          this.#send(request, done);
          this.#pump();
        },
        () => this.#fail(),
      ),
    );
  }

  /** On an authenticating port: the SASL exchange's reply, or the refusal of a command before it succeeded. */
  #authenticate(request: Request): Document | undefined {
    const auth = this.#auth!;
    const body = request.body;
    const name = firstKey(body) ?? "";
    const answered = auth.answer(name, body);
    if (answered !== undefined) return answered;
    const mechanisms = name === "hello" || name.toLowerCase() === "ismaster" ? auth.mechanisms(body) : undefined;
    if (mechanisms === undefined) return undefined;
    // The handshake, plus the mechanism this port speaks (drivers pick SCRAM-SHA-1 without it).
    const hello = dispatch({ engine: this.#engine, request, db: request.db, body, connectionId: this.#id });
    return { ...(hello as Document), saslSupportedMechs: mechanisms };
  }

  #send(request: Request, reply: Reply): void {
    const socket = this.#socket;
    if (request.moreToCome || socket.destroyed) return;
    let bytes: Uint8Array;
    try {
      bytes = encode(request, reply);
    } catch (error) {
      // A reply too large to send (BSONObjectTooLarge) is answered with the error instead.
      try {
        bytes = encode(request, errorReply(error));
      } catch {
        return this.#fail();
      }
    }
    this.#engine.counters.network.bytesOut += bytes.length;
    socket.write(bytes);
  }

  /** Arms the timer for `kind`; one already armed for the same kind starts over. */
  #setTimer(kind: "frame" | "idle" | undefined): void {
    if (kind !== undefined && kind === this.#timerKind) {
      // A frame keeps the deadline of its first bytes; any activity restarts the idle clock.
      if (kind === "idle") this.#timer!.refresh();
      return;
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerKind = kind;
    if (kind === undefined || this.#socket.destroyed) {
      this.#timer = undefined;
      return;
    }
    const ms = kind === "frame" ? this.#limits.frameTimeoutMS : this.#limits.idleTimeoutMS;
    this.#timer = setTimeout(() => this.#fail(), ms);
    this.#timer.unref();
  }

  #fail(): void {
    this.#setTimer(undefined);
    this.#queue = [];
    this.#socket.destroy();
  }
}
