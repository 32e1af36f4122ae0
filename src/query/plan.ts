import type { Document } from "mongodb";
import type { QueryParams } from "../http/params.ts";
import type { CountStrategy, Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import { parseCount } from "./count.ts";
import { parseFields } from "./fields.ts";
import type { QueryLimits } from "./limits.ts";
import { parsePage } from "./page.ts";
import { parseSort } from "./sort.ts";
import { parseWhere } from "./where.ts";
import { parseWith, type WithNode } from "./with.ts";

/** The query parameters SHOW takes (a model's hooks may take more: its `params`). */
export const SHOW_PARAMETERS: readonly string[] = ["fields", "with", "trashed"];

/** The query parameters PAGINATE takes. */
export const LIST_PARAMETERS: readonly string[] = [
  "page",
  "per_page",
  "cursor",
  "q",
  "sort",
  "count",
  ...SHOW_PARAMETERS,
];

/** The planned list query. Before-hooks may narrow it, e.g. `ctx.query.filters.push({ user_id: 7 })`. */
export interface ListQuery {
  /** The page number; 1 on a page read by cursor (its position is the cursor's). */
  page: number;
  perPage: number;
  /** How `total` is to be counted. */
  count: CountStrategy;
  /** Selected columns, or null for all visible ones. */
  fields: string[] | null;
  sort: Document;
  /** MongoDB filters, ANDed together. Server code may add any filter; clients cannot. */
  filters: Document[];
  with: WithNode[];
}

/** The planned SHOW query: the list query without paging and sorting. */
export type ShowQuery = Pick<ListQuery, "fields" | "filters" | "with">;

/** Where planning reads parameters: the request's, or a cursor's pinned ones over them. */
export type ParamSource = Pick<QueryParams, "get">;

/** What planning needs from the app. */
export interface PlanSettings {
  registry: ModelRegistry;
  limits: QueryLimits;
}

/**
 * Parse → plan for SHOW: field selection and relations. `scope` is the server's own filter
 * (soft delete), kept apart from anything the client sent.
 */
export function planShow(params: ParamSource, model: Model, settings: PlanSettings, scope: Document): ShowQuery {
  return {
    fields: parseFields(params.get("fields"), model),
    filters: [scope],
    with: parseWith(params.get("with"), model, settings.registry, settings.limits),
  };
}

/**
 * Parse → plan for PAGINATE: every query parameter is parsed and checked here, before a hook
 * or the database sees anything, so a bad parameter is always a 400 and never half-run.
 */
export function planList(params: ParamSource, model: Model, settings: PlanSettings, scope: Document): ListQuery {
  const { page, perPage } = parsePage(params, model);
  const count = parseCount(params.get("count"), model);
  const shown = planShow(params, model, settings, scope);
  shown.filters.push(parseWhere(params.get("q"), model, settings.limits, settings.registry));
  return { page, perPage, count, sort: parseSort(params.get("sort"), model), ...shown };
}
