import type { HandlerName } from "../model/define.ts";
import { buildRouter, type RouteDefinition } from "../http/router.ts";

/** The model and handler a request addresses, for per-model limits. */
export interface RequestTarget {
  model: string;
  handler: HandlerName;
}

/** The app's routes as the service needs them: each method and path, and the model and handler serving it. */
export type TargetRoutes = readonly RouteDefinition<RequestTarget>[];

/**
 * Works out which model and handler a request is for, with the app's own route table and
 * router: every generated route, nested ones at any depth included, matches exactly as the app
 * will route it (HEAD as the GET it answers). Undefined for anything else (a 404 or 405 to be).
 */
export function targetResolver(routes: TargetRoutes): (method: string, pathname: string) => RequestTarget | undefined {
  const router = buildRouter(routes);
  return (method, pathname) => router.match(method === "HEAD" ? "GET" : method, pathname)?.target;
}
