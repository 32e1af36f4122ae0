import { apiError } from "../errors.ts";
import { COUNT_STRATEGIES, type CountStrategy, type Model } from "../model/define.ts";

/**
 * Reads `count`: how the list's `total` is produced. Absent means the model's default
 * (`exact` unless the model says otherwise); anything outside the three strategies is a 400.
 * @example parseCount("none", User) // "none"
 * @example parseCount(null, User)   // "exact"
 * @example parseCount("fast", User) // throws 400: The count parameter must be one of exact, estimated, none; received "fast".
 */
export function parseCount(raw: string | null, model: Model): CountStrategy {
  if (raw === null) return model.defaultCount;
  if (COUNT_STRATEGIES.includes(raw as CountStrategy)) return raw as CountStrategy;
  throw apiError("param.count", { allowed: COUNT_STRATEGIES.join(", "), value: raw });
}
