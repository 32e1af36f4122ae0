import type { Model } from "../model/define.ts";
import { validateBody } from "../model/validate.ts";

/**
 * The body a before-hook of INSERT, UPDATE or PATCH gets: every field the client sent, checked
 * against the model and converted (a date string becomes a `Date`), so a hook never sees a
 * value of the wrong type, a hostile shape (depth, `$` keys, oversized strings) or a field the
 * model lacks; any such problem is a 400 before the hook runs. Required fields and defaults
 * are checked after the hook, on what it leaves, so a hook may still fill a field in. Without
 * a hook the body is validated once, afterwards, and every problem is reported together.
 */
export function bodyForHook(model: Model, body: Record<string, unknown>, hook: unknown): Record<string, unknown> {
  return hook === undefined ? body : validateBody(model, body, true);
}
