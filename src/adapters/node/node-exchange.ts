import type { FetchHandler, IncomingMessage, NodeInfo, ServerResponse } from "./node-http.ts";
import type { Refusal, Reply, ReplyHandler } from "../../http/reply.ts";
import { declaredLength, INTERNAL_ERROR_BODY } from "../../http/messages.ts";
import { type Message, msg, type Translator } from "../../i18n/message.ts";
import { BodyLimitError } from "./node-body.ts";
import { abortNodeRequest, type BodySource, createNodeRequest } from "./node-request.ts";
import { writeJson, writeReply, writeResponse } from "./node-response.ts";
import { Connection } from "./node-connection.ts";
import { requestUrl } from "./node-url.ts";

/** What every exchange on one server shares. */
export interface ServerContext {
  /**
   * The app served through its contract: its replies are written directly, and it answers the
   * requests the adapter refuses before calling it (so the refusal carries the app's headers
   * and gets its log line). Undefined when a plain fetch handler is served.
   */
  app: ReplyHandler<NodeInfo> | undefined;
  /** The plain fetch handler served, whose refusals the adapter answers itself; undefined for an app. */
  fetch: FetchHandler | undefined;
  bodyLimit: number;
  /** Translates the errors the adapter answers itself into the client's language. */
  languages: Translator;
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
  /** The connection this exchange came on (its address, and the exchanges its close ends). */
  readonly #connection: Connection;

  constructor(context: ServerContext, req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) {
    this.#connection = Connection.of(req.socket);
    this.limit = context.bodyLimit;
    this.#context = context;
    this.#req = req;
    this.#res = res;
    this.#continued = !expectsContinue;
  }

