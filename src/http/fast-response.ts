import { chainToReal } from "./node-lazy.ts";

/** Headers as a plain object: cheap to build and to hand to node:http unchanged. */
export type HeaderRecord = Record<string, string>;

/** A body the framework already holds in full. */
export type FullBody = string | Uint8Array | null;

/**
 * What an adapter needs to write a response made by createResponse straight to a socket.
 * `headers` is the plain record while nobody has looked at the response's headers, and the
 * live Headers once someone has (they may have been changed since).
 */
export interface DirectResponse {
  status: number;
  headers: HeaderRecord | Headers;
  body: FullBody;
  /**
   * Headers added by {@link withHeaders}, kept apart (never merged into `headers`, which may be
   * shared) so adding them costs nothing until they are written; a name here replaces the
   * same name in `headers`. Only with a plain record `headers`.
   */
  extra?: HeaderRecord;
}

// Deno.serve reads its own internal slots off every Response, so it needs a real one there.
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

// Statuses whose responses never carry a body: a real Response refuses a body with them.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A Response in all but construction: on Node `new Response()` costs tens of microseconds
 * (it builds Headers and a ReadableStream), more than the rest of a request put together.
 * This keeps the three parts as given and makes the real Response only when something asks
 * for more than the status, so an adapter that knows it can skip the Response altogether.
 */
class LightResponse {
  readonly #body: FullBody;
  readonly #status: number;
  readonly #headers: HeaderRecord;
  /** Headers added later (see DirectResponse.extra), or undefined. */
  readonly #extra: HeaderRecord | undefined;
  #real: Response | undefined;

  constructor(body: FullBody, status: number, headers: HeaderRecord, extra?: HeaderRecord) {
    this.#body = body;
    this.#status = status;
    this.#headers = headers;
    this.#extra = extra;
  }

  get status(): number {
    return this.#status;
  }

  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }

  /** The real Response, made once, the first time anything beyond the status is needed. */
  #materialise(): Response {
    const headers = this.#extra === undefined ? this.#headers : { ...this.#headers, ...this.#extra };
    this.#real ??= new Response(this.#body as BodyInit | null, { status: this.#status, headers });
    return this.#real;
  }

  /** The parts of a LightResponse that can still be written directly, or undefined. */
  static direct(response: Response): DirectResponse | undefined {
    if (!(#body in response)) return undefined;
    const light = response as unknown as LightResponse;
    const real = light.#real;
    if (real === undefined) {
      const extra = light.#extra;
      if (extra === undefined) return { status: light.#status, headers: light.#headers, body: light.#body };
      return { status: light.#status, headers: light.#headers, body: light.#body, extra };
    }
    // Someone took the body: let the caller treat it like any used Response.
    if (real.bodyUsed || real.body?.locked) return undefined;
    return { status: real.status, headers: real.headers, body: light.#body };
  }

  /**
   * A copy with `extra` headers added, still light when this one was never materialised. The
   * extra record is kept as given (the caller hands it over), not copied into the headers.
   */
  static extend(response: Response, extra: HeaderRecord): Response | undefined {
    if (!(#body in response)) return undefined;
    const light = response as unknown as LightResponse;
    if (light.#real !== undefined) return undefined;
    const merged = light.#extra === undefined ? extra : { ...light.#extra, ...extra };
    return new LightResponse(light.#body, light.#status, light.#headers, merged) as unknown as Response;
  }

  /** A header of a LightResponse (lower-case name) without materialising it; undefined for any other Response. */
  static header(response: Response, name: string): string | null | undefined {
    if (!(#body in response)) return undefined;
    const light = response as unknown as LightResponse;
    if (light.#real !== undefined) return light.#real.headers.get(name);
    return light.#extra?.[name] ?? light.#headers[name] ?? null;
  }

  static {
    // Everything else a Response has (whatever this runtime's Response offers) is served by
    // the real one, made on first use.
    chainToReal(LightResponse, Response, new Response(null), (self: LightResponse) => self.#materialise());
  }
}

/** Throws what `new Response()` would throw for these arguments, so a lazy one fails as early. */
function checkInit(body: FullBody, status: number): void {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(`The status provided (${status}) is outside the range [200, 599].`);
  }
  if (body !== null && NULL_BODY_STATUSES.has(status)) {
    throw new TypeError(`A response with status ${status} cannot have a body.`);
  }
}

/**
 * Builds a Response for a body the framework already holds in full. Adapters may recognise
 * responses made here (see {@link directResponse}) and write the body directly instead of
 * reading it as a stream; everywhere else the result behaves as a real Response.
 */
export function createResponse(body: FullBody, status: number, headers: HeaderRecord): Response {
  if (isDeno) return new Response(body as BodyInit | null, { status, headers });
  checkInit(body, status);
  return new LightResponse(body, status, headers) as unknown as Response;
}

/**
 * The status, headers and full body of a response made by createResponse, for an adapter to
 * write directly; undefined for any other Response, or one whose body someone already took.
 */
export function directResponse(response: Response): DirectResponse | undefined {
  return LightResponse.direct(response);
}

/**
 * `response` with `extra` headers set (replacing same-named ones, but `vary`, which is merged
 * with the response's own: a shared cache must still key on what the app's own Vary names). A response made by
 * createResponse stays light and keeps `extra` as a second record, so adding headers costs
 * nothing here: the adapter writes both. `extra` must not be changed afterwards.
 */
export function withHeaders(response: Response, extra: HeaderRecord): Response {
  if (extra.vary !== undefined) {
    // A light response's own headers are read without making it real (null: it has none).
    const light = LightResponse.header(response, "vary");
    const own = light === undefined ? response.headers.get("vary") : light;
    if (own) extra.vary = mergeVary(own, extra.vary);
  }
  const light = LightResponse.extend(response, extra);
  if (light !== undefined) return light;
  let target = response;
  try {
    for (const [name, value] of Object.entries(extra)) target.headers.set(name, value);
  } catch {
    // Immutable headers (Response.error(), a fetch() result): copy the response first.
    target = new Response(response.body, response);
    for (const [name, value] of Object.entries(extra)) target.headers.set(name, value);
  }
  return target;
}

/**
 * The Vary value naming both lists' fields once each (compared case-insensitively), the
 * response's own first; "*" stays "*".
 * @example mergeVary("Authorization", "Origin") // "Authorization, Origin"
 */
export function mergeVary(own: string, added: string): string {
  const fields = own.split(",").map((field) => field.trim()).filter(Boolean);
  const seen = new Set(fields.map((field) => field.toLowerCase()));
  if (seen.has("*")) return "*";
  for (const field of added.split(",").map((name) => name.trim())) {
    if (field && !seen.has(field.toLowerCase())) {
      seen.add(field.toLowerCase());
      fields.push(field);
    }
  }
  return fields.join(", ");
}
