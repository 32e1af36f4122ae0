import { notFound } from "../errors.ts";
import { etagOf } from "../http/etag.ts";
import type { ApiRecord } from "../model/serialize.ts";
import { toRecord } from "../model/serialize.ts";
import { projection } from "../query/projection.ts";
import { parentKeys, type WithNode } from "../query/with.ts";
import { loadRelations } from "./relations.ts";
import { cachedGet, collectionsRead, type ReadResult } from "./cache.ts";
import { type ShowContext, toStoredRecord } from "./context.ts";
import { parentFilter, reachable } from "./nested.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { finish } from "./output.ts";
import { relationLoad } from "./relation-hooks.ts";
import { serializeRecord } from "./serialize-output.ts";
import { parseShowRequest } from "./request.ts";
import { allOf, type Handler, hookContext, type PathParams, type Route } from "./route.ts";
import { readScope } from "./scope.ts";

/** SHOW: `GET /api/v1/<plural>/<id>` (or nested, `/users/:userId/posts/<id>`): one record, with `fields` and `with` applied. */
export const show: Handler = (request, route, params) => {
  const hooked = route.hooks.onBeforeShow !== undefined || route.hooks.onAfterShow !== undefined;
  return cachedGet(request, route, hooked, () => oneRecord(request, route, params));
};

async function oneRecord(request: Request, route: Route, params: PathParams): Promise<ReadResult> {
  const { model, app, hooks } = route;
  const { id, query, trashed, parentIds } = parseShowRequest(request, route, params);
  if (route.parent && parentIds !== undefined) {
    // A nested item route reads only a child of these ancestors that its relation reaches: any other record is a 404.
    query.filters[0] = {
      ...query.filters[0],
      ...(await parentFilter(route.parent, parentIds, (m) => readScope(m, trashed))),
    };
    query.filters.push(reachable(route.parent));
  }
  const ctx: ShowContext = { ...hookContext(request, route, params), id, query };
  await hooks.onBeforeShow?.(ctx);
  const doc = await route.store.findById(
    id,
    allOf(query.filters),
    projection(model, query.fields, parentKeys(query.with)),
  );
  if (!doc) throw notFound(model.name);
  const record = toRecord(model, doc, query.fields);
  await loadRelations([doc], [record], query.with, relationLoad(request, route, params, query.with, trashed));
  ctx.item = toStoredRecord(doc);
  ctx.result = record;
  const recordTag = hooks.onAfterShow && (await plainTag(request, route, record, query.with));
  await hooks.onAfterShow?.(ctx);
  const body = await serializeRecord(request, app, model, finish(route, ctx.result, hooks.onAfterShow), query.with);
  return {
    recordTag,
    body,
    collections: collectionsRead(route, query.with),
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
