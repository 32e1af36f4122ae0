import type { Document } from "bson";
import { ProcessingMode } from "mingo";
import { Aggregator } from "mingo/aggregator";
import type { Options } from "mingo/types";
import { cloneDeep } from "mingo/util";
import { isPlainObject } from "../bson.ts";
import { parseLookup, parseUnionWith } from "./join-specs.ts";
import { type CollectionResolver, type PipelineOptions, stageName } from "./joins.ts";
import { jsonSchemaPredicate } from "./json-schema.ts";
import { runLookup } from "./lookup.ts";
import { ENGINE_CONTEXT } from "./mingo.ts";
import { runUnionWith } from "./union-with.ts";

// Re-exported: the commands read a pipeline's stage names, resolver and options from here.
export { stageName };
export type { CollectionResolver, PipelineOptions };

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
/** The joins the engine runs itself, each read through the planner (the others, `$graphLookup`, are mingo's). */
const ENGINE_JOINS = new Set(["$lookup", "$unionWith"]);

/** True when a stage (or a pipeline nested in it) may write into its input documents. */
function mutates(stage: Document): boolean {
  const name = stageName(stage);
  if (!NON_MUTATING.has(name)) return true;
  const nested = isPlainObject(stage[name]) ? (stage[name] as Document).pipeline : undefined;
  return Array.isArray(nested) && nested.some(mutates);
}

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
    collectionResolver: (name: string) => resolve.docs(name) as Document[],
  });
  return latched(aggregator.stream({ [Symbol.iterator]: () => input }) as Iterator<Document>);
}

/** Runs one join stage the engine runs itself, its argument checked before any document flows. */
function runJoin(
  stage: Document,
  position: number,
  input: Iterator<Document>,
  resolve: CollectionResolver,
  options: PipelineOptions,
): Iterator<Document> {
  const work = options.joinWork?.(position);
  return "$lookup" in stage
    ? runLookup(input, parseLookup(stage.$lookup), resolve, options, work)
    : runUnionWith(input, parseUnionWith(stage.$unionWith), resolve, options, work);
}

/** Where the part of the pipeline starting at `start` ends: one engine join, or mingo's stages up to the next join (a `$graphLookup` included). */
function partEnd(stages: readonly Document[], start: number): number {
  if (ENGINE_JOINS.has(stageName(stages[start]))) return start + 1;
  let end = start;
  while (end < stages.length && !JOINS.has(stageName(stages[end]))) end++;
  return end < stages.length && !ENGINE_JOINS.has(stageName(stages[end])) ? end + 1 : end;
}

/**
 * Runs aggregation stages over a lazy input, never writing into stored documents and never
 * copying a collection: `$lookup` and `$unionWith` are the engine's (each foreign read planned,
 * see lookup.ts), the other stages mingo's. Inputs are cloned only for stages that write into
 * them, and documents joined from another collection (by reference) are cloned after the join
 * only when a later stage writes. `$match` and `$sort` compare strings under the options'
 * collation; `$$name` reads the command's `let` variables in every stage.
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
    const end = partEnd(stages, start);
    output = ENGINE_JOINS.has(stageName(stages[start]))
      ? runJoin(stages[start], start, output, resolve, options)
      : runSegment(stages.slice(start, end), output, resolve, options);
    const joined = JOINS.has(stageName(stages[end - 1]));
    if (joined && end < stages.length && stages.slice(end).some(mutates)) output = clones(output);
    start = end;
  }
  return output;
}
