import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import { type Iterator as LazyIterator, Lazy } from "mingo/lazy";
import type { Options, PipelineOperator } from "mingo/types";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compareValues } from "../store/values.ts";
import { $group } from "./value-matching.ts";

/**
 * `$bucket` as MongoDB defines it: a `$group` by the lower boundary of the bucket each
 * document's `groupBy` falls in (or by `default`), then a `$sort` by `_id`, so only buckets
 * that hold documents are output. mingo's compared a Long or Decimal128 as an object (so it
 * missed their buckets) and output empty buckets too.
 */

/** The expression that names a document's bucket: only {@link $bucket} writes it. */
const BUCKET_OF = "$__engineBucketOf";

interface BucketArgument {
  groupBy: unknown;
  boundaries: unknown[];
  fallback: { value: unknown } | undefined;
}

function bucketOf(obj: unknown, arg: unknown, options: Options): unknown {
  const spec = arg as Partial<BucketArgument>;
  if (!isPlainObject(arg) || !Array.isArray(spec.boundaries) || !("fallback" in spec)) {
    throw new CommandError("InvalidPipelineOperator", `Unrecognized expression '${BUCKET_OF}'`);
  }
  const { groupBy, boundaries, fallback } = arg as unknown as BucketArgument;
  const value = evalExpr(obj, groupBy, options) ?? null;
  // The last boundary at or below the value, if the value is below the upper one.
  let low = -1;
  for (let lo = 0, hi = boundaries.length - 1; lo <= hi;) {
    const mid = (lo + hi) >> 1;
    if (compareValues(boundaries[mid], value) <= 0) {
      low = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (low >= 0 && low < boundaries.length - 1) return boundaries[low];
  if (fallback) return fallback.value;
  throw new CommandError(
    "Location40066",
    "$switch could not find a matching branch for an input, and no default was specified.",
  );
}

function refuseBoundaries(boundaries: unknown, fallback: BucketArgument["fallback"]): unknown[] {
  if (!Array.isArray(boundaries) || boundaries.length < 2) {
    throw new CommandError("Location40192", "The $bucket 'boundaries' field must have at least 2 values");
  }
  for (let i = 1; i < boundaries.length; i++) {
    if (compareValues(boundaries[i - 1], boundaries[i]) >= 0) {
      throw new CommandError("Location40194", "The 'boundaries' option to $bucket must be sorted in ascending order");
    }
  }
  const [lowest, highest] = [boundaries[0], boundaries[boundaries.length - 1]];
  if (fallback && compareValues(fallback.value, lowest) >= 0 && compareValues(fallback.value, highest) < 0) {
    throw new CommandError(
      "Location40199",
      "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.",
    );
  }
  return boundaries;
}

/** The `$bucket` stage. */
function $bucket(collection: LazyIterator, expr: Document, options: Options): LazyIterator {
  if (!isPlainObject(expr)) throw new CommandError("Location40201", "Argument to $bucket stage must be an object");
  const fallback = "default" in expr ? { value: expr.default } : undefined;
  const boundaries = refuseBoundaries(expr.boundaries, fallback);
  const output = isPlainObject(expr.output) ? expr.output : { count: { $sum: 1 } };
  const grouped = $group(collection, {
    _id: { [BUCKET_OF]: { groupBy: expr.groupBy, boundaries, fallback } },
    ...output,
  }, options);
  return grouped.transform((buckets) => Lazy((buckets as Document[]).sort((a, b) => compareValues(a._id, b._id))));
}

/** The stage, to register in mingo's context over its own. */
export const bucketStages: Record<string, PipelineOperator> = {
  $bucket: $bucket as unknown as PipelineOperator,
};

/** The expression the stage uses, to register in mingo's context. */
export const bucketExpressions = { [BUCKET_OF]: bucketOf };
