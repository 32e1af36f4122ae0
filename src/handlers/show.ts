import { notFound } from "../errors.ts";
import { toRecord } from "../model/serialize.ts";
import { planShow } from "../query/plan.ts";
import { projection } from "../query/projection.ts";
import { parentKeys } from "../query/with.ts";
import { loadRelations } from "./relations.ts";
import { cachedGet } from "./cache.ts";
import { toStoredRecord, type ShowContext } from "./context.ts";
import { finish } from "./output.ts";
import { allOf, hookContext, queryParams, recordId, type Handler, type Route, type RouteRequest } from "./route.ts";
import { scopeOf } from "./scope.ts";

/** SHOW: `GET /api/v1/<plural>/<id>`: one record, with `fields` and `with` applied. */
export const show: Handler = (request, route) => {
  const hooked = route.hooks.onBeforeShow !== undefined || route.hooks.onAfterShow !== undefined;
  return cachedGet(request, route, hooked, () => oneRecord(request, route));
};

async function oneRecord(request: RouteRequest, route: Route): Promise<unknown> {
  const { model, app, hooks } = route;
  const id = recordId(request, model);
  const query = planShow(queryParams(request), model, app, scopeOf(request, model));
  const ctx: ShowContext = { ...hookContext(request, route), id, query };
  await hooks.onBeforeShow?.(ctx);
  const doc = await route.store.findById(id, allOf(query.filters), projection(model, query.fields, parentKeys(query.with)));
  if (!doc) throw notFound(model.name);
  const record = toRecord(model, doc, query.fields);
  await loadRelations(app.db, [doc], [record], query.with, app.limits, (m) => scopeOf(request, m));
  ctx.item = toStoredRecord(doc);
  ctx.result = record;
  await hooks.onAfterShow?.(ctx);
  return finish(route, ctx.result, hooks.onAfterShow);
}
