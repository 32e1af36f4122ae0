import { type ApiError, apiError } from "../errors.ts";
import { etagOf, hookedEtag, ifMatchCurrent, noneMatch } from "./etag.ts";
import { type HeaderRecord, type Reply, reply } from "./reply.ts";

/** Headers every JSON response carries. */
export function jsonHeaders(language: string, extra?: HeaderRecord): HeaderRecord {
  return { "content-type": "application/json; charset=utf-8", "content-language": language, ...extra };
}

/** A JSON reply in the project's shape. */
export function json(body: unknown, status: number, language: string, extra?: HeaderRecord): Reply {
  return reply(JSON.stringify(body), status, jsonHeaders(language, extra));
}

/** A reply with no body (204, 304). It still says which language the API speaks. */
export function empty(status: number, language: string, extra?: HeaderRecord): Reply {
  return reply(null, status, { "content-language": language, ...extra });
}

/** The single-message error body `{ "error": message }`. */
export function errorReply(message: string, status: number, language: string, extra?: HeaderRecord): Reply {
  return json({ error: message }, status, language, extra);
}

/** The 412 for a request whose If-Match no longer names the current version of what it asks for. */
export function preconditionFailed(): ApiError {
  return apiError("record.changed", undefined, 412);
}

/**
 * A 200 JSON response with a strong ETag, or a bodyless 304 when the client's If-None-Match
 * already names that ETag (GET and HEAD on SHOW and PAGINATE); `text` is the serialised body.
 */
export function cacheableJson(
  request: Request,
  text: string,
  language: string,
  extra?: HeaderRecord,
  status = 200,
  recordTag?: string,
): Reply {
  return cachedJson(request, text, bodyEtag(text, recordTag), language, extra, status);
}

/**
 * {@link cacheableJson} for a body already serialised (a response-cache hit); `extra` adds
 * headers (Link, Cache-Status, a hook's), `status` replaces 200 (a hook's 2xx).
 */
export function cachedJson(
  request: Request,
  text: string,
  etag: string,
  language: string,
  extra?: HeaderRecord,
  status = 200,
): Reply {
  const headers = request.headers;
  if (!ifMatchCurrent(headers.get("if-match"), etag)) throw preconditionFailed();
  if (noneMatch(headers.get("if-none-match"), etag)) return notModified(etag, language, extra);
  return bodyOrEmpty(text, status, jsonHeaders(language, extra ? { etag, ...extra } : { etag }));
}

/**
 * What a 304 repeats of the 200 it stands for: what caches need to store and reuse it (RFC
 * 9110 15.4.5), and Cache-Status; not the Link or the headers that describe a body.
 */
const KEPT_ON_304 = ["cache-status", "cache-control", "vary", "expires", "content-location"] as const;

/** The bodyless 304 for a matching If-None-Match; `extra` holds the 200's own headers. */
export function notModified(etag: string, language: string, extra: HeaderRecord | undefined): Reply {
  const headers: HeaderRecord = { etag };
  if (extra !== undefined) {
    for (const name of KEPT_ON_304) {
      const value = extra[name];
      if (value !== undefined) headers[name] = value;
    }
  }
  return empty(304, language, headers);
}

// Statuses a response must send without a body.
const NO_BODY = new Set([204, 205]);

function bodyOrEmpty(text: string, status: number, headers: HeaderRecord): Reply {
  if (!NO_BODY.has(status)) return reply(text, status, headers);
  const { "content-type": _type, ...rest } = headers;
  return reply(null, status, rest);
}

/**
 * A JSON response for a record just written, with the ETag a later If-Match should send;
 * `recordTag` is the record's own tag when an after-hook reshaped the body (see hookedEtag).
 */
export function writtenJson(
  body: unknown,
  status: number,
  language: string,
  extra?: HeaderRecord,
  recordTag?: string,
): Reply {
  const text = JSON.stringify(body);
  return bodyOrEmpty(text, status, jsonHeaders(language, { etag: bodyEtag(text, recordTag), ...extra }));
}

function bodyEtag(text: string, recordTag: string | undefined): string {
  const etag = etagOf(text);
  return recordTag === undefined || recordTag === etag ? etag : hookedEtag(recordTag, etag);
}
