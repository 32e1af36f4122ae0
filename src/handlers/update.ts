import type { Document } from "bson";
import { readJsonBody } from "../http/body.ts";
import { writtenJson } from "../http/responses.ts";
import type { Model } from "../model/define.ts";
import { toRecord } from "../model/serialize.ts";
import { clearableFields, validateBody } from "../model/validate.ts";
import { type ModelHooks, type StoredRecord, toStoredRecord, type UpdateContext } from "./context.ts";
import { bodyForHook } from "./hook-body.ts";
import { checkReferences } from "./integrity.ts";
import { parentIdsOf, reachable } from "../query/nesting.ts";
import { hookHeaders, hookStatus } from "./hook-response.ts";
import { finish } from "./output.ts";
import { serializeRecord } from "./serialize-output.ts";
import { missedWrite, recordEtag, writeGuard } from "./preconditions.ts";
import { allOf, findOr404, type Handler, hookContext, recordId } from "./route.ts";
import { writeScope } from "../query/scope.ts";
import { dropEchoedFields, liveParentFilter, refuseWriteParameters } from "./write-path.ts";
import { writeAccess } from "./write-access.ts";

interface WriteChange {
  set: Document;
  unset: string[];
}

/**
 * PUT replaces: every writable field is validated as on create, and fields left out are removed.
 * Hidden fields are kept unless sent: a client never sees them, so sending back what GET
 * returned must neither erase them nor fail as a required field left out.
 */
function replacement(model: Model, body: Record<string, unknown>, current: StoredRecord): WriteChange {
  const kept: Record<string, unknown> = {};
  for (const field of model.hidden) {
    if (!Object.hasOwn(body, field) && current[field] !== undefined) kept[field] = current[field];
  }
  const set = validateBody(model, { ...kept, ...body });
  return { set, unset: Object.keys(model.fields).filter((field) => !(field in set) && !model.hidden.has(field)) };
}

/**
 * PATCH merges: the sent fields are validated, then the merged record must be valid as a whole.
 * A null for an optional field removes it (responses show its absence as null).
 */
function merge(model: Model, body: Record<string, unknown>, current: StoredRecord): WriteChange {
  const set = validateBody(model, body, true);
  const unset = [...clearableFields(model)].filter((field) => body[field] === null);
  const kept = Object.keys(model.fields).filter((field) => field in current && !unset.includes(field));
  validateBody(model, { ...Object.fromEntries(kept.map((field) => [field, current[field]])), ...set });
  return { set, unset };
}

type Hooks = Pick<ModelHooks, "onBeforeUpdate" | "onAfterUpdate">;

/** The record as a write would leave it: what its access rule's check is tested on. */
function afterWrite(stored: Document, set: Document, unset: readonly string[]): Document {
  const next: Document = { ...stored, ...set };
  for (const field of unset) delete next[field];
  return next;
}

function writeHandler(
  plan: typeof replacement | typeof merge,
  operation: "update" | "patch",
  pick: (hooks: ModelHooks) => Hooks,
): Handler {
  return async (request, route, params, access) => {
    const { model, app } = route;
    const hooks = pick(route.hooks);
    const parentIds = route.parent ? parentIdsOf(params, route.parent) : undefined;
    const id = recordId(params, model);
    refuseWriteParameters(request, route);
    const rules = writeAccess(route, access, operation);
    const body = await readJsonBody(request, app.bodyLimit);
    // On a nested route the record must be a child of live ancestors, and stays one: the path sets the foreign key.
    const parent = await liveParentFilter(route, parentIds, access);
    Object.assign(body, parent);
    rules.prepare(body);
    // Only records the principal's rule reaches: any other is a 404, as if it did not exist.
    const scope = allOf([writeScope(model), parent, reachable(route.parent), rules.filter]);
    const stored = await findOr404(route, id, [scope]);
    dropEchoedFields(body, stored);
    const guard = await writeGuard(request, route, stored, scope, rules.view);
    const checked = bodyForHook(model, body, hooks.onBeforeUpdate);
    const ctx: UpdateContext = {
      ...hookContext(request, route, params, access),
      id,
      body: checked,
      item: toStoredRecord(stored),
    };
    await hooks.onBeforeUpdate?.(ctx);
    rules.prepare(ctx.body);
    const { set, unset } = plan(model, ctx.body, ctx.item);
    rules.verify(afterWrite(stored, set, unset), parent);
    await checkReferences(route, set, access);
    const doc = (await route.store.update(guard, set, unset)) ?? (await missedWrite(route, id, guard));
    ctx.item = toStoredRecord(doc);
    ctx.result = toRecord(rules.view, doc);
    const recordTag = hooks.onAfterUpdate && (await recordEtag(request, route, doc, rules.view));
    await hooks.onAfterUpdate?.(ctx);
    const output = await serializeRecord(
      request,
      app,
      model,
      finish(route, ctx.result, hooks.onAfterUpdate, rules.view),
      [],
    );
    return writtenJson(output, hookStatus(ctx, 200), app.language, hookHeaders(ctx), recordTag);
  };
}

/** UPDATE: `PUT /api/v1/<plural>/<id>`: replaces every writable field; 200 with the stored record. */
export const update: Handler = writeHandler(replacement, "update", (h) => h);

/** PATCH: `PATCH /api/v1/<plural>/<id>`: changes only the fields sent; 200 with the stored record. */
export const patch: Handler = writeHandler(
  merge,
  "patch",
  (h) => ({ onBeforeUpdate: h.onBeforePatch, onAfterUpdate: h.onAfterPatch }),
);
