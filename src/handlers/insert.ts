import { readJsonBody } from "../http/body.ts";
import { writtenJson } from "../http/responses.ts";
import { toRecord } from "../model/serialize.ts";
import { validateBody } from "../model/validate.ts";
import { type InsertContext, toStoredRecord } from "./context.ts";
import { bodyForHook } from "./hook-body.ts";
import { checkReferences } from "./integrity.ts";
import { parentIdsOf } from "../query/nesting.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { finish } from "./output.ts";
import { recordEtag } from "./preconditions.ts";
import { serializeRecord } from "./serialize-output.ts";
import { type Handler, hookContext } from "./route.ts";
import { liveParentFilter, refuseWriteParameters } from "./write-path.ts";

/**
 * INSERT: `POST /api/v1/<plural>` (or a nested `POST /api/v1/users/:userId/posts`, where the
 * foreign key comes from the path): validates, stores with the next id, answers 201 with the record.
 * The before-hook sees the sent fields already checked ({@link bodyForHook}).
 */
export const insert: Handler = async (request, route, params) => {
  const { model, app, hooks, parent } = route;
  const parentIds = parent ? parentIdsOf(params, parent) : undefined;
  refuseWriteParameters(request, route);
  const body = await readJsonBody(request, app.bodyLimit);
  Object.assign(body, await liveParentFilter(route, parentIds));
  const ctx: InsertContext = {
    ...hookContext(request, route, params),
    body: bodyForHook(model, body, hooks.onBeforeInsert),
  };
  await hooks.onBeforeInsert?.(ctx);
  const data = validateBody(model, ctx.body);
  await checkReferences(route, data);
  const doc = await route.store.insert(data);
  ctx.item = toStoredRecord(doc);
  ctx.result = toRecord(model, doc);
  const recordTag = hooks.onAfterInsert && (await recordEtag(request, route, doc));
  await hooks.onAfterInsert?.(ctx);
  const output = await serializeRecord(request, app, model, finish(route, ctx.result, hooks.onAfterInsert), []);
  return writtenJson(output, hookStatus(ctx, 201), app.language, hookHeaders(ctx), recordTag);
};
