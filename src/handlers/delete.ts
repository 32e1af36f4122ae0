import { notFound } from "../errors.ts";
import { empty } from "../http/responses.ts";
import { toStoredRecord, type DeleteContext } from "./context.ts";
import { findOr404, hookContext, recordId, type Handler } from "./route.ts";
import { scopeOf } from "./scope.ts";

/**
 * DELETE: `DELETE /api/v1/<plural>/<id>`: 204 with no body. On a soft-delete model it sets
 * `deleted_at` instead, so the record drops out of reads but can still be listed with `trashed=true`.
 */
export const remove: Handler = async (request, route) => {
  const { model, app, hooks } = route;
  const id = recordId(request, model);
  const scope = scopeOf(request, model);
  const ctx: DeleteContext = { ...hookContext(request, route), id, item: toStoredRecord(await findOr404(route, id, [scope])) };
  await hooks.onBeforeDelete?.(ctx);
  const guard = { ...scope, _id: id };
  const done = model.softDelete
    ? (await route.store.update(guard, { deleted_at: new Date() })) !== null
    : await route.store.remove(guard);
  if (!done) throw notFound(model.name);
  await hooks.onAfterDelete?.(ctx);
  return empty(204, app.language);
};
