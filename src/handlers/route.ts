import type { Db, Document } from "mongodb";
import { notFound } from "../errors.ts";
import { decodeParam, parseRecordId } from "../http/params.ts";
import type { ResponseCache } from "../http/response-cache.ts";
import type { Model, Serializer } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { CursorSealer } from "../query/cursor.ts";
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
 * A generated handler: one per HTTP verb. The router hands over the path parameters. A GET
 * answered from the response cache returns its Response without a Promise (no await to pay).
 */
export type Handler = (request: Request, route: Route, params: PathParams) => Response | Promise<Response>;

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
export function hookContext(request: Request, route: Route, params: PathParams): HookContext {
  return { request, model: route.model, params: pathParams(params), db: route.app.db, headers: new Headers() };
}

/**
 * ANDs filters, leaving out empty ones so the common case stays `{}`. Filters whose keys do not
 * overlap are merged into one object rather than wrapped in `$and`, so the database sees plain
 * top-level conditions it can serve from an index.
 * @example allOf([{ deleted_at: null }, { user_id: 2 }]) // { deleted_at: null, user_id: 2 }
 * @example allOf([{ a: 1 }, { a: 2 }])                   // { $and: [{ a: 1 }, { a: 2 }] }
 */
export function allOf(filters: readonly Document[]): Document {
  const parts = filters.filter((filter) => Object.keys(filter).length > 0);
  if (parts.length <= 1) return parts[0] ?? {};
  const merged: Document = {};
  for (const part of parts) {
    for (const key of Object.keys(part)) {
      if (Object.hasOwn(merged, key)) return { $and: parts };
      merged[key] = part[key];
    }
  }
  return merged;
}

/** Loads a record or fails with the spec's 404. */
export async function findOr404(route: Route, id: number, filters: readonly Document[] = []): Promise<StoredDocument> {
  const doc = await route.store.findById(id, allOf(filters));
  if (!doc) throw notFound(route.model.name);
  return doc;
}
