import type { Db, Document } from "mongodb";
import { notFound } from "../errors.ts";
import { decodeParam, QueryParams, type RawQuery } from "../http/params.ts";
import type { Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { QueryLimits } from "../query/limits.ts";
import type { RecordStore, StoredDocument } from "../store/records.ts";
import type { HookContext, ModelHooks } from "./context.ts";
import type { ParentLink } from "./nested.ts";

/** App-wide settings every handler can read. */
export interface AppState {
  db: Db;
  registry: ModelRegistry;
  stores: ReadonlyMap<string, RecordStore>;
  bodyLimit: number;
  language: string;
  limits: QueryLimits;
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

/** The request as itty-router hands it over: with raw path params and parsed query. */
export type RouteRequest = Request & { params: Record<string, string>; query: RawQuery };

/** A generated handler: one per HTTP verb. */
export type Handler = (request: RouteRequest, route: Route) => Promise<Response>;

const ID = /^[1-9][0-9]{0,15}$/;

/** The record id from the path. Anything but a positive integer cannot name a record: 404. */
export function recordId(request: RouteRequest, model: Model): number {
  const raw = decodeParam(request.params.id);
  if (raw === null || !ID.test(raw) || !Number.isSafeInteger(Number(raw))) throw notFound(model.name);
  return Number(raw);
}

/** Decoded path parameters, as hooks see them. */
export function pathParams(request: RouteRequest): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.params ?? {})) params[name] = decodeParam(value) ?? value;
  return params;
}

/** The fields shared by every hook context. */
export function hookContext(request: RouteRequest, route: Route): HookContext {
  return { request, model: route.model, params: pathParams(request), db: route.app.db };
}

/** Query parameters with the one-value-per-name rule. */
export function queryParams(request: RouteRequest): QueryParams {
  return new QueryParams(request.query ?? {});
}

/** ANDs filters, leaving out empty ones so the common case stays `{}`. */
export function allOf(filters: readonly Document[]): Document {
  const parts = filters.filter((filter) => Object.keys(filter).length > 0);
  if (parts.length === 0) return {};
  return parts.length === 1 ? parts[0] : { $and: parts };
}

/** Loads a record or fails with the spec's 404. */
export async function findOr404(route: Route, id: number, filters: readonly Document[] = []): Promise<StoredDocument> {
  const doc = await route.store.findById(id, allOf(filters));
  if (!doc) throw notFound(route.model.name);
  return doc;
}
