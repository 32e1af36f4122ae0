import type { Document } from "mongodb";
import { ResponseBudget } from "../query/budget.ts";
import type { WithNode } from "../query/with.ts";
import type { RelationContext } from "./context.ts";
import type { RelationLoad, RelationNarrower } from "./relations.ts";
import { hookContext, type PathParams, type Route } from "./route.ts";
import { readScope } from "./scope.ts";

/**
 * How a read request loads its `with`: the related models' read scope (`trashed`), their time
 * limits, the relation hooks, and a fresh budget of related records and bytes for this response.
 */
export function relationLoad(
  request: Request,
  route: Route,
  params: PathParams,
  nodes: readonly WithNode[],
  trashed: boolean,
): RelationLoad {
  const { app } = route;
  return {
    db: app.db,
    limits: app.limits,
    scope: (model) => readScope(model, trashed),
    narrow: relationNarrower(request, route, params, nodes),
    timeMs: (model) => app.stores.get(model.name)!.timeMs,
    budget: new ResponseBudget(app.limits),
    request,
  };
}

/**
 * The filters `onBeforeRelation` hooks add to the relations a read loads through `with`: the
 * hook of each relation's related model runs once per relation per request, with the request,
 * and may push filters. Undefined when no model reached by `with` has such a hook.
 */
export function relationNarrower(
  request: Request,
  route: Route,
  params: PathParams,
  nodes: readonly WithNode[],
): RelationNarrower | undefined {
  const hooks = route.app.hooks;
  const hooked = (list: readonly WithNode[]): boolean =>
    list.some((n) => hooks[n.model.name]?.onBeforeRelation !== undefined || hooked(n.children));
  if (!hooked(nodes)) return undefined;
  return async (node: WithNode): Promise<Document[]> => {
    const hook = hooks[node.model.name]?.onBeforeRelation;
    if (!hook) return [];
    const ctx: RelationContext = {
      ...hookContext(request, route, params),
      model: node.model,
      owner: node.owner,
      relation: node.relation,
      filters: [],
    };
    await hook(ctx);
    return ctx.filters;
  };
}
