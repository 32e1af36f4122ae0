import type { HeaderRecord } from "../http/reply.ts";
import type { HookContext } from "./context.ts";

// Headers that describe the bytes on the wire: only the framework knows them.
const FRAMEWORK_ONLY = new Set(["content-length", "transfer-encoding"]);

/**
 * The headers hooks set on `ctx.headers`, as a record to add to the response, or undefined
 * when none were set (the common case, which stays allocation-free). A hook that sets a header
 * only the framework may set, or more than one Set-Cookie (a record holds one value per name),
 * is a programming error: a TypeError naming the header, rather than a broken response.
 */
export function hookHeaders(ctx: HookContext): HeaderRecord | undefined {
  let record: HeaderRecord | undefined;
  for (const [name, value] of ctx.headers) {
    if (FRAMEWORK_ONLY.has(name)) {
      throw new TypeError(`Hook of model ${ctx.model.name} set ${name}, which only the framework sets`);
    }
    (record ??= {})[name] = value;
  }
  if (record?.["set-cookie"] !== undefined && ctx.headers.getSetCookie().length > 1) {
    throw new TypeError(`Hook of model ${ctx.model.name} set more than one Set-Cookie; send one cookie per response`);
  }
  return record;
}

/**
 * The status of the successful response: what a hook put in `ctx.status`, or the handler's
 * own. Only a 2xx fits a request that succeeded; anything else is a programming error
 * (errors are thrown as `ApiError`), reported as a TypeError.
 */
export function hookStatus(ctx: HookContext, fallback: number): number {
  const status = ctx.status;
  if (status === undefined) return fallback;
  if (!Number.isInteger(status) || status < 200 || status > 299) {
    throw new TypeError(
      `Hook of model ${ctx.model.name} set status ${status}; a successful response needs a 2xx (throw ApiError for an error)`,
    );
  }
  return status;
}
