import type { HeaderRecord } from "../http/reply.ts";
import { checkKeys, isPlainObject } from "../model/strict.ts";

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

const CORS_KEYS = ["origin", "methods", "headers", "exposeHeaders", "credentials", "maxAge"];
/** An HTTP token (RFC 9110): what a method or header name is made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkList(value: unknown, name: string): void {
  if (value === undefined) return;
  if (!(Array.isArray(value) && value.every((item) => typeof item === "string"))) {
    throw new TypeError(`cors.${name} must be an array of strings, got ${JSON.stringify(value)}`);
  }
  const bad = value.find((item) => !TOKEN.test(item));
  if (bad !== undefined) {
    throw new TypeError(`cors.${name} must hold header or method names, got ${JSON.stringify(bad)}`);
  }
}

/** True for `*` and for an origin as browsers send it: scheme, host and port, nothing more. */
function isOrigin(value: string): boolean {
  if (value === "*") return true;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** Stops start-up on a mistake in the cors option, with one line. */
function checkCorsOptions(options: CorsOptions): void {
  if (!isPlainObject(options)) {
    throw new TypeError(
      `cors must be an object such as { origin: ["https://app.example.com"] }, got ${String(options)}`,
    );
  }
  checkKeys("cors", options, CORS_KEYS);
  const { origin } = options;
  if (typeof origin !== "function" && !(Array.isArray(origin) && origin.every((item) => typeof item === "string"))) {
    throw new TypeError(
      `cors.origin must be an array of origins or a function (origin) => boolean, got ${JSON.stringify(origin)}`,
    );
  }
  const malformed = Array.isArray(origin) ? origin.find((item) => !isOrigin(item)) : undefined;
  if (malformed !== undefined) {
    throw new TypeError(
      `cors.origin entries must be "*" or origins as browsers send them, like "https://app.example.com" (no path, no trailing slash); got ${
        JSON.stringify(malformed)
      }`,
    );
  }
  if (options.credentials !== undefined && typeof options.credentials !== "boolean") {
    throw new TypeError(`cors.credentials must be true or false, got ${JSON.stringify(options.credentials)}`);
  }
  if (Array.isArray(origin) && origin.includes("*") && options.credentials === true) {
    throw new TypeError(
      'cors.origin ["*"] with credentials: true would let every website send credentialed requests; list the origins, or pass a function',
    );
  }
  for (const name of ["methods", "headers", "exposeHeaders"] as const) checkList(options[name], name);
  if (options.maxAge !== undefined && !(Number.isSafeInteger(options.maxAge) && options.maxAge >= 0)) {
    throw new TypeError(`cors.maxAge must be a number of seconds, got ${JSON.stringify(options.maxAge)}`);
  }
}

/** True for a CORS preflight: OPTIONS with Access-Control-Request-Method. */
export function isPreflight(request: Request): boolean {
  return request.method === "OPTIONS" && request.headers.has("access-control-request-method");
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
    checkCorsOptions(options);
    const origin = options.origin;
    if (typeof origin === "function") this.#allowed = origin;
    else {
      const origins = new Set(origin);
      this.#allowed = origins.has("*") ? () => true : (candidate) => origins.has(candidate);
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