  /** Answers the request: refusals the adapter makes itself, or whatever the handler returns. */
  start(): void {
    const context = this.#context;
    if (context.closing) this.#res.shouldKeepAlive = false;
    if ((declaredLength(rawHeader(this.#req, "content-length")) ?? 0) > this.limit) {
      // Refused before a byte of the body is read; the client may still be sending it.
      this.#track();
      this.#handlerDone = true;
      this.#refuseEarly({ status: 413, message: tooLarge(this.limit) });
      return;
    }
    const url = requestUrl(this.#req, context.origin);
    if (url === undefined) {
      this.#track();
      this.#handlerDone = true;
      this.#refuse(400, msg("request.targetMalformed"));
      return;
    }
    this.#request = createNodeRequest(this.#req, url, this);
    this.#call(this.#request);
  }

  /**
   * Counts the exchange in flight until its response closes (shutdown waits for it), and
   * watches that close. Only exchanges that outlive the turn their request arrived in need it:
   * one answered at once (see {@link #sentAtOnce}) is over before anything else can run.
   */
  #track(): void {
    this.#context.inFlight.add(this);
    // On the response, and called by the connection's close too: on Node 20, responses still
    // queued behind a pipelined request never emit `close` once their socket is destroyed,
    // but the socket always does.
    this.#res.on("close", Exchange.#closer(this));
    this.#connection.open.add(this);
  }

  #call(request: Request): void {
    const { app, fetch } = this.#context;
    let result: Reply | Response | Promise<Reply | Response>;
    try {
      result = app !== undefined ? app.answer(request, this.#connection.info) : fetch!(request, this.#connection.info);
    } catch (error) {
      this.#track();
      this.#fail(error);
      return;
    }
    if (result instanceof Promise) {
      this.#track();
      result.then((answer) => this.#send(answer), (error: unknown) => this.#fail(error));
    } else if (!this.#sentAtOnce(result)) {
      this.#track();
      this.#send(result);
    }
  }

  /**
   * Writes a reply the app gave at once (a response-cache hit) in this same turn: node takes
   * all of it now, so the exchange is finished and was never in flight. Tracking it (two set
   * entries and a close listener, added and removed) cost 3-5% of such a request's CPU in A/B
   * runs. False when it must go the long way (a fetch handler's Response always does).
   */
  #sentAtOnce(answer: Reply | Response): boolean {
    const res = this.#res;
    if (this.#context.app === undefined || res.headersSent || res.destroyed) return false;
    this.#settleContinue();
    try {
      writeReply(res, answer as Reply, this.#req.method ?? "GET");
    } catch (error) {
      // Node refused the headers before writing anything: answer 500 the tracked way.
      this.#track();
      this.#fail(error);
      return true;
    }
    this.#handlerDone = true;
    this.#wireDone = true;
    return true;
  }

  /** Writes the app's reply, or the fetch handler's Response. */
  #send(answer: Reply | Response): void {
    this.#handlerSettled();
    const res = this.#res;
    const plain = this.#context.app === undefined;
    if (plain && !(answer instanceof Response)) {
      this.#fail(new TypeError("The fetch handler did not return a Response."));
    } else if (res.headersSent || res.destroyed) {
      // Answered already (413) or the client is gone: release whatever the handler made.
      if (plain) (answer as Response).body?.cancel().catch(ignore);
    } else {
      this.#settleContinue();
      const method = this.#req.method ?? "GET";
      try {
        if (plain) writeResponse(res, answer as Response, method).catch((error: unknown) => this.#fail(error));
        else writeReply(res, answer as Reply, method);
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
    if (error instanceof BodyLimitError) return this.#refuse(413, tooLarge(error.limit));
    this.#settleContinue();
    // The spec's constant text in every language, as the app's own 500; labelled like it.
    writeJson(res, 500, INTERNAL_ERROR_BODY, this.#clientLanguage());
  }

  /**
   * Refuses a request before its handler runs, through the app's own answer when it has one
   * (written as any response, on a connection that then closes: the body stays unread), else
   * as the adapter's `{error}`.
   */
  #refuseEarly(refusal: Refusal): void {
    const app = this.#context.app;
    const url = app && requestUrl(this.#req, this.#context.origin);
    const refused = url && this.#answeredRefusal(app!, url, refusal);
    if (!refused) return this.#refuse(refusal.status, refusal.message);
    this.#res.shouldKeepAlive = false;
    try {
      writeReply(this.#res, refused, this.#req.method ?? "GET");
    } catch (error) {
      this.#fail(error);
    }
  }

  /** The app's answer to a refusal, or undefined when it cannot give one. */
  #answeredRefusal(app: ReplyHandler<NodeInfo>, url: string, refusal: Refusal): Reply | undefined {
    try {
      const refused = app.refuse(createNodeRequest(this.#req, url, this), refusal, this.#connection.info);
      return refused.status === refusal.status ? refused : undefined;
    } catch (error) {
      console.error(error);
      return undefined;
    }
  }

  /** Answers `{error}` in the client's language and closes the connection (the body stays unread). */
  #refuse(status: number, message: Message): void {
    const language = this.#clientLanguage();
    writeJson(this.#res, status, { error: this.#context.languages.text(language, message) }, language, true);
  }

  /** The language negotiated from the request's Accept-Language: only the error paths need it. */
  #clientLanguage(): string {
    return this.#context.languages.negotiate(rawHeader(this.#req, "accept-language") ?? null);
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

  /**
   * The body outgrew the limit while the handler read it. The app answers that read's failure
   * with its own 413 (headers, log line and all), so it is left to; for a plain fetch handler
   * the adapter answers 413 now, unless too late. Either way the connection then closes.
   */
  onOverflow(error: BodyLimitError): void {
    if (this.#res.headersSent || this.#context.app !== undefined) this.onAbandon();
    else this.#refuse(413, tooLarge(error.limit));
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

  /**
   * The close listener, made by a function rather than as an arrow-function field: tsx's
   * keep-names transform wraps a named field's function in a defineProperty per request.
   */
  static #closer(exchange: Exchange): () => void {
    return () => exchange.#wireClosed();
  }

  /** Whether the response's headers have gone out (or are queued to). */
  get headersSent(): boolean {
    return this.#res.headersSent;
  }

  /** Its connection closed: the response is done with, sent or not. */
  socketClosed(): void {
    this.#wireClosed();
  }

  #wireClosed(): void {
    if (this.#wireDone) return;
    this.#wireDone = true;
    this.#connection.open.delete(this);
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

function tooLarge(limit: number): Message {
  return msg("request.bodyTooLarge", { limit });
}

/** A request header's first value (`name` in lower case), read from raw headers without building them all. */
function rawHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const candidate = raw[i]!;
    if (candidate.length === name.length && candidate.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}
