import type { Document } from "bson";
import { notFound } from "../errors.ts";
import { parseRecordId } from "../http/params.ts";
import type { Model, Relation } from "../model/define.ts";
import type { AncestorCheck } from "../plan/read.ts";

/**
 * One step of a nested route: a parent's hasMany relation, e.g. `/users/:userId/owned-posts`.
 * A route nested deeper (`/users/:userId/posts/:postId/comments`) links its parent's link
 * through `up`, so a route knows every ancestor.
 */
export interface ParentLink {
  model: Model;
  /** The relation on the parent model that this step follows, e.g. `ownedPosts`. */
  relation: string;
  /** The path segment after the parent's id: the relation's name in kebab-case (`owned-posts`). */
  segment: string;
  /** The child's field that points at the parent. */
  foreignKey: string;
  /** The path parameter holding the parent id, e.g. `userId`. */
  param: string;
  /** The parent's own parent on this route, for routes nested more than one level. */
  up?: ParentLink;
  /**
   * True on the old one-level URL that names the child model's route instead of the relation
   * (`/users/:userId/posts` for `ownedPosts`), kept where it is unambiguous.
   */
  legacy?: boolean;
}

/** Path parameter name for a parent: `User` → `userId`, `BlogPost` → `blogPostId`. */
export function parentParam(model: Model): string {
  return model.name[0].toLowerCase() + model.name.slice(1) + "Id";
}

/** The relation a step follows, with its options: `filter`, `sort` and `limit` apply to the nested list. */
export function linkRelation(link: ParentLink): Relation {
  return link.model.relations.get(link.relation)!;
}

/**
 * The children a step reaches: the relation's fixed `filter`, so a post the relation leaves out
 * (a draft under `publishedPosts`) is a 404 on its item routes and below, as it is absent from
 * its list. `{}` on a top-level route or for a relation without one.
 */
export function reachable(link: ParentLink | undefined): Document {
  return (link && linkRelation(link).filter) ?? {};
}

/** `filter` ANDed with `extra`; `$and` keeps both whole even when they name the same field. */
function and(filter: Document, extra: Document): Document {
  return Object.keys(extra).length === 0 ? filter : { $and: [filter, extra] };
}

/** Every link of a route's chain, outermost ancestor first. */
export function ancestorsOf(link: ParentLink | undefined): ParentLink[] {
  const chain: ParentLink[] = [];
  for (let step = link; step; step = step.up) chain.unshift(step);
  return chain;
}

/** Ancestor ids from the path by parameter name (`{ userId: 1, postId: 2 }`). */
export type ParentIds = Readonly<Record<string, number>>;

/**
 * Every ancestor id from the path, parsed with the other parameters and before any database
 * command: one that cannot name a record is a 404 on its model, the outermost first.
 */
export function parentIdsOf(params: Record<string, string>, link: ParentLink): ParentIds {
  const ids: Record<string, number> = {};
  for (const step of ancestorsOf(link)) {
    const id = parseRecordId(params[step.param]);
    if (id === null) throw notFound(step.model.name);
    ids[step.param] = id;
  }
  return ids;
}

/**
 * The lookups a nested route's request needs before anything else: every ancestor by its id
 * from the path, each within `scopeOf` of its model and under its own parent, reached through
 * that parent's relation (a post of another user, or one the relation's `filter` leaves out, is
 * a 404), outermost first. The store runs them all at once; the outermost missing one is the 404.
 */
export function ancestorChecks(link: ParentLink, ids: ParentIds, scopeOf: (model: Model) => Document): AncestorCheck[] {
  return ancestorsOf(link).map((step) => {
    const under = step.up ? and({ [step.up.foreignKey]: ids[step.up.param] }, reachable(step.up)) : {};
    return {
      id: ids[step.param],
      filter: { ...scopeOf(step.model), ...under },
      model: step.model.name,
    };
  });
}

/** The filter every record of a nested route holds: its foreign key is its parent's id; also what a write sets it to. */
export function childFilter(link: ParentLink, ids: ParentIds): Document {
  return { [link.foreignKey]: ids[link.param] };
}
