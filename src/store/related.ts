import type { Document } from "bson";
import { apiError } from "../errors.ts";
import { type Condition, filterOf, type RelatedCondition, relatedIn } from "../plan/conditions.ts";
import type { RecordStore } from "./records.ts";

/**
 * The `$in` filter for one related condition: the `key` of the related records matching it,
 * read in one query of at most `max` + 1 records (more than `max` is a 400 naming the relation),
 * as values of `into`. Nulls and missing values never join.
 */
async function lookUp(store: RecordStore, condition: RelatedCondition): Promise<Document> {
  const { key, max } = condition;
  const docs = await store.collection
    .find(condition.filter, { projection: { [key]: 1 }, limit: max + 1, batchSize: max + 1, maxTimeMS: store.timeMs })
    .toArray();
  if (docs.length > max) {
    throw apiError("query.relatedTooMany", { relation: condition.relation, max, model: condition.model });
  }
  const values = [...new Set(docs.map((doc) => doc[key]).filter((value) => value !== null && value !== undefined))];
  return { [condition.into]: { $in: values } };
}

/**
 * The MongoDB filter of `condition`, its related conditions looked up first, all at once (one
 * query each, whatever the page holds). Without related conditions it sends nothing.
 */
export async function resolveCondition(
  condition: Condition,
  storeOf: (model: string) => RecordStore,
): Promise<Document> {
  const related = relatedIn(condition);
  if (related.length === 0) return filterOf(condition);
  const filters = await Promise.all(related.map((part) => lookUp(storeOf(part.model), part)));
  const resolved = new Map(related.map((part, i) => [part, filters[i]]));
  return filterOf(condition, (part) => resolved.get(part)!);
}
