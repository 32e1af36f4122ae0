import type { Model, Relation } from "../model/define.ts";
import { relationSegment } from "../model/naming.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { RecordStore } from "../store/records.ts";
import { type ParentLink, parentParam } from "../query/nesting.ts";
import type { Route } from "./route.ts";

/** What building the nested routes needs from the app. */
export interface NestingSource {
  registry: ModelRegistry;
  stores: ReadonlyMap<string, RecordStore>;
  /** The top-level route of a model, which a nested route copies and adds its parent to. */
  routeOf(model: Model): Route;
}

function hasMany(model: Model): Relation[] {
  return [...model.relations.values()].filter((rel) => rel.type === "hasMany");
}

/** hasMany relations whose nested routes are on. */
function routed(model: Model): Relation[] {
  return hasMany(model).filter((rel) => rel.routes !== false);
}

/**
 * Refuses, at start-up and before connecting, two relations of one model whose nested routes would share a path:
 * the same kebab-case segment (`ownedPosts` and `owned_posts`), or `force`, which on a
 * soft-delete model is the record's own `DELETE /<plural>/:id/force`.
 */
export function checkNesting(models: readonly Model[]): void {
  models.forEach(checkSegments);
}

function checkSegments(model: Model): void {
  const seen = new Map<string, string>();
  for (const rel of routed(model)) {
    const segment = relationSegment(rel.name);
    const other = seen.get(segment);
    if (other !== undefined) {
      throw new TypeError(
        `Model ${model.name}: relations "${other}" and "${rel.name}" both give the nested route /${model.route}/:${
          parentParam(model)
        }/${segment}; rename one or set routes: false on one`,
      );
    }
    if (segment === "force" && model.softDelete) {
      throw new TypeError(
        `Model ${model.name}: relation "${rel.name}" gives /${model.route}/:id/force, the force delete; rename it or set routes: false`,
      );
    }
    seen.set(segment, rel.name);
  }
}

/**
 * The old URL, which named the child model's route (`/users/:userId/posts`), for a relation
 * whose segment differs (`ownedPosts`): kept only while it is unambiguous, i.e. the parent has
 * no other hasMany relation to that model and no relation whose segment is that route.
 */
function legacyFor(model: Model, rel: Relation, child: Model): boolean {
  if (relationSegment(rel.name) === child.route) return false;
  const sameTarget = hasMany(model).filter((other) => other.model === rel.model);
  const taken = routed(model).some((other) => relationSegment(other.name) === child.route);
  return sameTarget.length === 1 && !taken;
}

function linkOf(
  source: NestingSource,
  model: Model,
  rel: Relation,
  up: ParentLink | undefined,
  legacy: boolean,
): ParentLink {
  const child = source.registry.get(rel.model)!;
  const segment = legacy ? child.route : relationSegment(rel.name);
  const link: ParentLink = {
    model,
    relation: rel.name,
    segment,
    foreignKey: rel.foreignKey,
    param: parentParam(model),
  };
  if (up) link.up = up;
  if (legacy) link.legacy = true;
  return link;
}

/**
 * Below `model` (reached through `up`): one route per hasMany relation, then the routes below
 * each child. A model already on the path ends the descent, so relations that form a cycle
 * (a user's followers are users) nest once and path parameters never repeat.
 */
function below(source: NestingSource, model: Model, up: ParentLink | undefined, onPath: ReadonlySet<string>): Route[] {
  const routes: Route[] = [];
  for (const rel of routed(model)) {
    const child = source.registry.get(rel.model)!;
    const link = linkOf(source, model, rel, up, false);
    routes.push({ ...source.routeOf(child), parent: link });
    if (!up && legacyFor(model, rel, child)) {
      routes.push({ ...source.routeOf(child), parent: linkOf(source, model, rel, up, true) });
    }
    if (!onPath.has(child.name)) routes.push(...below(source, child, link, new Set([...onPath, child.name])));
  }
  return routes;
}

/**
 * Every nested route of the app: `/users/:userId/owned-posts`, `/users/:userId/posts/:postId/comments`,
 * … named after the relations, at every level, with the old child-route URLs kept where
 * unambiguous. Collisions are refused beforehand by {@link checkNesting}.
 */
export function nestedRoutes(source: NestingSource, models: readonly Model[]): Route[] {
  return models.flatMap((model) => below(source, model, undefined, new Set([model.name])));
}
