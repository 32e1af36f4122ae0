import { COUNT_STRATEGIES, type CountStrategy } from "../store/counts.ts";

/** A model's page sizes. */
export interface PagingOptions {
  /** Default page size (10 unless set). */
  perPage?: number;
  /** Largest page size a client may ask for (100 unless set). */
  maxPerPage?: number;
}

/** How a model's lists count their total. */
export interface CountingOptions {
  /** Count strategy of a list request without `count` (default "exact"). */
  defaultCount?: CountStrategy;
  /** Largest count `count=estimated` runs on a filtered list before reporting "capped" (default 10,000). */
  countLimit?: number;
  /** Exact counts stop at this many records and report "capped" (default: no cap). */
  maxExactCount?: number;
}

/** The longest strings a model's fields may hold. */
export interface StringLimitOptions {
  /**
   * Longest string, in characters, a field's value may hold (strings nested in arrays and
   * objects, and their keys, included). Checked before any validator or hook runs; 65,536 unless set.
   */
  maxStringLength?: number;
  /** Per-field overrides of `maxStringLength`, higher or lower: `{ body: 1_000_000 }`. */
  maxStringLengths?: Record<string, number>;
}

/** Default for {@link StringLimitOptions.maxStringLength}: 64 Ki characters per string. */
export const DEFAULT_MAX_STRING_LENGTH = 65_536;

/** `value`, or `fallback` when unset; anything but a positive integer stops start-up, named by `what`. */
export function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${what} must be a positive integer, got ${value}`);
  return value;
}

/** Page sizes of model `name`: the default may not exceed the largest, which a client would then be refused. */
export function resolvePaging(name: string, options: PagingOptions): { perPage: number; maxPerPage: number } {
  const maxPerPage = positiveInteger(options.maxPerPage, 100, `Model ${name}: maxPerPage`);
  const perPage = positiveInteger(options.perPage, Math.min(10, maxPerPage), `Model ${name}: perPage`);
  if (perPage > maxPerPage) throw new TypeError(`Model ${name}: perPage ${perPage} exceeds maxPerPage ${maxPerPage}`);
  return { perPage, maxPerPage };
}

/** Counting options of model `name`, with their defaults; `maxExactCount` null means no cap. */
export function resolveCounting(
  name: string,
  options: CountingOptions,
): { defaultCount: CountStrategy; countLimit: number; maxExactCount: number | null } {
  const defaultCount = options.defaultCount ?? "exact";
  if (!COUNT_STRATEGIES.includes(defaultCount)) {
    throw new TypeError(
      `Model ${name}: defaultCount must be one of ${COUNT_STRATEGIES.join(", ")}, got ${defaultCount}`,
    );
  }
  const countLimit = positiveInteger(options.countLimit, 10_000, `Model ${name}: countLimit`);
  const maxExactCount = options.maxExactCount === undefined
    ? null
    : positiveInteger(options.maxExactCount, 0, `Model ${name}: maxExactCount`);
  return { defaultCount, countLimit, maxExactCount };
}

/** The longest string of each of `fields`: the per-field override, else the model's, else the default. */
export function resolveStringLimits(
  name: string,
  fields: readonly string[],
  options: StringLimitOptions,
): Map<string, number> {
  const fallback = positiveInteger(
    options.maxStringLength,
    DEFAULT_MAX_STRING_LENGTH,
    `Model ${name}: maxStringLength`,
  );
  const limits = new Map(fields.map((field) => [field, fallback]));
  for (const [field, limit] of Object.entries(options.maxStringLengths ?? {})) {
    if (!fields.includes(field)) {
      throw new TypeError(`Model ${name}: maxStringLengths names "${field}", which is not a field`);
    }
    limits.set(field, positiveInteger(limit, fallback, `Model ${name}: maxStringLengths.${field}`));
  }
  return limits;
}

/** The longest string a field's value may hold, in characters (a model's resolved `stringLimits`). */
export function maxStringLength(model: { readonly stringLimits: ReadonlyMap<string, number> }, field: string): number {
  return model.stringLimits.get(field) ?? DEFAULT_MAX_STRING_LENGTH;
}
