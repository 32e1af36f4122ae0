import { readJsonBody } from "../http/body.ts";
import { json } from "../http/responses.ts";
import { toRecord } from "../model/serialize.ts";
import { validateBody } from "../model/validate.ts";
import { toStoredRecord, type InsertContext } from "./context.ts";
import { finish } from "./output.ts";
import { hookContext, type Handler } from "./route.ts";

/** INSERT: `POST /api/v1/<plural>`: validates, stores with the next id, answers 201 with the record. */
export const insert: Handler = async (request, route) => {
  const { model, app, hooks } = route;
  const body = await readJsonBody(request, app.bodyLimit);
  const ctx: InsertContext = { ...hookContext(request, route), body };
  await hooks.onBeforeInsert?.(ctx);
  const doc = await route.store.insert(validateBody(model, ctx.body));
  ctx.item = toStoredRecord(doc);
  ctx.result = toRecord(model, doc);
  await hooks.onAfterInsert?.(ctx);
  return json(finish(route, ctx.result, hooks.onAfterInsert), 201, app.language);
};
