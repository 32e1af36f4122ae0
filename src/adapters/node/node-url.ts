import type { IncomingMessage } from "./node-http.ts";

// A path the WHATWG URL parser leaves exactly as it is: no characters it would percent-encode
// or rewrite (quote, backslash, space...), so `origin + path` is already what `new URL()`
// and `new Request()` would print, and no parse is needed.
const PLAIN_PATH = /^\/[\w\-.~!$&()*+,;=:@/?%]*$/;
// Dot segments, possibly percent-encoded, are resolved by the parser: leave those to it.
const DOT_SEGMENT = /\/\.|%2e/i;
// Host header characters that can only name a host (and port): no path, user info or query.
const HOST_CHARS = /^[\w\-.:[\]]+$/;

const MAX_CACHED_ORIGINS = 64;
const origins = new Map<string, string | null>();
// Most servers see one Host all day: checked before the map.
let lastHost = "";
let lastOrigin: string | null = null;

/**
 * The origin (`http://host:port`, as the URL parser prints it) that a Host header names, or
 * null when the header cannot name one. Clients send the same few hosts again and again, so
 * each is parsed once.
 */
function originOf(host: string): string | null {
  if (host === lastHost) return lastOrigin;
  let origin = origins.get(host);
  if (origin === undefined) {
    origin = parseOrigin(host);
    if (origins.size >= MAX_CACHED_ORIGINS) origins.clear();
    origins.set(host, origin);
  }
  lastHost = host;
  lastOrigin = origin;
  return origin;
}

function parseOrigin(host: string): string | null {
  if (!HOST_CHARS.test(host)) return null;
  try {
    return new URL(`http://${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * The absolute URL of a request, serialised exactly as `new Request(url).url` would, or
 * undefined when the request target or the Host header is malformed. `fallbackOrigin` serves
 * requests that carry no Host header (HTTP/1.0).
 */
export function requestUrl(req: IncomingMessage, fallbackOrigin: string): string | undefined {
  const target = req.url ?? "/";
  if (target.charCodeAt(0) !== 47 /* "/" */) return absoluteUrl(target);
  const host = hostHeader(req.rawHeaders);
  const origin = host === undefined ? fallbackOrigin : originOf(host);
  if (origin === null) return undefined;
  // A busy client asks for the same target again and again: the last URL is kept, and handing
  // back the same string keeps its hash for the response cache's and the router's lookups.
  if (target === lastTarget && origin === lastTargetOrigin) return lastUrl;
  const url = resolvedUrl(origin, target);
  if (url !== undefined) {
    lastTarget = target;
    lastTargetOrigin = origin;
    lastUrl = url;
  }
  return url;
}

let lastTarget = "";
let lastTargetOrigin = "";
let lastUrl = "";

/** `origin` + a request target in origin form, as the URL parser would serialise it, or undefined. */
function resolvedUrl(origin: string, target: string): string | undefined {
  if (PLAIN_PATH.test(target) && !DOT_SEGMENT.test(target)) return origin + target;
  try {
    // Concatenated rather than resolved against the origin: "//evil.example/x" is a path here.
    return new URL(origin + target).href;
  } catch {
    return undefined;
  }
}

/** The Host header, read from the raw list (it comes first in practice) without building them all. */
function hostHeader(raw: string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === "host") return raw[i + 1];
  }
  return undefined;
}

/** An absolute-form request target ("GET http://host/path"), as proxies send it. */
function absoluteUrl(target: string): string | undefined {
  try {
    const url = new URL(target);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
