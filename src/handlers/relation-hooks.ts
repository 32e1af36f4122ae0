import type { Document } from "bson";
import type { ApiRecord } from "../model/serialize.ts";
import { ResponseBudget } from "../query/budget.ts";
import { relationReads } from "../query/compile.ts";
import type { ReadPlan } from "../query/plan.ts";
import type { RequestAccess } from "../query/access.ts";
import type { WithNode } from "../query/with.ts";
import type { StoredDocument } from "../store/records.ts";
import type { RelationContext } from "./context.ts";
import { stopIfGone } from "./client-gone.ts";
import { attachRelations } from "./relations.ts";
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
  access?: RequestAccess,
): ((node: WithNode) => Promise<Document[]>) | undefined {
  const hooks = route.app.hooks;
  const hooked = (list: readonly WithNode[]): boolean =>
    list.some((n) => hooks[n.model.name]?.onBeforeRelation !== undefined || hooked(n.children));
  if (!hooked(nodes)) return undefined;
  return async (node: WithNode): Promise<Document[]> => {
    const hook = hooks[node.model.name]?.onBeforeRelation;
    if (!hook) return [];
    const ctx: RelationContext = {
      ...hookContext(request, route, params, access),
      model: node.model,
      owner: node.owner,
      relation: node.relation,
      filters: [],
    };
    await hook(ctx);
    return ctx.filters;
  };
}

/**
 * Loads a read's `with` for its page of documents and attaches it to their records: the
 * related models' reads within the request's `trashed`, the relation hooks' filters, and a
 * fresh budget of related records and bytes for this response; no level is read once the
 * client has gone.
 */
export async function loadWith(
  request: Request,
  route: Route,
  params: PathParams,
  plan: ReadPlan,
  page: { docs: readonly StoredDocument[]; records: ApiRecord[] },
): Promise<void> {
  if (plan.with.length === 0 || page.docs.length === 0) return;
  const { app } = route;
  const narrow = relationNarrower(request, route, params, plan.with, plan.access);
  const loaded = await app.data.loadRelations(
    page.docs,
    relationReads(plan.with, app.limits, plan.trashed, plan.access && ((model) => plan.access!.relationFilter(model))),
    {
      budget: new ResponseBudget(app.limits),
      narrow: narrow && ((read) => narrow(read.source)),
      beforeLevel: () => stopIfGone(request),
    },
  );
  attachRelations(page.records, loaded);
}
