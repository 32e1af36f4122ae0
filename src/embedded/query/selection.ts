import type { Iterator as LazyIterator } from "mingo/lazy";
import * as mingoAccumulators from "mingo/operators/accumulator";
import * as mingoPipeline from "mingo/operators/pipeline";
import type { Options, PipelineOperator } from "mingo/types";

/**
 * A stage and accumulators that select, where mingo's gave the wrong shape: `$redact` left an
 * empty document in the output for every document its expression pruned (MongoDB drops it),
 * and `$top`/`$bottom` gave a list of one value where MongoDB gives the value itself.
 */

type Accumulator = (collection: unknown[], expr: unknown, options: Options) => unknown;
type Stage = (collection: LazyIterator, expr: unknown, options: Options) => LazyIterator;

const mingoRedact = (mingoPipeline as unknown as Record<string, Stage>).$redact;
const accumulators = mingoAccumulators as unknown as Record<string, Accumulator>;

/** `$redact`, without the documents pruned at the top level. */
const $redact: Stage = (collection, expr, options) =>
  mingoRedact(collection, expr, options).filter((doc) => doc !== undefined);

/** `$top`/`$bottom`: the first value `$topN`/`$bottomN` of one would list, or null for none. */
function single(name: "$topN" | "$bottomN"): Accumulator {
  return (collection, expr, options) => {
    const values = accumulators[name](collection, { ...(expr as object), n: 1 }, options);
    return Array.isArray(values) ? values[0] ?? null : values;
  };
}

/** The stage, to register in mingo's context over its own. */
export const selectionStages: Record<string, PipelineOperator> = {
  $redact: $redact as unknown as PipelineOperator,
};

/** The accumulators, to register in mingo's context over their own. */
export const selectionAccumulators: Record<string, Accumulator> = {
  $top: single("$topN"),
  $bottom: single("$bottomN"),
};
