import type { Document } from "bson";
import { notFound } from "../errors.ts";
import { decodeParam, parseRecordId } from "../http/params.ts";
import type { Reply } from "../http/reply.ts";
import type { ResponseCache } from "../http/response-cache.ts";
import type { Model, Serializer } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import { allOf } from "../plan/conditions.ts";
import type { CursorSealer } from "../query/cursor.ts";
import type { QueryLimits } from "../query/limits.ts";
import type { ParentLink } from "../query/nesting.ts";
import type { ReadRoute } from "../query/plan.ts";
import type { AccessPolicy, RequestAccess } from "../query/access.ts";
import { ANONYMOUS } from "../model/access.ts";
import type { DataStore } from "../store/data-store.ts";
import type { RecordStore, StoredDocument } from "../store/records.ts";
import type { HookContext, ModelHooks } from "./context.ts";

export { allOf };

/** App-wide settings every handler can read. */
export interface AppState {
  /** The one door to the database: every read and write a handler makes goes through it. */
  data: DataStore;
  /** With `auth`: the models' access rules, compiled. */
  access?: AccessPolicy;
  registry: ModelRegistry;
  stores: ReadonlyMap<string, RecordStore>;
  bodyLimit: number;
  language: string;
  limits: QueryLimits;
  /** Exact response cache for GETs; present only on the embedded engine, unless switched off. */
  cache?: ResponseCache;
  /** Signs and checks list cursors. */
  cursors: CursorSealer;
  /** Every model's hooks by model name, for the hooks of related models (`onBeforeRelation`). */
  hooks: Readonly<Record<string, ModelHooks>>;
  /** The app-wide serializer, run on every record after its model's own. */
  serialize?: Serializer;
}

/** Everything a handler needs about its route, built once at start-up. */
export interface Route {
  app: AppState;
  model: Model;
  store: RecordStore;
  hooks: ModelHooks;
  /** Set on nested routes (`/users/:userId/posts`): the parent the records belong to. */
  parent?: ParentLink;
}

/** Path parameters as the router matched them: raw, still percent-encoded. */
export type PathParams = Record<string, string>;

/**
 * A generated handler: one per HTTP verb. The router hands over the path parameters, and with
 * `auth` the request's access (its principal and the app's rules). A GET
 * answered from the response cache returns its reply without a Promise (no await to pay).
 */
export type Handler = (
  request: Request,
  route: Route,
  params: PathParams,
  access?: RequestAccess,
) => Reply | Promise<Reply>;

/** The record id from the path. Anything but a positive integer cannot name a record: 404. */
export function recordId(params: PathParams, model: Model): number {
  const id = parseRecordId(params.id);
  if (id === null) throw notFound(model.name);
  return id;
}

/** Decoded path parameters, as hooks see them. */
export function pathParams(params: PathParams): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) decoded[name] = decodeParam(value) ?? value;
  return decoded;
}

/** The fields shared by every hook context. */
export function hookContext(request: Request, route: Route, params: PathParams, access?: RequestAccess): HookContext {
  return {
    request,
    model: route.model,
    params: pathParams(params),
    db: route.app.data.db,
    headers: new Headers(),
    principal: access?.principal ?? ANONYMOUS,
  };
}

const readRoutes = new WeakMap<Route, ReadRoute>();

/** What parsing a read needs of a route, made once per route. */
export function readRoute(route: Route): ReadRoute {
  let read = readRoutes.get(route);
  if (read === undefined) {
    const { registry, limits, cursors } = route.app;
    read = { model: route.model, parent: route.parent, registry, limits, cursors };
    readRoutes.set(route, read);
  }
  return read;
}

/** Loads a record or fails with the spec's 404. */
export async function findOr404(route: Route, id: number, filters: readonly Document[] = []): Promise<StoredDocument> {
  const doc = await route.store.findById(id, allOf(filters));
  if (!doc) throw notFound(route.model.name);
  return doc;
}
