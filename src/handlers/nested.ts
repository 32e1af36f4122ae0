import type { Document } from "mongodb";
import { notFound } from "../errors.ts";
import { parseRecordId } from "../http/params.ts";
import type { Model } from "../model/define.ts";
import type { RecordStore } from "../store/records.ts";
import type { RouteRequest } from "./route.ts";
import { scopeOf, writeScope } from "./scope.ts";

/** A hasMany relation exposed as a nested route: `/users/:userId/posts`. */
export interface ParentLink {
  model: Model;
  store: RecordStore;
  /** The child's field that points at the parent. */
  foreignKey: string;
  /** The path parameter holding the parent id, e.g. `userId`. */
  param: string;
}

/** Path parameter name for a parent: `User` → `userId`, `BlogPost` → `blogPostId`. */
export function parentParam(model: Model): string {
  return model.name[0].toLowerCase() + model.name.slice(1) + "Id";
}

/**
 * For a nested route: checks that the parent exists (404 on the parent model otherwise) and
 * returns the child filter, which is also the value the child's foreign key is set to.
 * Outside a nested route it returns `{}`.
 */
export async function parentFilter(request: RouteRequest, link: ParentLink | undefined, forWrite = false): Promise<Document> {
  if (!link) return {};
  const id = parseRecordId(request.params[link.param]);
  if (id === null) throw notFound(link.model.name);
  // Listing may include a trashed parent's children (trashed=true); creating under one may not.
  const scope = forWrite ? writeScope(link.model) : scopeOf(request, link.model);
  if (!(await link.store.findById(id, scope, { _id: 1 }))) throw notFound(link.model.name);
  return { [link.foreignKey]: id };
}
