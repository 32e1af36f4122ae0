import type { IncomingMessage } from "./node-http.ts";
import { BodyLimitError } from "../../http/messages.ts";

export { BodyLimitError };

/** What a request body stream reports back to the adapter that owns the socket. */
export interface BodyHooks {
  /**
   * Called before the first read (the place to answer `Expect: 100-continue`), with a
   * function to call once the response is done: it stops reading for good, so a body the
   * handler left half-read neither stalls the connection nor fills memory.
   */
  onFirstRead(release: () => void): void;
  /** Called once when the body outgrew the limit; the stream is already errored. */
  onOverflow(error: BodyLimitError): void;
  /** Called when an unwanted body turned out too large to discard: the connection must close. */
  onAbandon(): void;
}

/**
 * The body of an IncomingMessage as a web ReadableStream. Nothing is read until the consumer
 * asks, and then one chunk per read (the socket is paused in between, so a slow reader slows
 * the client instead of filling memory). The stream errors as soon as the byte count passes
 * `limit`, without reading on. A body nobody reads is left to node:http, as usual.
 */
export function bodyStream(req: IncomingMessage, limit: number, hooks: BodyHooks): ReadableStream<Uint8Array> {
  let controller: ReadableStreamDefaultController<Uint8Array>;
  let received = 0;
  let started = false;
  let settled = false;

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
  const discard = (): void => discardRest(req, received, limit, hooks);
  const release = (): void => {
    if (!stop()) return;
    controller.error(new Error("The response was sent before the request body was read."));
    discard();
  };
  const begin = (): void => {
    started = true;
    req.on("data", onData);
    req.once("end", () => stop() && controller.close());
    req.once("error", (error) => stop() && controller.error(error));
    // Node emits 'close' without 'end' or 'error' when the client goes away mid-body.
    req.once("close", () => stop() && controller.error(new Error("The client closed the connection mid-body.")));
    hooks.onFirstRead(release);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    pull() {
      if (!started) begin();
      if (!settled) req.resume();
    },
    cancel() {
      if (stop()) discard();
    },
  }, { highWaterMark: 0 });
}

/**
 * Reads and drops the rest of a body nobody wants, so that the connection can carry the next
 * request, but only up to the limit (`received` bytes of it came already): past it, the
 * connection closes instead.
 */
function discardRest(req: IncomingMessage, received: number, limit: number, hooks: BodyHooks): void {
  const onDiscard = (chunk: Buffer): void => {
    received += chunk.length;
    if (received <= limit) return;
    req.pause();
    req.off("data", onDiscard);
    hooks.onAbandon();
  };
  req.on("data", onDiscard);
  req.resume();
}
