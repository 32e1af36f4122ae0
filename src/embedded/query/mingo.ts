import type { Document } from "bson";
import { Context, ProcessingMode } from "mingo/core";
import { type Iterator as LazyIterator, Lazy } from "mingo/lazy";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import * as pipelineOperators from "mingo/operators/pipeline";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import * as windowOperators from "mingo/operators/window";
import { Query as BaseQuery } from "mingo/query";
import type { Options, PipelineOperator, QueryOperator } from "mingo/types";
import type { Collation } from "../store/collation.ts";
import { $typeQuery, typeExpressions } from "./bson-types.ts";
import { bucketExpressions, bucketStages } from "./bucket.ts";
import { valueMatchingAccumulators, valueMatchingExpressions, valueMatchingStages } from "./value-matching.ts";
import { valueSetExpressions } from "./value-sets.ts";
import { wideAccumulators, wideExpressions } from "./wide-expressions.ts";
import { wideMathExpressions } from "./wide-math.ts";
import { $exprQuery, truthExpressions } from "./truthiness.ts";
import { statisticsAccumulators, statisticsExpressions } from "./statistics.ts";
import { stringExpressions } from "./string-expressions.ts";
import { regexExpressions } from "./regex-expressions.ts";
import { dateExpressions } from "./date-expressions.ts";
import { dateArithmeticExpressions } from "./date-arithmetic.ts";
import { dateParsingExpressions } from "./date-parsing.ts";
import { bitQueryOperators } from "./bit-operators.ts";
import { selectionStages } from "./selection.ts";
import { topValueAccumulators, topValueExpressions } from "./top-values.ts";
import { shapeStages } from "./shape.ts";
import { graphLookupStages } from "./graph-lookup.ts";
import { prepareFilter } from "./filter-checks.ts";
import { jsonSchemaPredicate } from "./json-schema.ts";
import { collationOf } from "./options-collation.ts";
import { comparisonOperators } from "./operators.ts";
import { sortDocuments } from "./sort.ts";
import { $elemMatch } from "./elem-match-projection.ts";
import { accumulatorExpressions } from "./accumulator-expressions.ts";
import type { Expression } from "./expression-arguments.ts";
import { windowStages } from "./window-order.ts";
import { fieldExpressions } from "./field-expressions.ts";
import { countedExpressions } from "./memory-expressions.ts";
import { facetStages } from "./facet.ts";
import { aliasDocument, aliasFilter, needsAliases, unaliasedError } from "./aliases.ts";

/** `$sort` in pipelines, with the engine's BSON order (Longs by value) and the collation. */
const $sort =
  ((coll: LazyIterator, spec: Document, options: Options) =>
    coll.transform((docs) =>
      Lazy(sortDocuments(docs as Document[], spec, 0, 0, collationOf(options)))
    )) as unknown as PipelineOperator;

/** `$match` with its filter prepared as a find's is (filter-checks.ts): MongoDB's errors and regexes. */
const $match =
  ((coll: LazyIterator, expr: Document, options: Options) =>
    pipelineOperators.$match(coll, prepareFilter(expr), options)) as unknown as PipelineOperator;

let captured: Partial<Options> | undefined;
const $captureOptions = ((_selector: string, _value: unknown, options: Options) => {
  captured = options;
  return () => true;
}) as unknown as QueryOperator;

/** The engine's expressions, before those that build values are counted (memory-expressions.ts). */
const EXPRESSIONS = {
  ...expressionOperators,
  ...wideExpressions,
  ...wideMathExpressions,
  ...truthExpressions,
  ...statisticsExpressions,
  ...stringExpressions,
  ...regexExpressions,
  ...dateExpressions,
  ...dateArithmeticExpressions,
  ...dateParsingExpressions,
  ...typeExpressions,
  ...valueMatchingExpressions,
  ...valueSetExpressions,
  ...bucketExpressions,
  ...topValueExpressions,
  ...accumulatorExpressions,
  ...fieldExpressions,
} as unknown as Record<string, Expression>;

/**
 * Every mingo operator, with the engine's own in place of mingo's where mingo's differ from
 * MongoDB. Passed as the context of every query, pipeline and update.
 * - Query: comparisons (operators.ts), `$type` (bson-types.ts), `$expr` (truthiness.ts) and
 *   the `$bits…` operators (bit-operators.ts).
 * - Arithmetic, comparison and conversion expressions and accumulators meeting Longs and
 *   Decimal128s (wide-expressions.ts); math, bitwise, `$convert` and integer arguments
 *   (wide-math.ts); truth in `$cond`, `$filter`, `$and`... (truthiness.ts); percentiles and
 *   standard deviations (statistics.ts); `$indexOfCP`/`$indexOfBytes` and ASCII-only case
 *   changes (string-expressions.ts); `$regexFind`, `$regexFindAll` and `$regexMatch`
 *   (regex-expressions.ts); dates on MongoDB's calendar (date-expressions.ts, date-arithmetic.ts,
 *   date-parsing.ts);
 *   `$type`/`$isNumber` (bson-types.ts); set expressions, `$indexOfArray` and `$sortArray`
 *   (value-sets.ts); `$maxN`/`$minN` and the `n` of `$firstN`/`$lastN` (top-values.ts); the
 *   operands of `$sum`, `$avg`, `$max`... as expressions (accumulator-expressions.ts);
 *   `$arrayToObject`, `$objectToArray`, `$getField`, `$setField` and `$unsetField`, which turn
 *   strings into field names and back (field-expressions.ts); and those that build arrays,
 *   strings and documents counted as they build (memory-expressions.ts).
 * - Stages: `$group`, `$lookup` (inside `$facet` only; elsewhere the engine runs it, lookup.ts),
 *   `$sortByCount`, the `$addToSet` accumulator and `$in` matching numbers by value (value-matching.ts),
 *   `$graphLookup` by the same equality (graph-lookup.ts), `$bucket` and `$bucketAuto` (bucket.ts), `$redact`
 *   (selection.ts), the N accumulators and `$top`/`$bottom` in BSON order (top-values.ts),
 *   `$project` in MongoDB's field order (shape.ts), `$setWindowFields` in BSON order
 *   (window-order.ts), `$facet` with what it holds counted (facet.ts), `$match` with its filter
 *   prepared as a find's (filter-checks.ts), and `$sort`.
 * - Projection: `$elemMatch` with operator conditions (elem-match-projection.ts).
 */
