import { apiError } from "../errors.ts";
import { QueryParams } from "../http/params.ts";
import { storedName } from "../query/columns.ts";
import {
  LIST_PARAMETERS,
  type ListQuery,
  type ParamSource,
  planList,
  planShow,
  SHOW_PARAMETERS,
  type ShowQuery,
} from "../query/plan.ts";
import { checkPinned, openCursor, type OpenedCursor } from "./list-cursor.ts";
import { linkRelation, type ParentIds, parentIdsOf, type ParentLink, reachable } from "./nested.ts";
import { resolveRelatedConditions } from "./related-where.ts";
import { type PathParams, recordId, type Route } from "./route.ts";
import { readScope } from "./scope.ts";

/**
 * A read request, parsed and checked in one step before the first database command: a bad
 * parameter (path id, page, per_page, fields, q, with, sort, trashed) is a 4xx that sends
 * nothing to the database.
 */
interface ReadRequest {
  /** `trashed=true`: soft-deleted records are read too (the model's and its relations'). */
  trashed: boolean;
  /** On a nested route: every ancestor's id from the path, looked up only after parsing. */
  parentIds: ParentIds | undefined;
}

/** PAGINATE's parsed request. */
export interface ListRequest extends ReadRequest {
  query: ListQuery;
  /** The opened `cursor` parameter, or null for a page by number. */
  cursor: OpenedCursor | null;
  /** The parameters the page is planned with: the cursor's pinned ones over the request's. */
  source: ParamSource;
  /** Collections read to resolve conditions on related records (`q={"user.name":…}`). */
  relatedCollections: string[];
}

/** SHOW's parsed request. */
export interface ShowRequest extends ReadRequest {
  id: number;
  query: ShowQuery;
}

/**
 * Parses a list request: path, then the cursor (its signature; no database needed), then every
 * query parameter, into the plan PAGINATE runs. A cursor's pinned parameters (sort, q,
 * per_page, trashed) plan the page; the request may repeat them only unchanged.
 */
export async function parseListRequest(request: Request, route: Route, params: PathParams): Promise<ListRequest> {
  const parentIds = route.parent ? parentIdsOf(params, route.parent) : undefined;
  const given = new QueryParams(request.url);
  given.refuseUnknown(LIST_PARAMETERS, route.model.params);
  const cursor = given.get("cursor") === null ? null : await openCursor(given, request.url, route);
  // A cursor's pinned `trashed` was checked when the cursor was made.
  const trashed = cursor ? cursor.state.trashed === "true" : given.flag("trashed");
  const source = cursor?.params ?? given;
  const query = planList(source, route.model, route.app, readScope(route.model, trashed));
  if (cursor) checkPinned(given, query, route.model, route.app.limits, cursor.state, route.app.registry);
  if (route.parent) applyRelationOptions(query, route.parent, source);
  const relatedCollections = await resolveRelatedConditions(request, route, query, trashed);
  return { parentIds, trashed, query, cursor, source, relatedCollections };
}

/**
 * A nested list (`/users/1/posts`, at any depth, and the old URL too) honours the options of
 * the relation it lists: the fixed `filter` always, the `sort` when the request sends none, and
 * `limit` as the largest page (the default page size is lowered to it; a larger `per_page` is
 * refused like any out-of-range one).
 */
function applyRelationOptions(query: ListQuery, link: ParentLink, source: ParamSource): void {
  const relation = linkRelation(link);
  query.filters.push(reachable(link));
  if (relation.sort && !source.get("sort")?.trim()) {
    const sort: Record<string, 1 | -1> = {};
    for (const [field, direction] of Object.entries(relation.sort)) sort[storedName(field)] = direction;
    query.sort = { ...sort, _id: sort._id ?? 1 };
  }
  if (relation.limit === undefined || query.perPage <= relation.limit) return;
  const asked = source.get("per_page");
  if (asked !== null) {
    throw apiError("param.integerRange", { name: "per_page", min: 1, max: relation.limit, value: asked });
  }
  query.perPage = relation.limit;
}

/** Refuses query parameters on a write: the generated writes take none (a model's hooks may take its `params`). */
export function refuseWriteParameters(request: Request, route: Route): void {
  if (request.url.includes("?")) new QueryParams(request.url).refuseUnknown([], route.model.params);
}

/** Parses a show request: the ancestors' ids on a nested route, the record id, then `fields`, `with` and `trashed`. */
export function parseShowRequest(request: Request, route: Route, params: PathParams): ShowRequest {
  const parentIds = route.parent ? parentIdsOf(params, route.parent) : undefined;
  const id = recordId(params, route.model);
  const query = new QueryParams(request.url);
  query.refuseUnknown(SHOW_PARAMETERS, route.model.params);
  const trashed = query.flag("trashed");
  return { id, parentIds, trashed, query: planShow(query, route.model, route.app, readScope(route.model, trashed)) };
}
