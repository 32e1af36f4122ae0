import type { Document } from "mongodb";
import { notFound } from "../errors.ts";
import { parseRecordId } from "../http/params.ts";
import type { Model, Relation } from "../model/define.ts";
import type { RecordStore } from "../store/records.ts";

/** A hasMany relation exposed as a nested route: `/users/:userId/posts`. */
export interface ParentLink {
  model: Model;
  store: RecordStore;
  /** The child's field that points at the parent. */
  foreignKey: string;
  /** The path parameter holding the parent id, e.g. `userId`. */
  param: string;
  /** The parent's relation the route lists: its `filter`, `sort` and `limit` apply to the list. */
  relation?: Relation;
}

/** Path parameter name for a parent: `User` → `userId`, `BlogPost` → `blogPostId`. */
export function parentParam(model: Model): string {
  return model.name[0].toLowerCase() + model.name.slice(1) + "Id";
}

/** The parent id from the path, parsed with the other parameters: 404 on the parent model when it cannot name one. */
export function parentIdOf(params: Record<string, string>, link: ParentLink): number {
  const id = parseRecordId(params[link.param]);
  if (id === null) throw notFound(link.model.name);
  return id;
}

/**
 * For a nested route, once every parameter is checked: looks the parent up within `scope`
 * (404 on the parent model when it is not there) and returns the child filter, which is also
 * the value the child's foreign key is set to.
 */
export async function parentFilter(link: ParentLink, id: number, scope: Document): Promise<Document> {
  if (!(await link.store.findById(id, scope, { _id: 1 }))) throw notFound(link.model.name);
  return { [link.foreignKey]: id };
}
