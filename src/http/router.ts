import { Router } from "itty-router";
import type { HandlerName } from "../model/define.ts";
import type { Handler, Route, RouteRequest } from "../handlers/route.ts";
import { paginate } from "../handlers/paginate.ts";
import { show } from "../handlers/show.ts";
import { insert } from "../handlers/insert.ts";
import { update, patch } from "../handlers/update.ts";
import { remove } from "../handlers/delete.ts";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

const ENDPOINTS: readonly { name: HandlerName; method: Method; item: boolean; handler: Handler }[] = [
  { name: "paginate", method: "GET", item: false, handler: paginate },
  { name: "insert", method: "POST", item: false, handler: insert },
  { name: "show", method: "GET", item: true, handler: show },
  { name: "update", method: "PUT", item: true, handler: update },
  { name: "patch", method: "PATCH", item: true, handler: patch },
  { name: "delete", method: "DELETE", item: true, handler: remove },
];

/** The methods each generated path answers, for 405 responses and their Allow header. */
export type AllowedMethods = Map<string, Set<string>>;

/** A router with every enabled handler of every model, plus the methods allowed per path. */
export interface GeneratedRoutes {
  fetch(request: Request): Promise<Response | undefined>;
  /**
   * For a request no route matched: the methods the path does answer (for a 405), or null
   * when it is a 404: an unknown path, or a handler the model switched off.
   */
  allowedFor(method: string, pathname: string): string[] | null;
}

function addAllowed(allowed: AllowedMethods, path: string, method: Method): void {
  const methods = allowed.get(path) ?? new Set(["OPTIONS"]);
  methods.add(method);
  if (method === "GET") methods.add("HEAD");
  allowed.set(path, methods);
}

/**
 * Registers the routes once at start-up. A switched-off handler is simply not registered,
 * so its route answers 404 (or 405 when the path exists for other methods).
 */
export function buildRouter(base: string, routes: readonly Route[]): GeneratedRoutes {
  const router = Router<RouteRequest, [Route]>();
  const allowed: AllowedMethods = new Map();
  const disabled = new Set<string>();
  for (const route of routes) {
    const collection = `${base}/${route.model.route}`;
    for (const endpoint of ENDPOINTS) {
      const pattern = endpoint.item ? `${collection}/*` : collection;
      if (!route.model.handlers.has(endpoint.name)) {
        disabled.add(`${endpoint.method} ${pattern}`);
        continue;
      }
      const path = endpoint.item ? `${collection}/:id` : collection;
      const handler = endpoint.handler;
      router[endpoint.method.toLowerCase() as Lowercase<Method>](path, (request) => handler(request, route));
      addAllowed(allowed, pattern, endpoint.method);
    }
  }
  return {
    fetch: (request) => router.fetch(request as RouteRequest),
    allowedFor(method, pathname) {
      const pattern = allowed.has(pathname) ? pathname : pathname.replace(/\/[^/]+$/, "/*");
      const methods = allowed.get(pattern);
      if (!methods || disabled.has(`${method} ${pattern}`)) return null;
      return [...methods];
    },
  };
}
