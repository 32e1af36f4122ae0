import type { Model } from "../model/define.ts";
import { clearableFields, validateBody } from "../model/validate.ts";

/**
 * The body a before-hook of INSERT, UPDATE or PATCH gets: every field the client sent, checked
 * against the model and converted (a date string becomes a `Date`), so a hook never sees a
 * value of the wrong type, a hostile shape (depth, `$` keys, oversized strings) or a field the
 * model lacks; any such problem is a 400 before the hook runs. Required fields and defaults
 * are checked after the hook, on what it leaves, so a hook may still fill a field in. Without
 * a hook the body is validated once, afterwards, and every problem is reported together.
 * A `null` the client sent for an optional field stays (PATCH removes the field), so the hook
 * sees, and the write applies, what the client sent.
 */
export function bodyForHook(model: Model, body: Record<string, unknown>, hook: unknown): Record<string, unknown> {
  if (hook === undefined) return body;
  const checked = validateBody(model, body, true);
  for (const field of clearableFields(model)) if (body[field] === null) checked[field] = null;
  return checked;
}
