import type { IncomingMessage } from "./node-http.ts";
import { type BodyHooks, bodyStream } from "./node-body.ts";
import { createNodeHeaders } from "./node-headers.ts";
import { chainToReal } from "./node-lazy.ts";

/** What a lazy request needs to make its body stream, if anyone asks for it. */
export interface BodySource extends BodyHooks {
  /** Largest body accepted, in bytes. */
  limit: number;
}

/**
 * A Request over an IncomingMessage that costs almost nothing until used. `new Request()` on
 * Node costs about as much as answering a whole request, and most handlers only look at the
 * method, URL and a header or two; those are served from the IncomingMessage. The real Request
 * (with a streamed body and an abort signal) is made the first time anything else is touched.
 */
class NodeRequest {
  readonly #req: IncomingMessage;
  readonly #url: string;
  readonly #source: BodySource;
  #headers: Headers | undefined;
  #real: Request | undefined;
  #controller: AbortController | undefined;
  #aborted = false;

  constructor(req: IncomingMessage, url: string, source: BodySource) {
    this.#req = req;
    this.#url = url;
    this.#source = source;
  }

  get method(): string {
    return this.#req.method ?? "GET";
  }

  get url(): string {
    return this.#url;
  }

  get headers(): Headers {
    this.#headers ??= this.#real?.headers ?? createNodeHeaders(this.#req.rawHeaders);
    return this.#headers;
  }

  #materialise(): Request {
    if (this.#real) return this.#real;
    this.#controller = new AbortController();
    if (this.#aborted) this.#controller.abort(clientGone());
    const method = this.method;
    const init: RequestInit & { duplex?: "half" } = { method, headers: this.headers, signal: this.#controller.signal };
    if (method !== "GET" && method !== "HEAD" && hasBody(this.#req)) {
      init.body = bodyStream(this.#req, this.#source.limit, this.#source);
      init.duplex = "half";
    }
    this.#real = new Request(this.#url, init);
    return this.#real;
  }

  /** Aborts the signal of a NodeRequest (now, or when it gets one); ignores other requests. */
  static abort(request: Request): void {
    if (!(#req in request)) return;
    const lazy = request as unknown as NodeRequest;
    lazy.#aborted = true;
    lazy.#controller?.abort(clientGone());
  }

  static {
    chainToReal(NodeRequest, Request, new Request("http://localhost/"), (self: NodeRequest) => self.#materialise());
  }
}

/** Whether the message framing announces a body (a Request has a null body otherwise). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** The abort reason, named as fetch names an abort so handlers can tell it apart. */
function clientGone(): DOMException {
  return new DOMException("The client closed the connection.", "AbortError");
}

/** A Request for an IncomingMessage whose absolute URL is already known. */
export function createNodeRequest(req: IncomingMessage, url: string, source: BodySource): Request {
  return new NodeRequest(req, url, source) as unknown as Request;
}

/** Aborts the signal of a request made by createNodeRequest, whether or not it was read yet. */
export function abortNodeRequest(request: Request): void {
  NodeRequest.abort(request);
}
