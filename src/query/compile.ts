/**
 * Plan → reads: what the store must do for a planned request, in the store's own terms
 * (collections, MongoDB filters, projections, orders, caps). Pure, like the parsing before it;
 * the store runs what this returns.
 */
import type { Document } from "bson";
import type { Model } from "../model/define.ts";
import { allOf } from "../plan/conditions.ts";
import type { PageRead, RelationRead } from "../plan/read.ts";
import { storedName } from "./columns.ts";
import type { QueryLimits } from "./limits.ts";
import type { ListPlan, ShowPlan } from "./plan.ts";
import { projection } from "./projection.ts";
import { readScope } from "./scope.ts";
import { childKeys, parentKeys, type WithNode } from "./with.ts";

/** The fields to read of a page: the selection, the relation keys, and the sort keys the cursors are made of. */
function pageProjection(plan: ListPlan): Document | undefined {
  const sortFields = plan.keys.map(([path]) => (path === "_id" ? "id" : path));
  return projection(plan.model, plan.fields, [...parentKeys(plan.with), ...sortFields]);
}

/**
 * The page read of a list plan, once its related conditions are resolved into `where`: the
 * server's scope, the client's conditions, what a nested route's relation reaches, what the
 * principal's rule reaches, then what the before-hooks added, ANDed in that order.
 */
export function pageRead(plan: ListPlan, where: Document, hookFilters: readonly Document[]): PageRead {
  return {
    model: plan.model.name,
    filter: allOf([plan.scope, where, plan.reach, plan.rule, ...hookFilters]),
    sort: plan.sort,
    keys: plan.keys,
    perPage: plan.perPage,
    skip: (plan.page - 1) * plan.perPage,
    position: plan.position,
    projection: pageProjection(plan),
    count: plan.count,
  };
}

/** The filter a SHOW reads its record within (the id aside): scope, reach, the principal's rule, then the before-hooks' filters. */
export function showFilter(plan: ShowPlan, hookFilters: readonly Document[]): Document {
  return allOf([plan.scope, plan.reach, plan.rule, ...hookFilters]);
}

/** The fields a SHOW reads: the selection and the keys its relations attach by. */
export function showProjection(plan: ShowPlan): Document | undefined {
  return projection(plan.model, plan.fields, parentKeys(plan.with));
}

/** Inclusion projection of a relation level: output fields plus the keys needed to attach and recurse. */
function childProjection(node: WithNode): Document {
  const names = [...(node.fields ?? node.model.visible), ...childKeys(node)];
  return Object.fromEntries(names.map((name) => [storedName(name), 1]));
}

/** The order of a relation's children: its `sort`, then id. */
function childOrder(node: WithNode): Document {
  const order: Document = {};
  for (const [field, direction] of Object.entries(node.relation.sort ?? {})) order[storedName(field)] = direction;
  if (!("_id" in order)) order._id = 1;
  return order;
}

/**
 * Whether the related model declares an index that starts with the foreign key (a unique one
 * included): then each parent's children are one seek away, and a read per parent costs the
 * children it returns. Without one, every such read would scan the related collection.
 */
function foreignKeyIndexed(model: Model, foreignKey: string): boolean {
  const fk = storedName(foreignKey);
  return model.unique.some((field) => storedName(field) === fk) ||
    model.indexes.some((index) => Object.keys(index.keys)[0] === fk);
}

/** Children per parent: one for hasOne, else the relation's `limit` within `maxChildrenPerParent`. */
function capOf(node: WithNode, limits: QueryLimits): number {
  if (node.relation.type !== "hasMany") return 1;
  return Math.min(node.relation.limit ?? Infinity, limits.maxChildrenPerParent);
}

/**
 * The store's reads for `with`: one per relation node, at every level. A belongsTo level reads
 * the owners whose `_id` the parents hold; hasMany and hasOne read the children holding the
 * parents' `_id`, at most `cap` each, in the relation's order; every level within the related
 * model's read scope and the relation's fixed `filter`.
 */
export function relationReads(
  nodes: readonly WithNode[],
  limits: QueryLimits,
  trashed: boolean,
  ruleOf?: (model: Model) => Document,
): RelationRead<WithNode>[] {
  return nodes.map((node) => {
    const { relation, model } = node;
    const belongsTo = relation.type === "belongsTo";
    return {
      name: relation.name,
      type: relation.type,
      model: model.name,
      collection: model.collection,
      parentModel: node.owner.name,
      parentKey: belongsTo ? relation.foreignKey : "_id",
      childKey: belongsTo ? "_id" : relation.foreignKey,
      projection: childProjection(node),
      order: childOrder(node),
      cap: capOf(node, limits),
      filters: [readScope(model, trashed), relation.filter ?? {}, ...(ruleOf ? [ruleOf(model)] : [])],
      indexed: !belongsTo && foreignKeyIndexed(model, relation.foreignKey),
      children: relationReads(node.children, limits, trashed, ruleOf),
      source: node,
    };
  });
}
