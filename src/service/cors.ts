import type { HeaderRecord } from "../http/fast-response.ts";

/** `createApp({ cors })`: which browser origins may call the API. Off unless given. */
export interface CorsOptions {
  /** Allowed origins (`["https://app.example.com"]`, `["*"]` for any), or a predicate. */
  origin: readonly string[] | ((origin: string) => boolean);
  /** Methods a preflight allows; default every method the API serves. */
  methods?: readonly string[];
  /** Request headers a preflight allows; default whatever the preflight asks for. */
  headers?: readonly string[];
  /** Response headers scripts may read; default ETag, Link, the RateLimit headers, Retry-After and X-Request-Id. */
  exposeHeaders?: readonly string[];
  /** Allow cookies and HTTP authentication (Access-Control-Allow-Credentials). */
  credentials?: boolean;
  /** Seconds a browser may cache a preflight's answer. */
  maxAge?: number;
}

const DEFAULT_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const DEFAULT_EXPOSED = [
  "ETag",
  "Link",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "X-Request-Id",
];
/** Origins whose response headers are kept ready; past this many (a predicate allowing many), the oldest go. */
const CACHED_ORIGINS = 256;

function checkList(value: unknown, name: string): void {
  if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === "string"))) {
    throw new TypeError(`cors.${name} must be an array of strings, got ${JSON.stringify(value)}`);
  }
}

/**
 * CORS for the API. Every answer to an allowed origin names that origin (never `*`, so
 * credentials work) with `Vary: Origin`; a preflight gets 204 with the allowed methods and
 * headers. A disallowed origin gets no CORS headers at all, which browsers take as a refusal.
 */
export class Cors {
  readonly #allowed: (origin: string) => boolean;
  readonly #credentials: boolean;
  /** The Access-Control-Expose-Headers value of every response to an allowed origin. */
  readonly #exposed: string;
  /** Headers of a preflight's answer, before the requested headers are echoed. */
  readonly #preflight: Record<string, string>;
  readonly #headers: string | undefined;
  /** Per origin seen: whether it is allowed. */
  readonly #byOrigin = new Map<string, boolean>();
  #lastOrigin: string | null = null;
  #lastAllowed = false;

  constructor(options: CorsOptions) {
    const origin = options?.origin;
    if (typeof origin === "function") this.#allowed = origin;
    else if (Array.isArray(origin) && origin.every((item) => typeof item === "string")) {
      const origins = new Set(origin);
      this.#allowed = origins.has("*") ? () => true : (candidate) => origins.has(candidate);
    } else {throw new TypeError(
        `cors.origin must be an array of origins or a function (origin) => boolean, got ${JSON.stringify(origin)}`,
      );}
    for (const name of ["methods", "headers", "exposeHeaders"] as const) checkList(options[name], name);
    if (options.maxAge !== undefined && !(Number.isSafeInteger(options.maxAge) && options.maxAge >= 0)) {
      throw new TypeError(`cors.maxAge must be a number of seconds, got ${JSON.stringify(options.maxAge)}`);
    }
    const credentials: Record<string, string> = options.credentials
      ? { "access-control-allow-credentials": "true" }
      : {};
    this.#credentials = Boolean(options.credentials);
    this.#exposed = (options.exposeHeaders ?? DEFAULT_EXPOSED).join(", ");
    this.#preflight = {
      ...credentials,
      "access-control-allow-methods": (options.methods ?? DEFAULT_METHODS).join(", "),
    };
    if (options.maxAge !== undefined) this.#preflight["access-control-max-age"] = String(options.maxAge);
    this.#headers = options.headers?.join(", ");
  }

  /**
   * True when `origin` (a request's Origin header) may read responses. A predicate is asked
   * once per origin (the answers for the last 256 origins are kept), and a run of requests
   * from one origin, a browser app's usual traffic, compares with the last one only.
   */
  allows(origin: string | null): origin is string {
    if (origin === null) return false;
    if (origin === this.#lastOrigin) return this.#lastAllowed;
    let allowed = this.#byOrigin.get(origin);
    if (allowed === undefined) {
      allowed = this.#allowed(origin);
      if (this.#byOrigin.size >= CACHED_ORIGINS) this.#byOrigin.delete(this.#byOrigin.keys().next().value!);
      this.#byOrigin.set(origin, allowed);
    }
    this.#lastOrigin = origin;
    this.#lastAllowed = allowed;
    return allowed;
  }

  /** A preflight (OPTIONS with Access-Control-Request-Method) is answered here, before routing. */
  isPreflight(request: Request): boolean {
    return request.method === "OPTIONS" && request.headers.has("access-control-request-method");
  }

  /** The headers answering an allowed origin's preflight. */
  preflightHeaders(request: Request, origin: string): Record<string, string> {
    const asked = request.headers.get("access-control-request-headers");
    const headers = this.#headers ?? asked;
    return {
      ...this.#preflight,
      ...(headers ? { "access-control-allow-headers": headers } : {}),
      "access-control-allow-origin": origin,
      vary: "Origin, Access-Control-Request-Headers",
    };
  }

  /**
   * Adds the headers every other response to an allowed `origin` carries (the caller adds
   * `Vary: Origin`). Each is set by name, not copied from a record: on the request path that
   * copy cost more than the rest of CORS.
   */
  addResponseHeaders(headers: HeaderRecord, origin: string): void {
    if (this.#credentials) headers["access-control-allow-credentials"] = "true";
    headers["access-control-expose-headers"] = this.#exposed;
    headers["access-control-allow-origin"] = origin;
  }
}
