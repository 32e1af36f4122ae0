import type { Document } from "bson";
import { ProcessingMode } from "mingo";
import { Aggregator } from "mingo/aggregator";
import type { Options } from "mingo/types";
import { cloneDeep } from "mingo/util";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import { jsonSchemaPredicate } from "./json-schema.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";
import type { Variables } from "./variables.ts";

/** Stages that never write into the documents they receive, so stored ones can be passed in. */
const NON_MUTATING = new Set([
  "$match",
  "$sort",
  "$skip",
  "$limit",
  "$group",
  "$count",
  "$sortByCount",
  "$lookup",
  "$facet",
]);
/** Stages that bring in documents of another collection by reference. */
const JOINS = new Set(["$lookup", "$unionWith", "$graphLookup"]);

/** The single operator name of a stage (validated). */
export function stageName(stage: unknown): string {
  if (!isPlainObject(stage)) throw new CommandError("TypeMismatch", "each pipeline stage must be an object");
  const keys = Object.keys(stage);
  if (keys.length !== 1) throw new CommandError("BadValue", "a pipeline stage must have exactly one field");
  return keys[0];
}

/** True when a stage (or a pipeline nested in it) may write into its input documents. */
function mutates(stage: Document): boolean {
  const name = stageName(stage);
  if (!NON_MUTATING.has(name)) return true;
  const nested = isPlainObject(stage[name]) ? (stage[name] as Document).pipeline : undefined;
  return Array.isArray(nested) && nested.some(mutates);
}

/** Gives the documents of a collection in the pipeline's database, without copying. */
export type CollectionResolver = (name: string) => readonly Document[];

function clones(source: Iterator<Document>): Iterator<Document> {
  return {
    next: () => {
      const step = source.next();
      return step.done ? step : { done: false, value: cloneDeep(step.value) as Document };
    },
  };
}

/**
 * An iterator that stays done once it is. mingo's stage iterators do not: asked again after
 * their end, `$group` (and `$bucket`, `$count`, `$unwind`...) go on computing from past their
 * last partition, which failed with "arguments must resolve to array for $sum". A cursor
 * filling a batch, or the next segment of a pipeline, may well ask again.
 */
function latched(source: Iterator<Document>): Iterator<Document> {
  let done = false;
  return {
    next: () => {
      if (done) return { done: true, value: undefined };
      const step = source.next();
      done = step.done === true;
      return step;
    },
  };
}

/** How a pipeline runs: the collation its strings compare under and the command's `let` variables. */
export interface PipelineOptions {
  collation?: Collation;
  variables?: Variables;
}

function runSegment(
  stages: Document[],
  input: Iterator<Document>,
  resolve: CollectionResolver,
  options: PipelineOptions,
): Iterator<Document> {
  // Stored documents are shared, not copied: clone on the way in only if a stage writes.
  const mode = stages.some(mutates) ? ProcessingMode.CLONE_INPUT : ProcessingMode.CLONE_OFF;
  const aggregator = new Aggregator(stages, {
    processingMode: mode,
    context: ENGINE_CONTEXT,
    collation: options.collation as unknown as Options["collation"],
    variables: options.variables,
    jsonSchemaValidator: jsonSchemaPredicate,
    collectionResolver: (name: string) => resolve(name) as Document[],
  });
  return latched(aggregator.stream({ [Symbol.iterator]: () => input }) as Iterator<Document>);
}

/**
 * Runs aggregation stages with mingo over a lazy input, never writing into stored documents
 * and never copying a collection: inputs are cloned only for stages that write into them, and
 * documents joined from another collection (by reference) are cloned after the join only when
 * a later stage writes. `$match` and `$sort` compare strings under the options' collation;
 * `$$name` reads the command's `let` variables in every stage.
 */
export function runPipeline(
  stages: Document[],
  input: Iterator<Document>,
  resolve: CollectionResolver,
  options: PipelineOptions = {},
): Iterator<Document> {
  let output = input;
  let start = 0;
  while (start < stages.length) {
    let end = start;
    while (end < stages.length && !JOINS.has(stageName(stages[end]))) end++;
    end = Math.min(end + 1, stages.length);
    output = runSegment(stages.slice(start, end), output, resolve, options);
    if (end < stages.length && stages.slice(end).some(mutates)) output = clones(output);
    start = end;
  }
  return output;
}
