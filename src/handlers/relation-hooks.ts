import type { Document } from "mongodb";
import type { WithNode } from "../query/with.ts";
import type { RelationContext } from "./context.ts";
import type { RelationNarrower } from "./relations.ts";
import { hookContext, type PathParams, type Route } from "./route.ts";

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
