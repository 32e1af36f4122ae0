import { Router } from "itty-router";
import type { HandlerName } from "../model/define.ts";
import type { Handler, Route, RouteRequest } from "../handlers/route.ts";
import { paginate } from "../handlers/paginate.ts";
import { show } from "../handlers/show.ts";
import { insert } from "../handlers/insert.ts";
import { update, patch } from "../handlers/update.ts";
import { forceRemove, remove } from "../handlers/delete.ts";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface Endpoint {
  name: HandlerName;
  method: Method;
  /** Path below the collection: "" for the collection, "/:id" for one record. */
  suffix: string;
  handler: Handler;
  /** Served on nested routes (`/users/:userId/posts`) too. */
  nested?: boolean;
  softDeleteOnly?: boolean;
}

const ENDPOINTS: readonly Endpoint[] = [
  { name: "paginate", method: "GET", suffix: "", handler: paginate, nested: true },
  { name: "insert", method: "POST", suffix: "", handler: insert, nested: true },
  { name: "show", method: "GET", suffix: "/:id", handler: show },
  { name: "update", method: "PUT", suffix: "/:id", handler: update },
  { name: "patch", method: "PATCH", suffix: "/:id", handler: patch },
  { name: "delete", method: "DELETE", suffix: "/:id", handler: remove },
  { name: "delete", method: "DELETE", suffix: "/:id/force", handler: forceRemove, softDeleteOnly: true },
];

/** A router with every enabled handler of every model, plus the methods allowed per path. */
export interface GeneratedRoutes {
  /** The matching handler's response, or undefined (synchronously) when no route matches. */
  fetch(request: Request): Promise<Response> | undefined;
  /**
   * For a request no route matched: the methods the path does answer (for a 405), or null
   * when it is a 404: an unknown path, or a handler the model switched off.
   */
  allowedFor(method: string, pathname: string): string[] | null;
}

/** Path patterns (`:param` segments as `*`) → methods served, and "METHOD pattern" of switched-off handlers. */
class MethodTable {
  private readonly allowed = new Map<string, Set<string>>();
  private readonly disabled = new Set<string>();

  add(pattern: string, method: Method): void {
    const methods = this.allowed.get(pattern) ?? new Set(["OPTIONS"]);
    methods.add(method);
    if (method === "GET") methods.add("HEAD");
    this.allowed.set(pattern, methods);
  }

  disable(pattern: string, method: Method): void {
    this.disabled.add(`${method} ${pattern}`);
  }

  lookup(method: string, pathname: string): string[] | null {
    const segments = pathname.split("/");
    for (const pattern of this.allowed.keys()) {
      if (!matches(pattern, segments)) continue;
      return this.disabled.has(`${method} ${pattern}`) ? null : [...this.allowed.get(pattern)!];
    }
    return null;
  }
}

function matches(pattern: string, segments: readonly string[]): boolean {
  const parts = pattern.split("/");
  return parts.length === segments.length && parts.every((part, i) => part === "*" || part === segments[i]);
}

/**
 * The path without trailing slashes (a lone "/" stays). A loop, not `replace(/(.)\/+$/)`:
 * that regex retries its slash run from every position and took quadratic time on a path of
 * thousands of slashes followed by anything else.
 * @example withoutTrailingSlashes("/api/v1/users//") // "/api/v1/users"
 */
export function withoutTrailingSlashes(pathname: string): string {
  let end = pathname.length;
  while (end > 1 && pathname.charCodeAt(end - 1) === 47 /* "/" */) end--;
  return pathname.slice(0, end);
}

/** A compiled route: the handler for requests whose method and path match. */
interface Entry {
  method: string;
  pattern: RegExp;
  handler: Handler;
  route: Route;
}

/**
 * The path of `request.url`. That is always a serialised absolute URL (what `new URL(url).href`
 * prints), whose path runs from the first "/" after the authority to the query or fragment;
 * taking it by position saves parsing the whole URL on every request.
 * @example pathnameOf("http://localhost:3000/api/v1/users?page=2") // "/api/v1/users"
 */
export function pathnameOf(url: string): string {
  const authority = url.indexOf("//");
  const start = authority === -1 ? -1 : url.indexOf("/", authority + 2);
  if (start === -1) return new URL(url).pathname;
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/**
 * The first route whose method and pattern match, as itty-router's `fetch` picks it, without
 * what that `fetch` does besides: parsing the whole URL and the query string into
 * `request.query` (handlers read the query from the URL themselves) and an async walk.
 */
function match(entries: readonly Entry[], request: Request): Promise<Response> | undefined {
  const method = request.method;
  const path = pathnameOf(request.url);
  for (const entry of entries) {
    if (entry.method !== method) continue;
    const found = entry.pattern.exec(path);
    if (found === null) continue;
    (request as RouteRequest).params = found.groups ?? {};
    return entry.handler(request as RouteRequest, entry.route);
  }
  return undefined;
}

function collectionPath(base: string, route: Route): string {
  const { model, parent } = route;
  return parent ? `${base}/${parent.model.route}/:${parent.param}/${model.route}` : `${base}/${model.route}`;
}

function servedBy(endpoint: Endpoint, route: Route): boolean {
  if (route.parent && !endpoint.nested) return false;
  return !endpoint.softDeleteOnly || route.model.softDelete;
}

/** One operation a route serves, as the OpenAPI document describes it. */
export interface EndpointInfo {
  name: HandlerName;
  method: Method;
  /** The path pattern, with `:param` segments: `/api/v1/users/:userId/posts`. */
  path: string;
  /** `DELETE …/:id/force` on a soft-delete model. */
  force: boolean;
}

/** The enabled operations of a route, exactly those {@link buildRouter} registers for it. */
export function routeEndpoints(base: string, route: Route): EndpointInfo[] {
  const collection = collectionPath(base, route);
  return ENDPOINTS.filter((e) => servedBy(e, route) && route.model.handlers.has(e.name))
    .map((e) => ({ name: e.name, method: e.method, path: collection + e.suffix, force: e.softDeleteOnly === true }));
}

/**
 * Registers the routes once at start-up. A switched-off handler is simply not registered,
 * so its route answers 404; a method no handler serves on an existing path answers 405.
 * itty-router compiles the path patterns (its syntax and matching rules: `:param` is one
 * non-empty segment, left percent-encoded; trailing slashes match), in registration order.
 */
export function buildRouter(base: string, routes: readonly Route[]): GeneratedRoutes {
  const router = Router<RouteRequest, [Route]>();
  const entries: Entry[] = [];
  const table = new MethodTable();
  for (const route of routes) {
    const collection = collectionPath(base, route);
    for (const endpoint of ENDPOINTS.filter((e) => servedBy(e, route))) {
      const path = collection + endpoint.suffix;
      const pattern = path.replace(/:\w+/g, "*");
      if (!route.model.handlers.has(endpoint.name)) {
        table.disable(pattern, endpoint.method);
        continue;
      }
      router[endpoint.method.toLowerCase() as Lowercase<Method>](path, endpoint.handler);
      const [method, compiled] = router.routes[router.routes.length - 1]!;
      entries.push({ method, pattern: compiled, handler: endpoint.handler, route });
      table.add(pattern, endpoint.method);
    }
  }
  return {
    fetch: (request) => match(entries, request),
    allowedFor: (method, pathname) => table.lookup(method, withoutTrailingSlashes(pathname)),
  };
}
