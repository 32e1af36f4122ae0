import type { HandlerName } from "../model/define.ts";
import { forceRemove, remove } from "./delete.ts";
import { insert } from "./insert.ts";
import { ancestorsOf } from "../query/nesting.ts";
import { paginate } from "./paginate.ts";
import type { Handler, Route } from "./route.ts";
import { show } from "./show.ts";
import { patch, update } from "./update.ts";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface Endpoint {
  name: HandlerName;
  method: Method;
  /** Path below the collection: "" for the collection, "/:id" for one record. */
  suffix: string;
  handler: Handler;
  /** Served on the old child-route URLs of nested routes too (`/users/:userId/posts` for `ownedPosts`). */
  legacy?: boolean;
  softDeleteOnly?: boolean;
}

const ENDPOINTS: readonly Endpoint[] = [
  { name: "paginate", method: "GET", suffix: "", handler: paginate, legacy: true },
  { name: "insert", method: "POST", suffix: "", handler: insert, legacy: true },
  { name: "show", method: "GET", suffix: "/:id", handler: show },
  { name: "update", method: "PUT", suffix: "/:id", handler: update },
  { name: "patch", method: "PATCH", suffix: "/:id", handler: patch },
  { name: "delete", method: "DELETE", suffix: "/:id", handler: remove },
  { name: "delete", method: "DELETE", suffix: "/:id/force", handler: forceRemove, softDeleteOnly: true },
];

/** A handler bound to its route: what the router hands back for a matching request. */
export interface BoundHandler {
  handler: Handler;
  route: Route;
}

/** One row of the route table. */
export interface RouteEntry {
  /** The handler this row serves (the force delete is "delete" with `force`). */
  name: HandlerName;
  method: Method;
  path: string;
  target: BoundHandler;
  /** False when the model switched the handler off: the path then answers the method with 404. */
  enabled: boolean;
  /** The soft-delete models' `/force` delete. */
  force: boolean;
}

/**
 * The collection path of a route: the model's own, or for a nested route the outermost
 * ancestor's route followed by `/:<parent>Id/<relation>` for every step.
 * @example collectionPath("/api/v1", commentsOfPostsOfUsers) // "/api/v1/users/:userId/posts/:postId/comments"
 */
export function collectionPath(base: string, route: Route): string {
  const chain = ancestorsOf(route.parent);
  if (chain.length === 0) return `${base}/${route.model.route}`;
  return `${base}/${chain[0].model.route}` + chain.map((step) => `/:${step.param}/${step.segment}`).join("");
}

function servedBy(endpoint: Endpoint, route: Route): boolean {
  if (route.parent?.legacy && !endpoint.legacy) return false;
  return !endpoint.softDeleteOnly || route.model.softDelete;
}

/**
 * The route table: every handler of every model (and nested route) under `base`, in the order
 * a router must try them. Switched-off handlers stay in the table, disabled, so their path
 * answers 404 for that method rather than 405.
 */
export function routeTable(base: string, routes: readonly Route[]): RouteEntry[] {
  const entries: RouteEntry[] = [];
  for (const route of routes) {
    const collection = collectionPath(base, route);
    for (const endpoint of ENDPOINTS.filter((e) => servedBy(e, route))) {
      entries.push({
        name: endpoint.name,
        method: endpoint.method,
        path: collection + endpoint.suffix,
        target: { handler: endpoint.handler, route },
        enabled: route.model.handlers.has(endpoint.name),
        force: endpoint.softDeleteOnly === true,
      });
    }
  }
  return entries;
}
