import type { CountMethod } from "../plan/read.ts";
import { apiError } from "../errors.ts";

/** The page window a list request asks for. */
export interface PageRequest {
  page: number;
  perPage: number;
}

/** Per-model bounds for `per_page`. */
export interface PageBounds {
  perPage: number;
  maxPerPage: number;
}

/** A count as digits: leading zeros allowed, then at most 16 digits (2^53 has 16). */
const DIGITS = /^0*[0-9]{1,16}$/;

/** True when `raw` is the text of the count `value`, however written (`05` is 5). */
export function isCountText(raw: string, value: number): boolean {
  return DIGITS.test(raw) && Number(raw) === value;
}

function parseInteger(name: string, raw: string, min: number, max: number): number {
  const value = DIGITS.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    throw apiError("param.integerRange", { name, min, max, value: raw });
  }
  return value;
}

/**
 * Reads `page` and `per_page`. Out-of-range values are refused, never clamped.
 * @example parsePage(new URLSearchParams("page=2"), { perPage: 10, maxPerPage: 100 }) // { page: 2, perPage: 10 }
 * @example parsePage(new URLSearchParams("per_page=0"), bounds) // throws 400: per_page must be an integer from 1 to 100
 */
export function parsePage(params: { get(name: string): string | null }, bounds: PageBounds): PageRequest {
  const page = params.get("page");
  const perPage = params.get("per_page");
  const size = perPage === null ? bounds.perPage : parseInteger("per_page", perPage, 1, bounds.maxPerPage);
  // The page's offset must stay an exact integer: past 2^53 `from` and the skip would be rounded.
  const lastExact = Math.floor(Number.MAX_SAFE_INTEGER / size);
  return { page: page === null ? 1 : parseInteger("page", page, 1, lastExact), perPage: size };
}

export type { CountMethod };

/**
 * The spec's paging metadata, plus how `total` was counted and the cursors of the pages around
 * this one. `from`/`to` are the zero-based, half-open window of the page; on a page read by
 * cursor its position is unknown, so `currentPage`, `from` and `to` are null. Without a count
 * (`count: "none"`) `total` and `lastPage` are null; with `"capped"` they are lower bounds.
 */
export interface Pagination {
  total: number | null;
  lastPage: number | null;
  perPage: number;
  currentPage: number | null;
  from: number | null;
  to: number | null;
  count: CountMethod;
  next: string | null;
  prev: string | null;
}

/** Where a page is: its number, or null when it was read by cursor. */
export interface PagePosition {
  page: number | null;
  perPage: number;
}

/**
 * Paging metadata for a page, a count and the neighbouring cursors.
 * @example pagination({ page: 1, perPage: 10 }, { total: 1, method: "exact" }, { next: null, prev: null })
 * // { total: 1, lastPage: 1, perPage: 10, currentPage: 1, from: 0, to: 10, count: "exact", next: null, prev: null }
 */
export function pagination(
  position: PagePosition,
  counted: { total: number | null; method: CountMethod },
  cursors: { next: string | null; prev: string | null },
): Pagination {
  const { page, perPage } = position;
  const { total } = counted;
  const from = page === null ? null : (page - 1) * perPage;
  return {
    total,
    lastPage: total === null ? null : Math.max(1, Math.ceil(total / perPage)),
    perPage,
    currentPage: page,
    from,
    to: from === null ? null : from + perPage,
    count: counted.method,
    next: cursors.next,
    prev: cursors.prev,
  };
}
