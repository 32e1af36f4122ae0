import type { Document } from "mongodb";
import type { ListQuery } from "../handlers/context.ts";
import type { QueryParams } from "../http/params.ts";
import type { Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import { parseCount } from "./count.ts";
import { parseFields } from "./fields.ts";
import type { QueryLimits } from "./limits.ts";
import { parsePage } from "./page.ts";
import { parseSort } from "./sort.ts";
import { parseWhere } from "./where.ts";
import { parseWith } from "./with.ts";

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
export function planShow(params: ParamSource, model: Model, settings: PlanSettings, scope: Document): Pick<ListQuery, "fields" | "filters" | "with"> {
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
  shown.filters.push(parseWhere(params.get("q"), model, settings.limits));
  return { page, perPage, count, sort: parseSort(params.get("sort"), model), ...shown };
}
