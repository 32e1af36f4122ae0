import type { Document } from "bson";
import type { CountStrategy, Model, Relation } from "../model/define.ts";
import type { Principal } from "../model/access.ts";
import type { ApiRecord } from "../model/serialize.ts";
import type { Condition } from "../plan/conditions.ts";
import type { Pagination } from "../query/page.ts";
import type { ListPlan, ShowPlan } from "../query/plan.ts";
import type { WithNode } from "../query/with.ts";
import type { HookDatabase } from "../store/data-store.ts";

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
  db: HookDatabase;
  /** Who the request is from (`auth`): subject, roles, claims; the anonymous principal without credentials or `auth`. */
  principal: Principal;
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

/**
 * What a list's before-hook sees of the planned read, and may change: the parsed request, read
 * only, and `filters`, where it pushes server-side MongoDB filters that are ANDed with the
 * rest (`ctx.query.filters.push({ user_id: 7 })`). It starts empty: the client's conditions and
 * the server's own scope are in the plan, where no hook can drop them.
 */
export interface ListQuery {
  /** The page number; 1 on a page read by cursor (its position is the cursor's). */
  readonly page: number;
  readonly perPage: number;
  /** How `total` is to be counted. */
  readonly count: CountStrategy;
  /** Selected columns, or null for all visible ones. */
  readonly fields: readonly string[] | null;
  /** The MongoDB sort, `_id` last. */
  readonly sort: Readonly<Document>;
  readonly with: readonly WithNode[];
  /** The client's conditions (`q`), as parsed. */
  readonly where: Condition;
  /** Server-side MongoDB filters the hook adds; ANDed with everything else. */
  readonly filters: Document[];
}

/** What SHOW's before-hook sees and may change: the fields and relations asked for, and `filters` to add. */
export type ShowQuery = Pick<ListQuery, "fields" | "with" | "filters">;

/** The view of a list plan a before-hook gets (see {@link ListQuery}). */
export function listQuery(plan: ListPlan): ListQuery {
  const { page, perPage, count, fields, sort, with: nodes, where } = plan;
  return Object.freeze({ page, perPage, count, fields, sort, with: nodes, where, filters: [] });
}

/** The view of a show plan a before-hook gets. */
export function showQuery(plan: ShowPlan): ShowQuery {
  return Object.freeze({ fields: plan.fields, with: plan.with, filters: [] });
}

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
  query: ShowQuery;
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

/** Identity function that gives a hooks file its types: `export default defineHooks({ ... })`. */
export function defineHooks(hooks: ModelHooks): ModelHooks {
  return hooks;
}

/** Converts a stored document for server-side code: `_id` becomes `id`. */
export function toStoredRecord(doc: Document): StoredRecord {
  const { _id, _rev, ...rest } = doc;
  return { id: _id as number, ...rest };
}
