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
 * after-hook there is nothing to undo, so the hot path skips the walk.
 */
export function finish<T>(route: Route, result: T, afterHook: unknown): T {
  if (!afterHook || route.model.hidden.size === 0) return result;
  const data = (result as { data?: unknown }).data;
  if (Array.isArray(data)) { for (const record of data) strip(route.model, record); }
  else strip(route.model, result);
  return result;
}
