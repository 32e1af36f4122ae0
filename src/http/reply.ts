import type { Message } from "../i18n/message.ts";

/**
 * Replies: what the framework's runtime-free core answers with. A reply is plain data (status,
 * headers, the whole body), so it costs one small object to make, and an adapter writes it to
 * its socket as it is. `app.fetch` turns it into a web Response at the edge; the Node adapter
 * never needs one (on Node 20 `new Response()` cost more than the rest of a cached request).
 */

/** Headers as a plain object: cheap to build and to hand to an adapter unchanged. */
export type HeaderRecord = Record<string, string>;

/** A body held in full. */
export type FullBody = string | Uint8Array | null;

/** A status, headers and a whole body: the app's answer to one request. */
export interface Reply {
  readonly status: number;
  /**
   * The framework's own replies carry a plain record (lower-case names; it may be shared and
   * frozen, as a cached page's is: never change it). A reply made from a Response (an error
   * handler's, see {@link replyOf}) keeps that Response's Headers, which may hold several
   * Set-Cookie lines.
   */
  readonly headers: HeaderRecord | Headers;
  readonly body: FullBody;
  /**
   * Headers added by {@link withHeaders}, kept apart (never merged into `headers`, which may be
   * shared) so adding them costs nothing until they are written; a name here replaces the
   * same name in `headers`.
   */
  readonly extra?: HeaderRecord;
}

/** What an adapter refuses before the app sees a request (a declared body over the limit), and the message it would answer with. */
export interface Refusal {
  status: number;
  message: Message;
}

/**
 * What a server adapter may call instead of `fetch`, so that nothing on its way needs a
 * Response or a Promise it can do without. `App` offers it; the Node adapter uses it.
 */
export interface ReplyHandler<Info> {
  /**
   * Answers one request as `fetch` does, but as a reply, and synchronously when nothing needs
   * an await (a response-cache hit). Throws where `fetch` rejects.
   */
  answer(request: Request, info?: Info): Reply | Promise<Reply>;
  /**
   * Answers a request the adapter refuses before the app runs it, as the app answers its own
   * errors (headers, log line and all). Synchronous, and never reads the request's body.
   */
  refuse(request: Request, refusal: Refusal, info?: Info): Reply;
}

// Statuses whose responses never carry a body: a Response refuses a body with them.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Throws what `new Response()` would throw for these arguments, so a reply fails where the Response would have. */
function checkInit(body: FullBody, status: number): void {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(`The status provided (${status}) is outside the range [200, 599].`);
  }
  if (body !== null && NULL_BODY_STATUSES.has(status)) {
    throw new TypeError(`A response with status ${status} cannot have a body.`);
  }
}

/** A reply for a body held in full; refuses what `new Response()` refuses. */
export function reply(body: FullBody, status: number, headers: HeaderRecord): Reply {
  checkInit(body, status);
  return { status, headers, body };
}

/** A header of a reply (`name` in lower case), the added ones first; null when it has none. */
export function replyHeader(reply: Reply, name: string): string | null {
  const added = reply.extra?.[name];
  if (added !== undefined) return added;
  const { headers } = reply;
  return headers instanceof Headers ? headers.get(name) : headers[name] ?? null;
}

/**
 * `reply` with `extra` headers set (replacing same-named ones, but `vary`, which is merged
 * with the reply's own: a shared cache must still key on what the app's own Vary names). The
 * extra record is kept as given, beside the reply's headers: `extra` must not be changed
 * afterwards.
 */
export function withHeaders(reply: Reply, extra: HeaderRecord): Reply {
  if (extra.vary !== undefined) {
    const own = replyHeader(reply, "vary");
    if (own) extra.vary = mergeVary(own, extra.vary);
  }
  const merged = reply.extra === undefined ? extra : { ...reply.extra, ...extra };
  return { status: reply.status, headers: reply.headers, body: reply.body, extra: merged };
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

/** The reply as a web Response: what `app.fetch` returns, for Deno.serve and any fetch-style server. */
export function toResponse({ status, headers, body, extra }: Reply): Response {
  const init = body as BodyInit | null;
  if (headers instanceof Headers) {
    const copy = new Headers(headers);
    for (const name in extra) copy.set(name, extra[name]!);
    return new Response(init, { status, headers: copy });
  }
  return new Response(init, { status, headers: extra === undefined ? headers : { ...headers, ...extra } });
}

/**
 * A Response made elsewhere (by an error handler) as a reply: its status, its Headers as they
 * are, and its body read in full.
 */
export async function replyOf(response: Response): Promise<Reply> {
  const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body };
}
