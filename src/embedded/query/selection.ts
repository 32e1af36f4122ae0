import type { Iterator as LazyIterator } from "mingo/lazy";
import * as mingoPipeline from "mingo/operators/pipeline";
import type { Options, PipelineOperator } from "mingo/types";

/**
 * `$redact`, where mingo's gave the wrong shape: it left an empty document in the output for
 * every document its expression pruned (MongoDB drops it). (`$top`/`$bottom`, which gave a
 * list of one value, are in top-values.ts now.)
 */

type Stage = (collection: LazyIterator, expr: unknown, options: Options) => LazyIterator;

const mingoRedact = (mingoPipeline as unknown as Record<string, Stage>).$redact;

/** `$redact`, without the documents pruned at the top level. */
const $redact: Stage = (collection, expr, options) =>
  mingoRedact(collection, expr, options).filter((doc) => doc !== undefined);

/** The stage, to register in mingo's context over its own. */
export const selectionStages: Record<string, PipelineOperator> = {
  $redact: $redact as unknown as PipelineOperator,
};
