import type { FetchHandler, IncomingMessage, ServerResponse } from "./node-adapter.ts";
import { directResponse } from "../../http/fast-response.ts";
import { bodyTooLargeMessage, declaredLength, INTERNAL_ERROR_BODY } from "../../http/messages.ts";
import { BodyLimitError } from "./node-body.ts";
import { abortNodeRequest, createNodeRequest, type BodySource } from "./node-request.ts";
import { writeJson, writeResponse } from "./node-response.ts";
import { requestUrl } from "./node-url.ts";

/** What every exchange on one server shares. */
export interface ServerContext {
  fetch: FetchHandler;
  bodyLimit: number;
  /** Content-Language of the errors the adapter answers itself. */
  language: string;
  /** Origin for requests without a Host header. */
  origin: string;
  /**
   * Exchanges not finished yet: the handler is still running, or the response has not closed
   * (sent, or its socket gone). Shutdown waits for this set to empty, or for its deadline.
   */
  inFlight: Set<Exchange>;
  /** Set once close() was called: responses from then on close their connection. */
  closing: Promise<void> | undefined;
  /** Called whenever inFlight becomes empty. */
  onIdle: (() => void) | undefined;
}

const BAD_TARGET = { error: "The request target or Host header is malformed." };

/**
 * One request and its response, from the socket to the handler and back. A class rather than
 * closures: it is made for every request, and its methods are shared, not re-created (tsx's
 * keep-names transform makes each named closure cost a defineProperty per request as well).
 */
export class Exchange implements BodySource {
  /** Largest request body accepted, in bytes. */
  readonly limit: number;
  readonly #context: ServerContext;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  #request: Request | undefined;
  #continued: boolean;
  /** The handler has settled (or was never called): nothing of this exchange runs any more. */
  #handlerDone = false;
  /** The response closed, or its socket did: nothing more goes out. */
  #wireDone = false;
  /**
   * On the response and on the socket: on Node 20, responses still queued behind a pipelined
   * request never emit `close` once their socket is destroyed, but the socket always does.
   */
  readonly #onClose = (): void => this.#wireClosed();

  constructor(context: ServerContext, req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) {
    this.limit = context.bodyLimit;
    this.#context = context;
    this.#req = req;
    this.#res = res;
    this.#continued = !expectsContinue;
  }

  /** Answers the request: refusals the adapter makes itself, or whatever the handler returns. */
  start(): void {
    const context = this.#context;
    const res = this.#res;
    context.inFlight.add(this);
    res.on("close", this.#onClose);
    this.#req.socket.on("close", this.#onClose);
    if (context.closing) res.shouldKeepAlive = false;
    if ((declaredLength(contentLength(this.#req)) ?? 0) > this.limit) {
      // Refused before a byte of the body is read; the client may still be sending it.
      this.#handlerDone = true;
      writeJson(res, 413, limitPayload(this.limit), context.language, true);
      return;
    }
    const url = requestUrl(this.#req, context.origin);
    if (url === undefined) {
      this.#handlerDone = true;
      writeJson(res, 400, BAD_TARGET, context.language, true);
      return;
    }
    this.#request = createNodeRequest(this.#req, url, this);
    this.#call(this.#request);
  }

  #call(request: Request): void {
    let result: Response | Promise<Response>;
    try {
      const socket = this.#req.socket;
      result = this.#context.fetch(request, { remoteAddr: { hostname: socket.remoteAddress ?? "", port: socket.remotePort } });
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (result instanceof Response) this.#send(result);
    else Promise.resolve(result).then((response) => this.#send(response), (error: unknown) => this.#fail(error));
  }

  #send(response: Response): void {
    this.#handlerSettled();
    const res = this.#res;
    if (!(response instanceof Response)) {
      this.#fail(new TypeError("The fetch handler did not return a Response."));
    } else if (res.headersSent || res.destroyed) {
      // Answered already (413) or the client is gone: release whatever the handler made.
      if (directResponse(response) === undefined) response.body?.cancel().catch(ignore);
    } else {
      this.#settleContinue();
      try {
        writeResponse(res, response, this.#req.method ?? "GET")?.catch((error: unknown) => this.#fail(error));
      } catch (error) {
        this.#fail(error);
      }
    }
  }

  /** Logs a failure and answers 500, keeping the details (and stack) off the wire. */
  #fail(error: unknown): void {
    this.#handlerSettled();
    // A handler failing on the body the adapter cut off has had its 413 already; one failing
    // because its connection dropped (client gone, or cut by a server timeout) is no fault.
    if (!(error instanceof BodyLimitError) && !(this.#wireDone && isConnectionReset(error))) console.error(error);
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    this.#settleContinue();
    writeJson(res, 500, INTERNAL_ERROR_BODY, this.#context.language);
  }

  /**
   * A final answer to `Expect: 100-continue` before any 100: the client may or may not send
   * the body now, so the connection cannot be trusted with another request.
   */
  #settleContinue(): void {
    if (!this.#continued) this.#res.shouldKeepAlive = false;
  }

  /** The body stream is about to be read: time to tell a waiting client to send it. */
  onFirstRead(release: () => void): void {
    const res = this.#res;
    if (!this.#continued && !res.headersSent) res.writeContinue();
    this.#continued = true;
    res.on("finish", release);
  }

  /** The body outgrew the limit while the handler read it: answer 413 now, unless too late. */
  onOverflow(error: BodyLimitError): void {
    if (!this.#res.headersSent) writeJson(this.#res, 413, limitPayload(error.limit), this.#context.language, true);
    else this.onAbandon();
  }

  /** The rest of the body stays on the wire unread: this connection cannot carry another request. */
  onAbandon(): void {
    const res = this.#res;
    const socket = this.#req.socket;
    if (!res.headersSent) res.shouldKeepAlive = false;
    else if (res.writableFinished) socket.destroy();
    else res.on("finish", () => socket.destroy());
  }

  /** What a shutdown log names this exchange by: method and request target. */
  describe(): string {
    return `${this.#req.method} ${this.#req.url}`;
  }

  /** Shutdown's deadline passed: drop the connection, which aborts the request's signal. */
  cut(): void {
    this.#req.socket.destroy();
    this.#res.destroy();
  }

  #handlerSettled(): void {
    if (this.#handlerDone) return;
    this.#handlerDone = true;
    this.#finishIfDone();
  }

  #wireClosed(): void {
    if (this.#wireDone) return;
    this.#wireDone = true;
    this.#req.socket.off("close", this.#onClose);
    // Closed before the response was done: the client went away.
    if (this.#request !== undefined && !this.#res.writableFinished) abortNodeRequest(this.#request);
    this.#finishIfDone();
  }

  #finishIfDone(): void {
    if (!this.#handlerDone || !this.#wireDone) return;
    const context = this.#context;
    if (context.inFlight.delete(this) && context.inFlight.size === 0) context.onIdle?.();
  }
}

function ignore(): void {}

/**
 * Node's error for a request body whose connection closed before it was complete, or the
 * abort reason the adapter gives a request whose client went away.
 */
function isConnectionReset(error: unknown): boolean {
  if (error instanceof DOMException && error.name === "AbortError") return true;
  return (error as { code?: unknown } | null)?.code === "ECONNRESET";
}

function limitPayload(limit: number): { error: string } {
  return { error: bodyTooLargeMessage(limit) };
}

/** The raw Content-Length header, read from raw headers without building them all. */
function contentLength(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 14 && name.toLowerCase() === "content-length") return raw[i + 1];
  }
  return undefined;
}
