import type { Document } from "mongodb";
import { apiError } from "../errors.ts";
import type { Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import { RELATED, type RelatedCondition } from "../query/related-where.ts";
import { stopIfGone } from "./client-gone.ts";
import type { ListQuery } from "./context.ts";
import type { Route } from "./route.ts";
import { readScope } from "./scope.ts";

/** A placeholder found in a filter, and where its replacement goes. */
interface Found {
  condition: RelatedCondition;
  replace: (filter: Document) => void;
}

/** Placeholders sit where parseWhere put conditions: at the top, or inside `$and` / `$or` arrays. */
function collect(filter: Document, replace: (filter: Document) => void, into: Found[]): void {
  if (RELATED in filter) {
    into.push({ condition: filter[RELATED] as RelatedCondition, replace });
    return;
  }
  for (const op of ["$and", "$or"]) {
    const parts = filter[op];
    if (!Array.isArray(parts)) continue;
    parts.forEach((part: Document, i: number) => collect(part, (next) => (parts[i] = next), into));
  }
}

/**
 * The filter on the queried model for one related condition. belongsTo: the ids of the matching
 * owners, as values of the foreign key. hasOne: the foreign keys of the matching related records,
 * as ids. One query per condition, however many records the page holds, and at most `max` + 1
 * records read: a condition matching more than `max` is a 400 (`max` is `maxInList`, the
 * limit of an `$in` a client may send).
 */
async function idsFilter(
  route: Route,
  owner: Model,
  condition: RelatedCondition,
  trashed: boolean,
  registry: ModelRegistry,
): Promise<Document> {
  const relation = owner.relations.get(condition.relation)!;
  const related = registry.get(relation.model)!;
  const max = route.app.limits.maxInList;
  const key = relation.type === "belongsTo" ? "_id" : relation.foreignKey;
  const scope = readScope(related, trashed);
  const filter = Object.keys(scope).length === 0 ? condition.filter : { $and: [condition.filter, scope] };
  const maxTimeMS = route.app.stores.get(related.name)!.timeMs;
  const docs = await route.app.db.collection(related.collection)
    .find(filter, { projection: { [key]: 1 }, limit: max + 1, batchSize: max + 1, maxTimeMS })
    .toArray();
  if (docs.length > max) throw apiError("query.relatedTooMany", { relation: relation.name, max, model: related.name });
  const values = [...new Set(docs.map((doc) => doc[key]).filter((value) => value !== null && value !== undefined))];
  return relation.type === "belongsTo" ? { [relation.foreignKey]: { $in: values } } : { _id: { $in: values } };
}

/**
 * Turns the conditions on related records in a planned list query into `$in` filters (see
 * {@link idsFilter}), in place, and returns the collections they were read from so the response
 * cache forgets the page when one of them is written. Related records soft-deleted are left out
 * unless `trashed=true`, as in `with`.
 */
export async function resolveRelatedConditions(
  request: Request,
  route: Route,
  query: ListQuery,
  trashed: boolean,
): Promise<string[]> {
  const found: Found[] = [];
  query.filters.forEach((filter, i) => collect(filter, (next) => (query.filters[i] = next), found));
  if (found.length === 0) return [];
  stopIfGone(request);
  const { registry } = route.app;
  const filters = await Promise.all(
    found.map(({ condition }) => idsFilter(route, route.model, condition, trashed, registry)),
  );
  found.forEach(({ replace }, i) => replace(filters[i]));
  return [
    ...new Set(
      found.map(({ condition }) => registry.get(route.model.relations.get(condition.relation)!.model)!.collection),
    ),
  ];
}
