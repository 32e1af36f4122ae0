import type { FetchHandler, IncomingMessage, ServerResponse } from "./node-adapter.ts";
import { directResponse } from "./fast-response.ts";
import { bodyTooLargeMessage, INTERNAL_ERROR_BODY } from "./messages.ts";
import { BodyLimitError } from "./node-body.ts";
import { abortNodeRequest, createNodeRequest, type BodySource } from "./node-request.ts";
import { writeJson, writeResponse } from "./node-response.ts";
import { requestUrl } from "./node-url.ts";

/** What every exchange on one server shares. */
export interface ServerContext {
  fetch: FetchHandler;
  bodyLimit: number;
  /** Origin for requests without a Host header. */
  origin: string;
  /** Requests whose response is not done yet. */
  inFlight: number;
  /** Set once close() was called: responses from then on close their connection. */
  closing: Promise<void> | undefined;
  /** Called whenever inFlight drops to zero. */
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
    context.inFlight++;
    res.on("close", () => this.#closed());
    if (context.closing) res.shouldKeepAlive = false;
    if (declaredLength(this.#req) > this.limit) {
      // Refused before a byte of the body is read; the client may still be sending it.
      writeJson(res, 413, limitPayload(this.limit), true);
      return;
    }
    const url = requestUrl(this.#req, context.origin);
    if (url === undefined) {
      writeJson(res, 400, BAD_TARGET, true);
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
    const res = this.#res;
    if (!(response instanceof Response)) {
      this.#fail(new TypeError("The fetch handler did not return a Response."));
    } else if (res.headersSent || res.destroyed) {
      // Answered already (413) or the client is gone: release whatever the handler made.
      if (directResponse(response) === undefined) response.body?.cancel().catch(ignore);
    } else {
      this.#settleContinue();
      try {
        writeResponse(res, response, this.#req.method === "HEAD")?.catch((error: unknown) => this.#fail(error));
      } catch (error) {
        this.#fail(error);
      }
    }
  }

  /** Logs a failure and answers 500, keeping the details (and stack) off the wire. */
  #fail(error: unknown): void {
    // A handler failing on the body the adapter cut off has had its 413 already.
    if (!(error instanceof BodyLimitError)) console.error(error);
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    this.#settleContinue();
    writeJson(res, 500, INTERNAL_ERROR_BODY);
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
    if (!this.#res.headersSent) writeJson(this.#res, 413, limitPayload(error.limit), true);
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

  #closed(): void {
    // Closed before the response was done: the client went away.
    if (this.#request !== undefined && !this.#res.writableFinished) abortNodeRequest(this.#request);
    const context = this.#context;
    if (--context.inFlight === 0) context.onIdle?.();
  }
}

function ignore(): void {}

function limitPayload(limit: number): { error: string } {
  return { error: bodyTooLargeMessage(limit) };
}

/** The Content-Length the client declared, read from raw headers without building them all. */
function declaredLength(req: IncomingMessage): number {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 14 && name.toLowerCase() === "content-length") return Number(raw[i + 1]);
  }
  return 0;
}
