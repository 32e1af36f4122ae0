import type { Db, Document } from "mongodb";
import type { Model, Relation } from "../model/define.ts";
import type { ApiRecord } from "../model/serialize.ts";
import type { Pagination } from "../query/page.ts";
import type { ListQuery } from "../query/plan.ts";

/**
 * A stored record as server code sees it: `id` instead of `_id`, every field (hidden ones
 * included) and dates as Date objects. It is never sent to clients as it is.
 */
export type StoredRecord = Record<string, unknown> & { id: number };

/** What every hook receives. */
export interface HookContext {
  /** The incoming request (headers, URL, method). */
  request: Request;
  /** The model the route belongs to. */
  model: Model;
  /** Path parameters, URL-decoded (e.g. `{ id: "7" }`). */
  params: Record<string, string>;
  /** The database, for hooks that need to look something up. */
  db: Db;
  /**
   * Headers added to the successful response: `ctx.headers.set("location", "/api/v1/jobs/7")`.
   * A header the framework also sets (Content-Type, ETag, Link) is replaced; Content-Length
   * and Transfer-Encoding stay the framework's. Error responses do not carry them.
   */
  headers: Headers;
  /**
   * The status of the successful response, when a hook (usually an after-hook) wants another
   * 2xx than the handler's own: `ctx.status = 202` instead of 201. 204 and 205 send no body.
   */
  status?: number;
}

export type { ListQuery } from "../query/plan.ts";

/** The PAGINATE response body. */
export interface PaginateResult {
  data: ApiRecord[];
  pagination: Pagination;
}

/** PAGINATE: `query` before, `result` after. */
export interface PaginateContext extends HookContext {
  query: ListQuery;
  result?: PaginateResult;
}

/** SHOW: `id` and `query` before; `item` and `result` after. */
export interface ShowContext extends HookContext {
  id: number;
  query: Pick<ListQuery, "fields" | "filters" | "with">;
  item?: StoredRecord;
  result?: ApiRecord;
}

/**
 * INSERT: `body` holds the fields sent, each already checked and converted; required fields,
 * defaults and whatever a before-hook changes are checked after it. `item` and `result` after.
 */
export interface InsertContext extends HookContext {
  body: Record<string, unknown>;
  item?: StoredRecord;
  result?: ApiRecord;
}

/**
 * UPDATE and PATCH: `body` as for INSERT (checked fields sent); `item` is the record as stored
 * before the change; after the change it is the new one.
 */
export interface UpdateContext extends HookContext {
  id: number;
  body: Record<string, unknown>;
  item: StoredRecord;
  result?: ApiRecord;
}

/** DELETE: `item` is the record about to be removed. */
export interface DeleteContext extends HookContext {
  id: number;
  item: StoredRecord;
}

/**
 * A relation about to be loaded through `with`, in the related model's hooks: `model` is the
 * related model, `owner` the model that declares `relation`. Push MongoDB filters onto `filters`
 * to narrow which related records load, e.g. by the user the request is from. It has no
 * `headers` or `status`: the response belongs to the handler's own hooks, which run around it.
 */
export interface RelationContext extends Omit<HookContext, "headers" | "status"> {
  relation: Relation;
  owner: Model;
  filters: Document[];
}

type Hook<C> = (ctx: C) => void | Promise<void>;

/** The fifteen hooks a model can have; each may be async and may throw ApiError to stop the request. */
export interface ModelHooks {
  onBeforePaginate?: Hook<PaginateContext>;
  onAfterPaginate?: Hook<PaginateContext>;
  onBeforeShow?: Hook<ShowContext>;
  onAfterShow?: Hook<ShowContext>;
  onBeforeInsert?: Hook<InsertContext>;
  onAfterInsert?: Hook<InsertContext>;
  onBeforeUpdate?: Hook<UpdateContext>;
  onAfterUpdate?: Hook<UpdateContext>;
  onBeforePatch?: Hook<UpdateContext>;
  onAfterPatch?: Hook<UpdateContext>;
  onBeforeDelete?: Hook<DeleteContext>;
  onAfterDelete?: Hook<DeleteContext>;
  /** `DELETE …/force` on a soft-delete model runs these, not the (soft) delete hooks. */
  onBeforeForceDelete?: Hook<DeleteContext>;
  onAfterForceDelete?: Hook<DeleteContext>;
  /** Runs once per request for each `with` relation that loads this model's records. */
  onBeforeRelation?: Hook<RelationContext>;
}

/** Every hook name, for checking hook files at start-up. */
export const HOOK_NAMES: readonly (keyof ModelHooks)[] = [
  "onBeforePaginate",
  "onAfterPaginate",
  "onBeforeShow",
  "onAfterShow",
  "onBeforeInsert",
  "onAfterInsert",
  "onBeforeUpdate",
  "onAfterUpdate",
  "onBeforePatch",
  "onAfterPatch",
  "onBeforeDelete",
  "onAfterDelete",
  "onBeforeForceDelete",
  "onAfterForceDelete",
  "onBeforeRelation",
];

/** Identity function that gives a hooks file its types: `export default defineHooks({ ... })`. */
export function defineHooks(hooks: ModelHooks): ModelHooks {
  return hooks;
}

/** Converts a stored document for server-side code: `_id` becomes `id`. */
export function toStoredRecord(doc: Document): StoredRecord {
  const { _id, _rev, ...rest } = doc;
  return { id: _id as number, ...rest };
}
