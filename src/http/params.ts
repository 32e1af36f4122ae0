import { ApiError } from "../errors.ts";

/** Query parameters as itty-router parses them: a repeated name becomes an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

/**
 * Read access to query parameters where each name may appear once: a repeated parameter is
 * ambiguous, so it is refused rather than silently using the first or last value.
 */
export class QueryParams {
  constructor(private readonly raw: RawQuery) {}

  /** The value of `name`, or null when absent. */
  get(name: string): string | null {
    const value = this.raw[name];
    if (value === undefined) return null;
    if (typeof value !== "string") throw new ApiError(`The ${name} parameter may be given only once.`);
    return value;
  }
}

/**
 * Decodes a path parameter. itty-router leaves them percent-encoded; a malformed escape is a
 * client mistake, reported as null so the caller can answer 404.
 */
export function decodeParam(value: string | undefined): string | null {
  if (value === undefined) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
