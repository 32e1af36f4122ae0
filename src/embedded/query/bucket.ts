import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import { type Iterator as LazyIterator, Lazy } from "mingo/lazy";
import type { Options, PipelineOperator } from "mingo/types";
import * as mingoPipeline from "mingo/operators/pipeline";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { StringCompare } from "../store/collation.ts";
import { compareValues } from "../store/values.ts";
import { numberKind } from "./number-arithmetic.ts";
import { collationOf } from "./options-collation.ts";
import { $group } from "./value-matching.ts";
import { counted, sortMemory } from "./memory.ts";

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

const BUCKET_AUTO_FIELDS = new Set(["groupBy", "buckets", "output", "granularity"]);

/** A `$bucketAuto` argument, checked as MongoDB checks it. */
function bucketAutoArgument(expr: unknown): { groupBy: unknown; buckets: number; output: Document } {
  if (!isPlainObject(expr)) throw new CommandError("Location40240", "The argument to $bucketAuto must be an object");
  for (const field in expr) {
    if (!BUCKET_AUTO_FIELDS.has(field)) {
      throw new CommandError("Location40245", `Unrecognized option to $bucketAuto: ${field}.`);
    }
  }
  const { groupBy, buckets } = expr;
  if (groupBy === undefined || buckets === undefined) {
    throw new CommandError("Location40246", "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
  }
  const operator = isPlainObject(groupBy) && Object.keys(groupBy).length === 1 &&
    Object.keys(groupBy)[0].startsWith("$");
  if (!(typeof groupBy === "string" && groupBy.startsWith("$")) && !operator) {
    throw new CommandError(
      "Location40239",
      "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object",
    );
  }
  if (numberKind(buckets) === undefined) {
    throw new CommandError("Location40241", "The $bucketAuto 'buckets' field must be a numeric value");
  }
  const count = toNumber(buckets);
  if (!Number.isInteger(count) || count > 2 ** 31 - 1) {
    throw new CommandError(
      "Location40242",
      `The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found ${count}`,
    );
  }
  if (count <= 0) {
    throw new CommandError(
      "Location40243",
      `The $bucketAuto 'buckets' field must be greater than 0, but found: ${count}`,
    );
  }
  if (expr.output !== undefined && !isPlainObject(expr.output)) {
    throw new CommandError("Location40244", "The $bucketAuto 'output' field must be an object");
  }
  const output = isPlainObject(expr.output) && Object.keys(expr.output).length > 0
    ? expr.output
    : { count: { $sum: 1 } };
  return { groupBy, buckets: count, output };
}

interface Keyed {
  key: unknown;
  doc: Document;
}

/**
 * The buckets of documents sorted by key, as MongoDB fills them: about n/buckets documents
 * each (rounded), the last taking the rest, a key never split between two buckets, and each
 * bucket's max the next one's min (the last one's its own greatest key).
 */
function fillBuckets(
  sorted: Keyed[],
  buckets: number,
  strings: StringCompare | undefined,
): { min: unknown; max: unknown; docs: Document[] }[] {
  const size = Math.max(1, Math.round(sorted.length / buckets));
  const filled: { min: unknown; max: unknown; docs: Document[] }[] = [];
  let i = 0;
  for (let b = 0; b < buckets && i < sorted.length; b++) {
    const last = b === buckets - 1;
    const start = i;
    i = last ? sorted.length : Math.min(sorted.length, i + size);
    while (i < sorted.length && compareValues(sorted[i].key, sorted[i - 1].key, strings) === 0) i++;
    const max = i < sorted.length ? sorted[i].key : sorted[i - 1].key;
    filled.push({ min: sorted[start].key, max, docs: sorted.slice(start, i).map((k) => k.doc) });
  }
  return filled;
}

/**
 * `$bucketAuto` in BSON order (mingo sorted a Long or Decimal128 as an object and wrote `_id`
 * last). With `granularity`, mingo's stage runs, and its output is given `_id` first.
 */
function $bucketAuto(input: LazyIterator, expr: Document, options: Options): LazyIterator {
  // It sorts every document by its key, as MongoDB's sorter does: they are what that sort holds.
  const collection = counted(input, sortMemory());
  if (isPlainObject(expr) && expr.granularity !== undefined) {
    const mingoBucketAuto = mingoPipeline.$bucketAuto as unknown as (
      coll: LazyIterator,
      expr: Document,
      options: Options,
    ) => LazyIterator;
    return mingoBucketAuto(collection, expr, options).map((bucket) => {
      const { _id, ...fields } = bucket as Document;
      return { _id, ...fields };
    });
  }
  const { groupBy, buckets, output } = bucketAutoArgument(expr);
  return collection.transform((docs) => {
    const keyed = (docs as Document[]).map((doc) => ({ key: evalExpr(doc, groupBy, options) ?? null, doc }));
    const strings = collationOf(options)?.compare;
    keyed.sort((a, b) => compareValues(a.key, b.key, strings));
    return Lazy(
      fillBuckets(keyed, buckets, strings).map(({ min, max, docs }) => {
        const [totals] = $group(Lazy(docs), { _id: null, ...output }, options).collect() as Document[];
        const { _id: _none, ...fields } = totals;
        return { _id: { min, max }, ...fields };
      }),
    );
  });
}

/** The stages, to register in mingo's context over its own. */
export const bucketStages: Record<string, PipelineOperator> = {
  $bucket: $bucket as unknown as PipelineOperator,
  $bucketAuto: $bucketAuto as unknown as PipelineOperator,
};

/** The expression the stage uses, to register in mingo's context. */
export const bucketExpressions = { [BUCKET_OF]: bucketOf };
