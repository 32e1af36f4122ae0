import type { HeaderRecord } from "../http/fast-response.ts";
import { cachedJson, cacheableJson } from "../http/responses.ts";
import type { WithNode } from "../query/with.ts";
import type { Route } from "./route.ts";

/** What a GET handler produced: the body, the collections it read, and headers that belong to it. */
export interface ReadResult {
  body: unknown;
  collections: readonly string[];
  headers?: HeaderRecord;
}

function addRelated(nodes: readonly WithNode[], into: Set<string>): void {
  for (const node of nodes) {
    into.add(node.model.collection);
    addRelated(node.children, into);
  }
}

/**
 * The collections a read of `route` with these relations touches: the model's own, the parent's
 * on a nested route, and every collection pulled in through `with`. A write to any of them
 * invalidates the cached body; writes elsewhere do not.
 * @example collectionsRead(usersRoute, parseWith("posts{comments}", …)) // ["users", "posts", "comments"]
 */
export function collectionsRead(route: Route, related: readonly WithNode[]): string[] {
  const collections = new Set([route.model.collection]);
  if (route.parent) collections.add(route.parent.model.collection);
  addRelated(related, collections);
  return [...collections];
}

/**
 * Answers a GET from the app's response cache when it can, else runs it and keeps the body.
 * No cache is used when the model has hooks for this handler, since a hook may answer each
 * request differently (by user, header or time), nor when the app has no cache (MongoDB).
 */
export async function cachedGet(request: Request, route: Route, hooked: boolean, run: () => Promise<ReadResult>): Promise<Response> {
  const language = route.app.language;
  const cache = hooked ? undefined : route.app.cache;
  if (cache === undefined) {
    const { body, headers } = await run();
    return cacheableJson(request, body, language, undefined, headers);
  }
  const key = request.url;
  const hit = cache.get(key);
  if (hit !== undefined) return cachedJson(request, hit.text, hit.etag, language, hit.headers);
  const version = cache.version();
  const { body, collections, headers } = await run();
  return cacheableJson(request, body, language, (text, etag) => cache.set(key, version, collections, text, etag, headers), headers);
}
