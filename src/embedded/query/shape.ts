import type { Document } from "bson";
import type { Iterator as LazyIterator } from "mingo/lazy";
import * as mingoPipeline from "mingo/operators/pipeline";
import type { Options, PipelineOperator } from "mingo/types";

/**
 * Documents in MongoDB's field order after a projection: `_id` first. mingo's projection (the
 * `$project` stage, and find projections it computes) put `_id` last.
 */

type Stage = (collection: LazyIterator, expr: unknown, options: Options) => LazyIterator;

const mingoProject = (mingoPipeline as unknown as Record<string, Stage>).$project;

/** The document with `_id` moved first; the same object when it already is (or has none). */
export function idFirst(doc: Document): Document {
  for (const key in doc) {
    if (key === "_id" || !("_id" in doc)) return doc;
    break;
  }
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

/** `$project`, its output with `_id` first. */
const $project: Stage = (collection, expr, options) =>
  mingoProject(collection, expr, options).map((doc) => idFirst(doc as Document));

/** The stage, to register in mingo's context over its own. */
export const shapeStages: Record<string, PipelineOperator> = {
  $project: $project as unknown as PipelineOperator,
};