export const ENGINE_CONTEXT = Context.init(
  {
    accumulator: {
      ...accumulatorOperators,
      ...wideAccumulators,
      ...statisticsAccumulators,
      ...topValueAccumulators,
      ...valueMatchingAccumulators,
    },
    expression: { ...EXPRESSIONS, ...countedExpressions(EXPRESSIONS) },
    pipeline: {
      ...pipelineOperators,
      ...valueMatchingStages,
      ...bucketStages,
      ...selectionStages,
      ...shapeStages,
      ...graphLookupStages,
      ...windowStages,
      ...facetStages,
      $match,
      $sort,
    },
    projection: { ...projectionOperators, $elemMatch },
    query: {
      ...queryOperators,
      ...comparisonOperators,
      ...bitQueryOperators,
      $type: $typeQuery,
      $expr: $exprQuery,
      $captureOptions,
    },
    window: windowOperators,
  } as Parameters<typeof Context.init>[0],
);

/**
 * Reusable mingo options. mingo's `new Query(filter)` copies its whole operator registry on
 * every call (tens of microseconds: more than running the query on a small page). Handed the
 * options object mingo builds internally, a query reuses the registry instead. That object is
 * captured once per mode and collation, through a custom query operator (the public way to
 * receive it); should a future mingo not pass it, plain options are used and only speed is lost.
 */
function captureOptions(processingMode: ProcessingMode, collation: Collation | undefined): Partial<Options> {
  captured = undefined;
  const plain = {
    processingMode,
    context: ENGINE_CONTEXT,
    collation,
    jsonSchemaValidator: jsonSchemaPredicate,
  } as Partial<Options>;
  new BaseQuery({ probe: { $captureOptions: 1 } } as Document, plain);
  return captured ?? plain;
}

const optionsCache = new Map<string, Partial<Options>>();

/** Options for mingo in a processing mode under a collation (none: binary string order). */
export function mingoOptions(processingMode: ProcessingMode, collation?: Collation): Partial<Options> {
  const key = `${processingMode}:${collation?.key ?? "simple"}`;
  let options = optionsCache.get(key);
  if (options === undefined) {
    if (optionsCache.size > 100) optionsCache.clear();
    optionsCache.set(key, options = captureOptions(processingMode, collation));
  }
  return options;
}

/**
 * A query that hands mingo each document spelled as its filter is (aliases.ts): documents
 * marked as holding a name such as `constructor` are renamed first. Used for filters that name
 * such a field, or whose `$expr` may build values from the document.
 */
class SpelledQuery extends BaseQuery<Document> {
  override test(doc: Document): boolean {
    try {
      return super.test(aliasDocument(doc));
    } catch (error) {
      throw unaliasedError(error);
    }
  }
}

/** True when a filter holds an `$expr` at its top or in its `$and`/`$or`/`$nor` branches. */
function hasExpression(filter: Document): boolean {
  for (const key in filter) {
    if (key === "$expr") return true;
    const branches = filter[key];
    if ((key === "$and" || key === "$or" || key === "$nor") && Array.isArray(branches)) {
      if (branches.some((branch) => branch !== null && typeof branch === "object" && hasExpression(branch))) {
        return true;
      }
    }
  }
  return false;
}

/**
 * A filter compiled for mingo with `mode`'s options. One that names a field such as
 * `__proto__` or `constructor` is renamed for mingo, and so are the documents it tests.
 */
function compiledQuery(filter: Document, options: Partial<Options>): BaseQuery<Document> {
  const named = needsAliases(filter);
  try {
    const prepared = prepareFilter(named ? aliasFilter(filter) : filter);
    return named || hasExpression(filter)
      ? new SpelledQuery(prepared, options)
      : new BaseQuery<Document>(prepared, options);
  } catch (error) {
    throw unaliasedError(error);
  }
}

/** Compiles a filter with the shared options; documents are only read. */
export function mingoQuery(filter: Document, collation?: Collation): BaseQuery<Document> {
  return compiledQuery(filter, mingoOptions(ProcessingMode.CLONE_OFF, collation));
}

/**
 * A query whose `find(docs, projection)` projects clones of `docs` (the stored documents).
 * The caller spells the projection and the documents for mingo (project.ts).
 */
export function projectingQuery(condition: Document): BaseQuery<Document> {
  return compiledQuery(condition, mingoOptions(ProcessingMode.CLONE_INPUT));
}
