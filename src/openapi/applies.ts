import { hooksOf } from "../handlers/hooks.ts";
import type { Route } from "../handlers/route.ts";
import type { RouteEntry } from "../handlers/table.ts";
import type { HandlerName, Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { RateLimitOptions } from "../service/rate-limit.ts";

/** The models `with` can load from `model`, at most `depth` levels down (each level by its owner's `loadable`). */
function reachableModels(registry: ModelRegistry, model: Model, depth: number): Set<Model> {
  const reached = new Set<Model>();
  let level = [model];
  for (let step = 0; step < depth && level.length > 0; step++) {
    const next: Model[] = [];
    for (const owner of level) {
      for (const [name, relation] of owner.relations) {
        if (owner.loadable !== null && !owner.loadable.has(name)) continue;
        const target = registry.get(relation.model);
        if (target && !reached.has(target)) next.push(target), reached.add(target);
      }
    }
    level = next;
  }
  return reached;
}

/**
 * Whether a hook runs for this route: the model's own for the handler, or on reads the
 * `onBeforeRelation` of a model `with` can reach. Any hook may throw an `ApiError` of any status.
 */
export function isHooked(route: Route, endpoint: RouteEntry, maxDepth: number): boolean {
  const own = hooksOf(endpoint.name, endpoint.force);
  if (own.some((name) => route.hooks[name] !== undefined)) return true;
  if (endpoint.name !== "paginate" && endpoint.name !== "show") return false;
  const all = route.app.hooks;
  return [...reachableModels(route.app.registry, route.model, maxDepth)].some((model) =>
    all[model.name]?.onBeforeRelation !== undefined
  );
}

const ruleSet = (rule: { windowMs?: unknown; max?: unknown } | null | undefined): boolean =>
  rule?.windowMs !== undefined || rule?.max !== undefined;

/** Whether an app-wide limit counts every request, those no handler serves (a plain OPTIONS) included. */
export function countsEveryRequest(rateLimit: RateLimitOptions | undefined): boolean {
  return rateLimit !== undefined && ruleSet(rateLimit);
}

/**
 * Whether `rateLimit` counts the requests of this model and handler, read as the rate
 * limiter reads it (service/rate-limit.ts): app-wide, the model's own, or its handler's.
 * Nested routes count for their child model; force-delete for `delete`.
 */
export function isRateLimited(rateLimit: RateLimitOptions | undefined, model: string, handler: HandlerName): boolean {
  if (rateLimit === undefined) return false;
  if (ruleSet(rateLimit)) return true;
  const own = rateLimit.models?.[model];
  return ruleSet(own) || own?.handlers?.[handler] !== undefined;
}
