import { cachedJson, cacheableJson } from "../http/responses.ts";
import type { Route } from "./route.ts";

/**
 * Answers a GET from the app's response cache when it can, else runs it and keeps the body.
 * No cache is used when the model has hooks for this handler, since a hook may answer each
 * request differently (by user, header or time), nor when the app has no cache (MongoDB).
 */
export async function cachedGet(request: Request, route: Route, hooked: boolean, run: () => Promise<unknown>): Promise<Response> {
  const language = route.app.language;
  const cache = hooked ? undefined : route.app.cache;
  if (cache === undefined) return cacheableJson(request, await run(), language);
  const key = request.url;
  const hit = cache.get(key);
  if (hit !== undefined) return cachedJson(request, hit.text, hit.etag, language);
  const version = cache.version();
  const body = await run();
  return cacheableJson(request, body, language, (text, etag) => cache.set(key, version, text, etag));
}
