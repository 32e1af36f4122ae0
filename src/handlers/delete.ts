import type { Document } from "bson";
import { empty } from "../http/responses.ts";
import { type DeleteContext, type ModelHooks, toStoredRecord } from "./context.ts";
import { applyOnDelete, refuseRestricted } from "./dependents.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { parentIdsOf, reachable } from "../query/nesting.ts";
import { missedWrite, writeGuard } from "./preconditions.ts";
import { allOf, findOr404, type Handler, hookContext, recordId, type Route } from "./route.ts";
import { writeScope } from "../query/scope.ts";
import { liveParentFilter, refuseWriteParameters } from "./write-path.ts";
import { writeAccess } from "./write-access.ts";

async function softDelete(route: Route, guard: Document, at: Date): Promise<boolean> {
  return (await route.store.update(guard, { deleted_at: at })) !== null;
}

/**
 * The delete itself: refused (409) while a `restrict` relation has live children, else the
 * record's own write (a missed one is a 404 or 412), then its relations' `cascade` and `setNull`.
 */
async function deleteWithDependents(route: Route, id: number, guard: Document, force: boolean): Promise<void> {
  const { model, app } = route;
  const soft = model.softDelete && !force;
  await refuseRestricted(app, model, id, !soft);
  // A soft delete's time, which a cascade stamps on the children it soft-deletes too.
  const deletedAt = soft ? route.store.clock() : undefined;
  const done = deletedAt ? await softDelete(route, guard, deletedAt) : await route.store.remove(guard);
  if (!done) await missedWrite(route, id, guard);
  // The record first, then its dependents: see applyOnDelete on failures part way.
  await applyOnDelete(app, model, [id], deletedAt);
}

type DeleteHooks = Pick<ModelHooks, "onBeforeDelete" | "onAfterDelete">;

/** The hooks of a delete: a force delete runs its own pair, never the soft-delete ones. */
function hooksOf(hooks: ModelHooks, force: boolean): DeleteHooks {
  return force ? { onBeforeDelete: hooks.onBeforeForceDelete, onAfterDelete: hooks.onAfterForceDelete } : hooks;
}

function deleteHandler(force: boolean): Handler {
  return async (request, route, params, access) => {
    const { model, app } = route;
    const hooks = hooksOf(route.hooks, force);
    const parentIds = route.parent ? parentIdsOf(params, route.parent) : undefined;
    const id = recordId(params, model);
    refuseWriteParameters(request, route);
    const rules = writeAccess(route, access, force ? "forceDelete" : "delete");
    const parent = await liveParentFilter(route, parentIds, access);
    // Only records the principal's rule reaches: any other is a 404, as if it did not exist.
    const scope = allOf([force ? {} : writeScope(model), parent, reachable(route.parent), rules.filter]);
    const stored = await findOr404(route, id, [scope]);
    const guard = await writeGuard(request, route, stored, scope, rules.view);
    const ctx: DeleteContext = { ...hookContext(request, route, params, access), id, item: toStoredRecord(stored) };
    await hooks.onBeforeDelete?.(ctx);
    await deleteWithDependents(route, id, guard, force);
    await hooks.onAfterDelete?.(ctx);
    return empty(hookStatus(ctx, 204), app.language, hookHeaders(ctx));
  };
}

/**
 * DELETE: `DELETE /api/v1/<plural>/<id>` (or nested, `/users/:userId/posts/<id>`): 204 with no body. On a soft-delete model it sets
 * `deleted_at` instead, so the record drops out of reads but can still be listed with `trashed=true`.
 * Relations' `onDelete` apply (`dependents.ts`): a `restrict` with live children is a 409.
 */
export const remove: Handler = deleteHandler(false);

/**
 * `DELETE /api/v1/<plural>/<id>/force`: removes a soft-deleted model's record for good, trashed
 * or not; runs `onBeforeForceDelete` / `onAfterForceDelete`.
 */
export const forceRemove: Handler = deleteHandler(true);
