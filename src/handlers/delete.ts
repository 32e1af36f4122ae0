import type { Document } from "mongodb";
import { empty } from "../http/responses.ts";
import { toStoredRecord, type DeleteContext } from "./context.ts";
import { missedWrite, writeGuard } from "./preconditions.ts";
import { findOr404, hookContext, recordId, type Handler, type Route } from "./route.ts";
import { writeScope } from "./scope.ts";

async function softDelete(route: Route, guard: Document): Promise<boolean> {
  return (await route.store.update(guard, { deleted_at: route.store.clock() })) !== null;
}

function deleteHandler(force: boolean): Handler {
  return async (request, route, params) => {
    const { model, app, hooks } = route;
    const id = recordId(params, model);
    const scope = force ? {} : writeScope(model);
    const stored = await findOr404(route, id, [scope]);
    const guard = writeGuard(request, route, stored, scope);
    const ctx: DeleteContext = { ...hookContext(request, route, params), id, item: toStoredRecord(stored) };
    await hooks.onBeforeDelete?.(ctx);
    const done = model.softDelete && !force ? await softDelete(route, guard) : await route.store.remove(guard);
    if (!done) await missedWrite(route, id, guard);
    await hooks.onAfterDelete?.(ctx);
    return empty(204, app.language);
  };
}

/**
 * DELETE: `DELETE /api/v1/<plural>/<id>`: 204 with no body. On a soft-delete model it sets
 * `deleted_at` instead, so the record drops out of reads but can still be listed with `trashed=true`.
 */
export const remove: Handler = deleteHandler(false);

/** `DELETE /api/v1/<plural>/<id>/force`: removes a soft-deleted model's record for good, trashed or not. */
export const forceRemove: Handler = deleteHandler(true);
