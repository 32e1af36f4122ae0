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
import { writeAccess } from "./write-access.ts";

/**
 * INSERT: `POST /api/v1/<plural>` (or a nested `POST /api/v1/users/:userId/posts`, where the
 * foreign key comes from the path): validates, stores with the next id, answers 201 with the record.
 * The before-hook sees the sent fields already checked ({@link bodyForHook}).
 */
export const insert: Handler = async (request, route, params, access) => {
  const { model, app, hooks, parent } = route;
  const parentIds = parent ? parentIdsOf(params, parent) : undefined;
  refuseWriteParameters(request, route);
  const rules = writeAccess(route, access, "insert");
  const body = await readJsonBody(request, app.bodyLimit);
  const path = await liveParentFilter(route, parentIds, access);
  Object.assign(body, path);
  rules.prepare(body);
  const ctx: InsertContext = {
    ...hookContext(request, route, params, access),
    body: bodyForHook(model, body, hooks.onBeforeInsert),
  };
  await hooks.onBeforeInsert?.(ctx);
  rules.prepare(ctx.body);
  const data = validateBody(model, ctx.body);
  rules.verify(data, path);
  await checkReferences(route, data, access);
  const doc = await route.store.insert(data);
  ctx.item = toStoredRecord(doc);
  ctx.result = toRecord(rules.view, doc);
  const recordTag = hooks.onAfterInsert && (await recordEtag(request, route, doc, rules.view));
  await hooks.onAfterInsert?.(ctx);
  const output = await serializeRecord(
    request,
    app,
    model,
    finish(route, ctx.result, hooks.onAfterInsert, rules.view),
    [],
  );
  return writtenJson(output, hookStatus(ctx, 201), app.language, hookHeaders(ctx), recordTag);
};
