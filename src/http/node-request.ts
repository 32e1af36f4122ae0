import type { IncomingMessage } from "node:http";
import { bodyStream, type BodyHooks } from "./node-body.ts";

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
    this.#headers ??= this.#real?.headers ?? headersOf(this.#req.rawHeaders);
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
    Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);
    const own = new Set<string | symbol>(Reflect.ownKeys(NodeRequest.prototype));
    const real = (self: NodeRequest): Request => self.#materialise();
    for (const key of Reflect.ownKeys(Request.prototype)) {
      if (own.has(key) || key === "constructor" || key === Symbol.toStringTag) continue;
      const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, key)!;
      Object.defineProperty(NodeRequest.prototype, key, delegate(key, descriptor, real));
    }
    // The runtime's own code (`new Request(request)`, `fetch(request)`) reads internal slots
    // kept under symbol keys on each instance; serving those from the real Request lets a
    // lazy one pass through it too.
    for (const key of Object.getOwnPropertySymbols(new Request("http://localhost/"))) {
      Object.defineProperty(NodeRequest.prototype, key, slot(key, real));
    }
  }
}

/** A property that answers from the real object, made on first use by `materialise`. */
function delegate<T>(key: string | symbol, descriptor: PropertyDescriptor, materialise: (self: T) => object): PropertyDescriptor {
  if (typeof descriptor.value === "function") {
    const method = descriptor.value as (...args: unknown[]) => unknown;
    return {
      configurable: true,
      writable: true,
      value(this: T, ...args: unknown[]) {
        return method.apply(materialise(this), args);
      },
    };
  }
  return {
    configurable: true,
    get(this: T) {
      return Reflect.get(materialise(this), key);
    },
  };
}

/** An internal slot of the real object, read and written through. */
function slot<T>(key: symbol, materialise: (self: T) => object): PropertyDescriptor {
  return {
    configurable: true,
    get(this: T) {
      return Reflect.get(materialise(this), key);
    },
    set(this: T, value: unknown) {
      Reflect.set(materialise(this), key, value);
    },
  };
}

/** Headers from node's flat [name, value, name, value...] list, repeated names kept. */
function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** Whether the message framing announces a body (a Request has a null body otherwise). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function clientGone(): Error {
  return new Error("The client closed the connection.");
}

/** A Request for an IncomingMessage whose absolute URL is already known. */
export function createNodeRequest(req: IncomingMessage, url: string, source: BodySource): Request {
  return new NodeRequest(req, url, source) as unknown as Request;
}

/** Aborts the signal of a request made by createNodeRequest, whether or not it was read yet. */
export function abortNodeRequest(request: Request): void {
  NodeRequest.abort(request);
}
