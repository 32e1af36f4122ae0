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

const DIGITS = /^[0-9]{1,15}$/;

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

/** The spec's paging metadata: `from`/`to` are the zero-based, half-open window of the page. */
export interface Pagination {
  total: number;
  lastPage: number;
  perPage: number;
  currentPage: number;
  from: number;
  to: number;
}

/**
 * Paging metadata for a page and a total.
 * @example pagination({ page: 1, perPage: 10 }, 1) // { total: 1, lastPage: 1, perPage: 10, currentPage: 1, from: 0, to: 10 }
 */
export function pagination(request: PageRequest, total: number): Pagination {
  const from = (request.page - 1) * request.perPage;
  return {
    total,
    lastPage: Math.max(1, Math.ceil(total / request.perPage)),
    perPage: request.perPage,
    currentPage: request.page,
    from,
    to: from + request.perPage,
  };
}
