import { EJSON } from "bson";
import { type ApiError, apiError } from "../errors.ts";
import type { QueryParams } from "../http/params.ts";
import { pathnameOf, withoutTrailingSlashes } from "../http/router.ts";
import type { Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { CursorState } from "../query/cursor.ts";
import { isCountText } from "../query/page.ts";
import type { QueryLimits } from "../query/limits.ts";
import type { ParamSource } from "../query/plan.ts";
import { parseSort } from "../query/sort.ts";
import { parseWhere } from "../query/where.ts";
import type { ListQuery } from "./context.ts";
import type { Route } from "./route.ts";

/** The parameters a cursor pins: the request may repeat them unchanged, or leave them out. */
const PINNED = ["q", "sort", "per_page", "trashed"] as const;

/** A list request read by cursor: the cursor's state, and the parameters to plan with. */
export interface OpenedCursor {
  state: CursorState;
  params: ParamSource;
}

function pinnedValue(state: CursorState, name: (typeof PINNED)[number]): string | null {
  if (name === "per_page") return String(state.perPage);
  return state[name];
}

/** The list a cursor belongs to: its path as the router matches it, trailing slashes and all one list. */
export function listPath(url: string): string {
  return withoutTrailingSlashes(pathnameOf(url));
}

/**
 * Opens the request's `cursor`, if any: checks its signature, that it was issued by this very
 * list (same model and parent), and that no other parameter moves the page it points at.
 * Returns the parameters to plan with: the cursor's pinned ones over the request's.
 */
export async function openCursor(params: QueryParams, url: string, route: Route): Promise<OpenedCursor | null> {
  const raw = params.get("cursor");
  if (raw === null) return null;
  if (params.get("page") !== null) {
    throw apiError("cursor.withPage");
  }
  const state = await route.app.cursors.open(raw);
  const list = listPath(url);
  if (state.list !== list) throw apiError("cursor.otherList", { list });
  return { state, params: new PinnedParams(state, params) };
}

/** The request's parameters with the cursor's pinned ones over them (a class: no closure named per request). */
class PinnedParams implements ParamSource {
  constructor(
    readonly state: CursorState,
    readonly params: QueryParams,
  ) {}

  /** The pinned value of `name` if the cursor pins it, else the request's. */
  get(name: string): string | null {
    return (PINNED as readonly string[]).includes(name)
      ? pinnedValue(this.state, name as (typeof PINNED)[number])
      : this.params.get(name);
  }
}

function differs(name: string): ApiError {
  return apiError("cursor.differs", { name });
}

/**
 * A cursor pins the sort, the filter, the page size and `trashed`: a request that sends one of
 * them with another meaning is refused rather than silently answered with the cursor's.
 * Values are compared as parsed, so spelling (`name` vs `+name`, spaces in `q`) does not matter.
 */
export function checkPinned(
  params: QueryParams,
  query: ListQuery,
  model: Model,
  limits: QueryLimits,
  state: CursorState,
  registry?: ModelRegistry,
): void {
  const sort = params.get("sort");
  if (sort !== null && JSON.stringify(parseSort(sort, model)) !== JSON.stringify(query.sort)) throw differs("sort");
  const q = params.get("q");
  if (
    q !== null &&
    EJSON.stringify(parseWhere(q, model, limits, registry)) !==
      EJSON.stringify(parseWhere(state.q, model, limits, registry))
  ) {
    throw differs("q");
  }
  const perPage = params.get("per_page");
  if (perPage !== null && !isCountText(perPage, state.perPage)) throw differs("per_page");
  // Compared as flags, so `trashed=false` repeats a cursor made without the parameter.
  if (params.get("trashed") !== null && params.flag("trashed") !== (state.trashed === "true")) throw differs("trashed");
}
