import { type Document, EJSON } from "bson";
import { type ApiError, apiError } from "../errors.ts";
import type { QueryParams } from "../http/params.ts";
import { pathnameOf, withoutTrailingSlashes } from "../http/router.ts";
import type { Model } from "../model/define.ts";
import type { Principal } from "../model/access.ts";
import type { Condition } from "../plan/conditions.ts";
import type { CursorSealer, CursorState } from "./cursor.ts";
import { isCountText } from "./page.ts";
import { parseSort } from "./sort.ts";
import { parseConditions, type WhereSettings } from "./where.ts";
import { principalDigest } from "./access.ts";

/** Where planning reads parameters: the request's, or a cursor's pinned ones over them. */
export interface ParamSource {
  get(name: string): string | null;
}

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
 * Returns the parameters to plan with: the cursor's pinned ones over the request's. With
 * `auth`, a cursor issued to another principal is refused: it grants and reveals nothing.
 */
export async function openCursor(
  params: QueryParams,
  url: string,
  cursors: CursorSealer,
  access?: { principal: Principal },
): Promise<OpenedCursor | null> {
  const raw = params.get("cursor");
  if (raw === null) return null;
  if (params.get("page") !== null) {
    throw apiError("cursor.withPage");
  }
  const state = await cursors.open(raw);
  const list = listPath(url);
  if (state.list !== list) throw apiError("cursor.otherList", { list });
  if (state.who !== (access && principalDigest(access.principal))) throw apiError("cursor.otherPrincipal");
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
 * them with another meaning is refused rather than silently answered with the cursor's. The
 * request's own values are parsed (once) and compared with what the plan holds, parsed from the
 * cursor; so spelling (`name` vs `+name`, spaces in `q`) does not matter.
 */
export function checkPinned(
  params: QueryParams,
  planned: { sort: Document; where: Condition },
  route: WhereSettings & { model: Model },
  state: CursorState,
): void {
  const { model } = route;
  const sort = params.get("sort");
  if (sort !== null && JSON.stringify(parseSort(sort, model)) !== JSON.stringify(planned.sort)) throw differs("sort");
  const q = params.get("q");
  const trashed = route.trashed === true;
  if (
    q !== null && EJSON.stringify(parseConditions(q, model, { ...route, trashed })) !== EJSON.stringify(planned.where)
  ) {
    throw differs("q");
  }
  const perPage = params.get("per_page");
  if (perPage !== null && !isCountText(perPage, state.perPage)) throw differs("per_page");
  // Compared as flags, so `trashed=false` repeats a cursor made without the parameter.
  if (params.get("trashed") !== null && params.flag("trashed") !== trashed) throw differs("trashed");
}
