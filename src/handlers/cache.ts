import { etagOf, ifMatchCurrent, noneMatch } from "../http/etag.ts";
import { type HeaderRecord, type Reply, reply } from "../http/reply.ts";
import type { CachedBody, ResponseCache } from "../http/response-cache.ts";
import { cacheableJson, cachedJson, jsonHeaders, notModified, preconditionFailed } from "../http/responses.ts";
import type { Model } from "../model/define.ts";
import { boundedJson } from "../query/budget.ts";
import type { Handler, PathParams, Route } from "./route.ts";
import { fingerprintOf, type RequestAccess } from "../query/access.ts";
import { hookedHandler } from "./hooks.ts";

/** What a GET handler produced: the body, the collections it read, and headers that belong to it. */
export interface ReadResult {
  body: unknown;
  collections: readonly string[];
  headers?: HeaderRecord;
  /** A hook's 2xx instead of 200; never set on a cached read (reads with hooks are not cached). */
  status?: number;
  /** The record's own ETag when an after-hook reshaped the body (see hookedEtag); hooked reads only. */
  recordTag?: string;
}

/** The name the framework's cache goes by in Cache-Status (RFC 9211). */
export const CACHE_NAME = "mongorest";

/** Cache-Status of a response the cache did not handle, with the reason as its detail. */
function bypassed(reason: "hooks" | "model" | "serializer"): string {
  return `${CACHE_NAME}; fwd=bypass; detail=${reason}`;
}

const perRequestOutput = new WeakMap<Route, boolean>();

/**
 * Whether the records of a route's GETs may depend on the request beyond its URL: a serializer
 * (the app's, the model's or one of a model reachable through relations) or an
 * `onBeforeRelation` hook of a reachable model. Decided once per route, from the models alone,
 * because a `with` can reach any of them.
 */
function variesByRequest(route: Route): boolean {
  let varies = perRequestOutput.get(route);
  if (varies === undefined) {
    const { registry, hooks, serialize } = route.app;
    const seen = new Set<string>();
    const walk = (model: Model): boolean => {
      if (seen.has(model.name)) return false;
      seen.add(model.name);
      if (model.serialize || hooks[model.name]?.onBeforeRelation) return true;
      return [...model.relations.values()].some((rel) => walk(registry.get(rel.model)!));
    };
    varies = serialize !== undefined || walk(route.model);
    perRequestOutput.set(route, varies);
  }
  return varies;
}

function bypassReason(route: Route, hooked: boolean): string | undefined {
  if (!route.model.cache) return bypassed("model");
  if (hooked) return bypassed("hooks");
  if (variesByRequest(route)) return bypassed("serializer");
  return undefined;
}

/**
 * Answers a GET from the app's response cache when it can, else runs it and keeps the body.
 * No cache is used when the model opted out (`cache: false`), has hooks for this handler (a
 * hook may answer each request differently, by user, header or time), or when a serializer or
 * relation hook may read the request; nor when the app has no cache (MongoDB). With a cache,
 * every answer says in `Cache-Status` (RFC 9211) whether it was a hit, a miss (`fwd=uri-miss`,
 * or `fwd=stale` when a write outdated the kept body, plus `stored` when this one was kept) or
 * not handled by the cache (`fwd=bypass`, with the reason as `detail`).
 */
export function cachedGet(
  request: Request,
  route: Route,
  hooked: boolean,
  run: () => Promise<ReadResult>,
  access?: RequestAccess,
): Reply | Promise<Reply> {
  const cache = route.app.cache;
  const bypass = cache === undefined ? undefined : bypassReason(route, hooked);
  if (cache === undefined || bypass !== undefined) return uncachedGet(request, route, bypass, run);
  // With auth, what a page holds depends on who asks: one principal's page never serves another.
  const key = access === undefined ? request.url : `${request.url}\n${fingerprintOf(access.principal)}`;
  const { body: hit, stale } = cache.lookup(key);
  // A hit answers without an await: its whole header record was made when the body was kept.
  if (hit !== undefined) return hitReply(request, hit, route.app.language);
  return missedGet(request, route, { cache, key, stale }, run);
}

/** A GET the cache does not handle (no cache, or `bypass` says why not). */
async function uncachedGet(
  request: Request,
  route: Route,
  bypass: string | undefined,
  run: () => Promise<ReadResult>,
): Promise<Reply> {
  const { body, headers, status, recordTag } = await run();
  const text = boundedJson(body, route.app.limits.maxResponseBytes);
  // A hook's own Cache-Status, like its other headers, replaces the framework's.
  const extra = bypass === undefined ? headers : { "cache-status": bypass, ...headers };
  return cacheableJson(request, text, route.app.language, extra, status, recordTag);
}

const HIT = `${CACHE_NAME}; hit`;

/** The kept body, or a 304 when the client has it already; the 200's headers are the entry's, shared. */
function hitReply(request: Request, hit: CachedBody, language: string): Reply {
  const headers = request.headers;
  if (!ifMatchCurrent(headers.get("if-match"), hit.etag)) throw preconditionFailed();
  if (noneMatch(headers.get("if-none-match"), hit.etag)) {
    return notModified(hit.etag, language, hit.headers ?? { "cache-status": HIT });
  }
  return reply(hit.bytes, 200, hit.headers!);
}

/** Where a missed GET's body goes: the cache, under the request's URL, and whether a write outdated the old one. */
interface Miss {
  cache: ResponseCache;
  key: string;
  stale: boolean;
}

/** Runs the GET, answers it, and keeps the body with the headers a hit on it will answer with. */
async function missedGet(
  request: Request,
  route: Route,
  miss: Miss,
  run: () => Promise<ReadResult>,
): Promise<Reply> {
  const { cache, key, stale } = miss;
  const language = route.app.language;
  const version = cache.version();
  const { body, collections, headers } = await run();
  const text = boundedJson(body, route.app.limits.maxResponseBytes);
  const etag = etagOf(text);
  // What cachedJson would send for a hit, made once: every hit then shares this (frozen) record.
  const hitHeaders = Object.freeze(jsonHeaders(language, { etag, ...headers, "cache-status": HIT }));
  const stored = cache.set(key, version, collections, text, etag, hitHeaders);
  const cacheStatus = `${CACHE_NAME}; fwd=${stale ? "stale" : "uri-miss"}${stored ? "; stored" : ""}`;
  return cachedJson(request, text, etag, language, { ...headers, "cache-status": cacheStatus });
}

/** What a cached GET handler reads on a miss. */
type Read = (request: Request, route: Route, params: PathParams, access?: RequestAccess) => Promise<ReadResult>;

/**
 * A GET handler (`paginate`, `show`) answered through the response cache, keyed for the
 * request's principal, with `read` run on a miss (and always for a model hooked for it).
 */
export function cachedHandler(name: "paginate" | "show", read: Read): Handler {
  return (request, route, params, access) =>
    cachedGet(request, route, hookedHandler(route.hooks, name), () => read(request, route, params, access), access);
}
