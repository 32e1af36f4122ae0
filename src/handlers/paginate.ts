import type { Document } from "mongodb";
import { linkHeader } from "../http/link.ts";
import type { Model } from "../model/define.ts";
import { toRecord } from "../model/serialize.ts";
import { type SortKey, sortKeys } from "../query/keyset.ts";
import { pagination } from "../query/page.ts";
import { projection } from "../query/projection.ts";
import { parentKeys } from "../query/with.ts";
import { loadRelations } from "./relations.ts";
import { cachedGet, collectionsRead, type ReadResult } from "./cache.ts";
import type { ListQuery, PaginateContext } from "./context.ts";
import { listPath } from "./list-cursor.ts";
import { readWindow, type Window } from "./list-window.ts";
import { parentFilter } from "./nested.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { finish } from "./output.ts";
import { relationLoad } from "./relation-hooks.ts";
import { hasSerializer, serializeRecords } from "./serialize-output.ts";
import { parseListRequest } from "./request.ts";
import { allOf, type Handler, hookContext, type PathParams, type Route } from "./route.ts";
import { readScope } from "./scope.ts";

/**
 * PAGINATE: `GET /api/v1/<plural>`: one page, its total, and the paging metadata, by page
 * number or by cursor. This is the list's hot path: what a request does not need (a parent
 * lookup, hooks, relations) is skipped without an `await` of its own.
 */
export const paginate: Handler = (request, route, params) => {
  const hooked = route.hooks.onBeforePaginate !== undefined || route.hooks.onAfterPaginate !== undefined;
  return cachedGet(request, route, hooked, () => listPage(request, route, params));
};

/** The fields to read: the selection, the relation keys, and the sort keys the cursors are made of. */
function readProjection(model: Model, query: ListQuery, keys: readonly SortKey[]): Document | undefined {
  const sortFields = keys.map(([path]) => (path === "_id" ? "id" : path));
  return projection(model, query.fields, [...parentKeys(query.with), ...sortFields]);
}

async function listPage(request: Request, route: Route, params: PathParams): Promise<ReadResult> {
  const { model, app, hooks } = route;
  const { query, trashed, parentIds, cursor, source, relatedCollections } = await parseListRequest(
    request,
    route,
    params,
  );
  if (route.parent && parentIds !== undefined) {
    // Listing may include a trashed parent's children (trashed=true); creating under one may not.
    const parent = await parentFilter(route.parent, parentIds, (m) => readScope(m, trashed));
    query.filters[0] = { ...query.filters[0], ...parent };
  }
  const ctx = hookContext(request, route, params) as PaginateContext;
  ctx.query = query;
  if (hooks.onBeforePaginate) await hooks.onBeforePaginate(ctx);
  const keys = sortKeys(query.sort);
  const filter = allOf(query.filters);
  const [window, counted] = await Promise.all([
    readWindow(route.store, {
      filter,
      sort: query.sort,
      keys,
      perPage: query.perPage,
      skip: (query.page - 1) * query.perPage,
      position: cursor && { side: cursor.state.side, key: cursor.state.key },
      projection: readProjection(model, query, keys),
    }),
    route.store.counter.count(filter, query.count),
  ]);
  const data = window.docs.map((doc) => toRecord(model, doc, query.fields));
  if (query.with.length > 0) {
    await loadRelations(window.docs, data, query.with, relationLoad(request, route, params, query.with, trashed));
  }
  const cursors = await sealNeighbours(request.url, route, source, query.perPage, window);
  ctx.result = {
    data,
    pagination: pagination({ page: cursor ? null : query.page, perPage: query.perPage }, counted, cursors),
  };
  if (hooks.onAfterPaginate) await hooks.onAfterPaginate(ctx);
  const link = linkHeader(request.url, ctx.result.pagination.next, ctx.result.pagination.prev);
  const fromHooks = hookHeaders(ctx);
  const body = finish(route, ctx.result, hooks.onAfterPaginate);
  if (hasSerializer(app, model, query.with) && Array.isArray(body.data)) {
    body.data = (await serializeRecords(request, app, model, body.data, query.with)) as typeof body.data;
  }
  return {
    body,
    collections: [...collectionsRead(route, query.with), ...relatedCollections],
    headers: link === undefined ? fromHooks : { link, ...fromHooks },
    status: hookStatus(ctx, 200),
  };
}

/** Cursors of the pages after and before this one, pinning the parameters the page was read with. */
async function sealNeighbours(
  url: string,
  route: Route,
  params: { get(name: string): string | null },
  perPage: number,
  window: Window,
) {
  const base = {
    list: listPath(url),
    q: params.get("q"),
    sort: params.get("sort"),
    // Pinned on every model: on one without soft delete it still selects trashed ancestors,
    // relations loaded through `with` and related records in `q`.
    trashed: params.get("trashed"),
    perPage,
  };
  const { cursors } = route.app;
  const [next, prev] = await Promise.all([
    window.next && cursors.seal({ ...base, side: "after", key: window.next }),
    window.prev && cursors.seal({ ...base, side: "before", key: window.prev }),
  ]);
  return { next, prev };
}
