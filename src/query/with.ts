import { apiError } from "../errors.ts";
import type { Model, Relation } from "../model/define.ts";
import type { ModelLookup } from "../model/registry.ts";
import { undefinedColumns } from "./columns.ts";
import { limitExceeded, type QueryLimits } from "./limits.ts";
import { parseWithSyntax, type WithItem } from "./with-syntax.ts";
import { msg } from "../i18n/message.ts";

/** One relation to load: which relation, its model, the fields asked for, and its children. */
export interface WithNode {
  relation: Relation;
  /** The related model (the one the relation points at). */
  model: Model;
  /** The model that declares the relation. */
  owner: Model;
  /** Fields to return for the related records; null means every visible field. */
  fields: readonly string[] | null;
  children: readonly WithNode[];
}

interface Resolve {
  registry: ModelLookup;
  limits: QueryLimits;
  nodes: number;
  unknown: string[];
}

function relatedModel(owner: Model, relation: Relation, registry: ModelLookup): Model {
  const model = registry.get(relation.model);
  // createRegistry rejects this at start-up; reaching it means a registry built by hand.
  if (!model) {
    throw new TypeError(`Model ${owner.name}: relation "${relation.name}" refers to unknown model ${relation.model}`);
  }
  return model;
}

function resolveRelation(owner: Model, item: WithItem, path: string, depth: number, ctx: Resolve): WithNode {
  const relation = owner.relations.get(item.name);
  if (!relation) throw apiError("query.undefinedRelation", { path });
  if (owner.loadable !== null && !owner.loadable.has(item.name)) {
    throw apiError("query.withNotAllowed", {
      path,
      model: owner.name,
      allowed: [...owner.loadable].join(", ") || "(none)",
    });
  }
  if (depth > ctx.limits.maxRelationDepth) {
    limitExceeded(msg("limit.relationDepth", { path }), ctx.limits.maxRelationDepth);
  }
  if (++ctx.nodes > ctx.limits.maxRelations) limitExceeded(msg("limit.relations"), ctx.limits.maxRelations);
  const model = relatedModel(owner, relation, ctx.registry);
  const { fields, children } = resolveBraces(model, item.braces ?? [], path, depth, ctx);
  return { relation, model, owner, fields, children };
}

/** Inside braces a name is a relation of the related model if it has one, else a field. */
function resolveBraces(model: Model, items: readonly WithItem[], path: string, depth: number, ctx: Resolve) {
  const fields = new Set<string>();
  const relations: WithItem[] = [];
  for (const item of items) {
    if (model.relations.has(item.name)) relations.push(item);
    else if (item.braces !== null) throw apiError("query.undefinedRelation", { path: `${path}.${item.name}` });
    else if (model.visibleSet.has(item.name)) fields.add(item.name);
    else ctx.unknown.push(item.name);
  }
  const children = resolveLevel(model, relations, `${path}.`, depth + 1, ctx);
  return { fields: fields.size > 0 ? [...fields] : null, children };
}

function resolveLevel(
  owner: Model,
  items: readonly WithItem[],
  prefix: string,
  depth: number,
  ctx: Resolve,
): WithNode[] {
  const seen = new Set<string>();
  return items.map((item) => {
    if (seen.has(item.name)) throw apiError("query.relationTwice", { name: `${prefix}${item.name}` });
    seen.add(item.name);
    return resolveRelation(owner, item, `${prefix}${item.name}`, depth, ctx);
  });
}

/**
 * Parses `with` into the relation tree to load. Top-level names must be relations of
 * `model`; inside braces, names are relations of the related model or its fields,
 * separated by `|` or `,`. A trailing separator is tolerated.
 * @example parseWith("posts", User, registry, limits)
 * // [{ relation: posts, model: Post, fields: null, children: [] }]
 * @example parseWith("posts{title|comments{content}},profile{bio}", User, registry, limits)
 * // posts (fields [title]) → comments (fields [content]); profile (fields [bio])
 * @example parseWith("posts{comments}", User, registry, limits)  // posts with all fields → comments
 * @example parseWith("friends", User, registry, limits)          // throws 400 "Undefined relation: friends"
 * @example parseWith("posts{secret}", User, registry, limits)    // throws 400 "Undefined column names: secret"
 */
export function parseWith(raw: string | null, model: Model, registry: ModelLookup, limits: QueryLimits): WithNode[] {
  if (raw === null || raw.trim() === "") return [];
  const items = parseWithSyntax(raw, limits.maxRelationDepth);
  const ctx: Resolve = { registry, limits, nodes: 0, unknown: [] };
  const nodes = resolveLevel(model, items, "", 1, ctx);
  if (ctx.unknown.length > 0) throw undefinedColumns(ctx.unknown);
  return nodes;
}

/**
 * API names of the fields the holder of `nodes` must fetch so the children can be attached:
 * `id` for hasMany/hasOne (the children point at it), the foreign key for belongsTo.
 * The caller fetches them even when `fields` leaves them out and omits them from the
 * output unless they were asked for.
 * @example parentKeys(parseWith("posts,team", User, registry, limits)) // ["id", "team_id"]
 */
export function parentKeys(nodes: readonly WithNode[]): string[] {
  const keys = new Set<string>();
  for (const { relation } of nodes) keys.add(relation.type === "belongsTo" ? relation.foreignKey : "id");
  return [...keys];
}

/**
 * API names of the fields a node's own query must fetch besides its output fields:
 * the key matched against the parents, and the keys its own children need.
 * @example childKeys(postsNode) // ["user_id", "id"]  (posts{comments} under users)
 */
export function childKeys(node: WithNode): string[] {
  const own = node.relation.type === "belongsTo" ? "id" : node.relation.foreignKey;
  return [...new Set([own, ...parentKeys(node.children)])];
}
