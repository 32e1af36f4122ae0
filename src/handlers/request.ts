import { QueryParams } from "../http/params.ts";
import { planList, planShow, type ListQuery, type ShowQuery } from "../query/plan.ts";
import { parentIdOf } from "./nested.ts";
import { recordId, type PathParams, type Route } from "./route.ts";
import { readScope } from "./scope.ts";

/**
 * A read request, parsed and checked in one step before the first database command: a bad
 * parameter (path id, page, per_page, fields, q, with, sort, trashed) is a 4xx that sends
 * nothing to the database.
 */
interface ReadRequest {
  /** `trashed=true`: soft-deleted records are read too (the model's and its relations'). */
  trashed: boolean;
  /** On a nested route: the parent id from the path, looked up only after parsing. */
  parentId: number | undefined;
}

/** PAGINATE's parsed request. */
export interface ListRequest extends ReadRequest {
  query: ListQuery;
}

/** SHOW's parsed request. */
export interface ShowRequest extends ReadRequest {
  id: number;
  query: ShowQuery;
}

/** Parses a list request: path, then every query parameter, into the plan PAGINATE runs. */
export function parseListRequest(request: Request, route: Route, params: PathParams): ListRequest {
  const parentId = route.parent ? parentIdOf(params, route.parent) : undefined;
  const query = new QueryParams(request.url);
  const trashed = query.flag("trashed");
  return { parentId, trashed, query: planList(query, route.model, route.app, readScope(route.model, trashed)) };
}

/** Parses a show request: the record id, then `fields`, `with` and `trashed`. */
export function parseShowRequest(request: Request, route: Route, params: PathParams): ShowRequest {
  const id = recordId(params, route.model);
  const query = new QueryParams(request.url);
  const trashed = query.flag("trashed");
  return { id, parentId: undefined, trashed, query: planShow(query, route.model, route.app, readScope(route.model, trashed)) };
}
