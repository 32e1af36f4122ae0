import type { Model } from "../model/define.ts";
import type { ApiRecord } from "../model/serialize.ts";
import type { Route } from "./route.ts";

function strip(model: Model, record: unknown): void {
  if (record === null || typeof record !== "object") return;
  for (const field of model.hidden) delete (record as ApiRecord)[field];
}

/**
 * The body to send after an after-hook ran. Records are built without hidden fields, but an
 * after-hook may put one back (e.g. by spreading `ctx.item`); this removes it again. Without an
 * after-hook there is nothing to undo, so the hot path skips the walk. `model` is the model as
 * the principal reads it (with `auth`, its rule's fields): what it may not read is removed too.
 */
export function finish<T>(route: Route, result: T, afterHook: unknown, model: Model = route.model): T {
  if (!afterHook || model.hidden.size === 0) return result;
  const data = (result as { data?: unknown }).data;
  if (Array.isArray(data)) { for (const record of data) strip(model, record); }
  else strip(model, result);
  return result;
}
