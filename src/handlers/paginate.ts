import { toRecord } from "../model/serialize.ts";
import { pagination } from "../query/page.ts";
import { projection } from "../query/projection.ts";
import { parentKeys } from "../query/with.ts";
import { loadRelations } from "./relations.ts";
import { cachedGet } from "./cache.ts";
import type { PaginateContext } from "./context.ts";
import { parentFilter } from "./nested.ts";
import { finish } from "./output.ts";
import { parseListRequest } from "./request.ts";
import { allOf, hookContext, type Handler, type PathParams, type Route } from "./route.ts";
import { readScope } from "./scope.ts";

/**
 * PAGINATE: `GET /api/v1/<plural>`: one page, its total, and the paging metadata. This is the
 * list's hot path: what a request does not need (a parent lookup, hooks, relations) is skipped
 * without an `await` of its own.
 */
export const paginate: Handler = (request, route, params) => {
  const hooked = route.hooks.onBeforePaginate !== undefined || route.hooks.onAfterPaginate !== undefined;
  return cachedGet(request, route, hooked, () => listPage(request, route, params));
};

async function listPage(request: Request, route: Route, params: PathParams): Promise<unknown> {
  const { model, app, hooks } = route;
  const { query, trashed, parentId } = parseListRequest(request, route, params);
  if (route.parent && parentId !== undefined) {
    // Listing may include a trashed parent's children (trashed=true); creating under one may not.
    const parent = await parentFilter(route.parent, parentId, readScope(route.parent.model, trashed));
    query.filters[0] = { ...query.filters[0], ...parent };
  }
  const ctx = hookContext(request, route, params) as PaginateContext;
  ctx.query = query;
  if (hooks.onBeforePaginate) await hooks.onBeforePaginate(ctx);
  const [docs, total] = await route.store.page({
    filter: allOf(query.filters),
    sort: query.sort,
    skip: (query.page - 1) * query.perPage,
    limit: query.perPage,
    projection: projection(model, query.fields, parentKeys(query.with)),
  });
  const data = docs.map((doc) => toRecord(model, doc, query.fields));
  if (query.with.length > 0) await loadRelations(app.db, docs, data, query.with, app.limits, (m) => readScope(m, trashed));
  ctx.result = { data, pagination: pagination(query, total) };
  if (hooks.onAfterPaginate) await hooks.onAfterPaginate(ctx);
  return finish(route, ctx.result, hooks.onAfterPaginate);
}
