import { linkHeader } from "../http/link.ts";
import { toRecord } from "../model/serialize.ts";
import { filterOf, hasRelated } from "../plan/conditions.ts";
import { principalDigest, type RequestAccess } from "../query/access.ts";
import { pageRead } from "../query/compile.ts";
import { pagination } from "../query/page.ts";
import { type ListPlan, planList } from "../query/plan.ts";
import { listPath } from "../query/list-cursor.ts";
import type { Window } from "../store/window.ts";
import { cachedHandler, type ReadResult } from "./cache.ts";
import { stopIfGone } from "./client-gone.ts";
import { listQuery, type PaginateContext } from "./context.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { finish } from "./output.ts";
import { loadWith } from "./relation-hooks.ts";
import { hasSerializer, serializeRecords } from "./serialize-output.ts";
import { type Handler, hookContext, type PathParams, readRoute, type Route } from "./route.ts";

/**
 * PAGINATE: `GET /api/v1/<plural>`: one page, its total, and the paging metadata, by page
 * number or by cursor. Parse → plan → execute → respond: the request becomes a plan without a
 * database command (every parameter error is a 400 there); the store resolves its related
 * conditions, checks a nested route's ancestors, reads the page and its count, then its
 * relations; the hooks run around those steps. This is the list's hot path: what a request
 * does not need (related conditions, a parent lookup, hooks, relations) costs no `await`.
 */
export const paginate: Handler = cachedHandler("paginate", listPage);

async function listPage(
  request: Request,
  route: Route,
  params: PathParams,
  access?: RequestAccess,
): Promise<ReadResult> {
  const { app, hooks } = route;
  const plan = await planList(request.url, readRoute(route), params, access);
  if (hasRelated(plan.where)) stopIfGone(request);
  const where = hasRelated(plan.where) ? await app.data.resolve(plan.where) : filterOf(plan.where);
  if (plan.ancestors.length > 0) await app.data.checkAncestors(plan.ancestors);
  const ctx: PaginateContext = { ...hookContext(request, route, params, access), query: listQuery(plan) };
  if (hooks.onBeforePaginate) await hooks.onBeforePaginate(ctx);
  const { window, counted } = await app.data.readPage(pageRead(plan, where, ctx.query.filters));
  const data = window.docs.map((doc) => toRecord(plan.model, doc, plan.fields));
  if (plan.with.length > 0) await loadWith(request, route, params, plan, { docs: window.docs, records: data });
  const cursors = await sealNeighbours(request.url, route, plan, window);
  const position = { page: plan.position ? null : plan.page, perPage: plan.perPage };
  ctx.result = { data, pagination: pagination(position, counted, cursors) };
  if (hooks.onAfterPaginate) await hooks.onAfterPaginate(ctx);
  return await respond(request, route, ctx, plan);
}

/** The response of a page: the body (hidden fields out again, serializers run), Link, the hooks' headers and status. */
async function respond(request: Request, route: Route, ctx: PaginateContext, plan: ListPlan): Promise<ReadResult> {
  const { app, model, hooks } = route;
  const result = ctx.result!;
  const link = linkHeader(request.url, result.pagination.next, result.pagination.prev);
  const fromHooks = hookHeaders(ctx);
  const body = finish(route, result, hooks.onAfterPaginate, plan.model);
  if (hasSerializer(app, model, plan.with) && Array.isArray(body.data)) {
    body.data = (await serializeRecords(request, app, model, body.data, plan.with)) as typeof body.data;
  }
  return {
    body,
    collections: plan.collections,
    headers: link === undefined ? fromHooks : { link, ...fromHooks },
    status: hookStatus(ctx, 200),
  };
}

/** Cursors of the pages after and before this one, pinning the parameters the page was read with. */
async function sealNeighbours(url: string, route: Route, plan: ListPlan, window: Window) {
  // Pinned on every model: on one without soft delete `trashed` still selects trashed
  // ancestors, relations loaded through `with` and related records in `q`.
  const who = plan.access && principalDigest(plan.access.principal);
  const base = { list: listPath(url), ...plan.pinned, perPage: plan.perPage, ...(who ? { who } : {}) };
  const { cursors } = route.app;
  const [next, prev] = await Promise.all([
    window.next && cursors.seal({ ...base, side: "after", key: window.next }),
    window.prev && cursors.seal({ ...base, side: "before", key: window.prev }),
  ]);
  return { next, prev };
}
