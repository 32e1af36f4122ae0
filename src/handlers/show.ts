import { notFound } from "../errors.ts";
import { etagOf } from "../http/etag.ts";
import type { ApiRecord } from "../model/serialize.ts";
import { toRecord } from "../model/serialize.ts";
import { showFilter, showProjection } from "../query/compile.ts";
import { planShow } from "../query/plan.ts";
import type { RequestAccess } from "../query/access.ts";
import type { WithNode } from "../query/with.ts";
import { cachedHandler, type ReadResult } from "./cache.ts";
import { type ShowContext, showQuery, toStoredRecord } from "./context.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { finish } from "./output.ts";
import { loadWith } from "./relation-hooks.ts";
import { serializeRecord } from "./serialize-output.ts";
import { type Handler, hookContext, type PathParams, readRoute, type Route } from "./route.ts";

/** SHOW: `GET /api/v1/<plural>/<id>` (or nested, `/users/:userId/posts/<id>`): one record, with `fields` and `with` applied. */
export const show: Handler = cachedHandler("show", oneRecord);

async function oneRecord(
  request: Request,
  route: Route,
  params: PathParams,
  access?: RequestAccess,
): Promise<ReadResult> {
  const { model, app, hooks } = route;
  const plan = planShow(request.url, readRoute(route), params, access);
  // A nested item route reads only a child of these ancestors that its relation reaches: any other record is a 404.
  if (plan.ancestors.length > 0) await app.data.checkAncestors(plan.ancestors);
  const ctx: ShowContext = { ...hookContext(request, route, params, access), id: plan.id, query: showQuery(plan) };
  await hooks.onBeforeShow?.(ctx);
  const doc = await app.data.readOne(
    model.name,
    plan.id,
    showFilter(plan, ctx.query.filters),
    showProjection(plan),
  );
  if (!doc) throw notFound(model.name);
  const record = toRecord(plan.model, doc, plan.fields);
  await loadWith(request, route, params, plan, { docs: [doc], records: [record] });
  ctx.item = toStoredRecord(doc);
  ctx.result = record;
  const recordTag = hooks.onAfterShow && (await plainTag(request, route, record, plan.with));
  await hooks.onAfterShow?.(ctx);
  const body = await serializeRecord(
    request,
    app,
    model,
    finish(route, ctx.result, hooks.onAfterShow, plan.model),
    plan.with,
  );
  return {
    recordTag,
    body,
    collections: plan.collections,
    headers: hookHeaders(ctx),
    status: hookStatus(ctx, 200),
  };
}

/**
 * The tag this SHOW would carry without its after-hook: If-Match compares the record's part of
 * the hooked tag with it. Serializing works on a copy, since it rewrites relations in place.
 */
async function plainTag(
  request: Request,
  route: Route,
  record: ApiRecord,
  nodes: readonly WithNode[],
): Promise<string> {
  const plain = await serializeRecord(request, route.app, route.model, structuredClone(record), nodes);
  return etagOf(JSON.stringify(plain));
}
