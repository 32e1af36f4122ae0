import type { IncomingMessage } from "node:http";

/** Raised into a request body stream once more bytes arrived than the adapter accepts. */
export class BodyLimitError extends Error {
  /** The limit that was passed, in bytes. */
  readonly limit: number;

  constructor(limit: number) {
    super(`The request body is larger than the limit of ${limit} bytes.`);
    this.name = "BodyLimitError";
    this.limit = limit;
  }
}

/** What a request body stream reports back to the adapter that owns the socket. */
export interface BodyHooks {
  /** Called before the first read: the place to answer `Expect: 100-continue`. */
  onFirstRead(): void;
  /** Called once when the body outgrew the limit; the stream is already errored. */
  onOverflow(error: BodyLimitError): void;
}

/**
 * The body of an IncomingMessage as a web ReadableStream. Reads only when the consumer pulls
 * (the socket is paused otherwise, so a slow reader slows the client down instead of filling
 * memory) and errors the stream as soon as the byte count passes `limit`, without reading on.
 */
export function bodyStream(req: IncomingMessage, limit: number, hooks: BodyHooks): ReadableStream<Uint8Array> {
  let controller: ReadableStreamDefaultController<Uint8Array>;
  let received = 0;
  let settled = false;
  let started = false;

  const stop = (): boolean => {
    if (settled) return false;
    settled = true;
    req.off("data", onData);
    return true;
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      req.pause();
      const error = new BodyLimitError(limit);
      if (stop()) controller.error(error);
      hooks.onOverflow(error);
      return;
    }
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      req.on("data", onData);
      req.pause();
      req.once("end", () => stop() && controller.close());
      req.once("error", (error) => stop() && controller.error(error));
      // Node emits 'close' without 'end' or 'error' when the client goes away mid-body.
      req.once("close", () => stop() && controller.error(new Error("The client closed the connection mid-body.")));
    },
    pull() {
      if (!started) {
        started = true;
        hooks.onFirstRead();
      }
      req.resume();
    },
    cancel() {
      // Discard the rest, as node:http does with a body nobody read, so that a keep-alive
      // connection can carry the next request.
      stop();
      req.resume();
    },
  }, { highWaterMark: 1 });
}
