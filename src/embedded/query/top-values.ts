import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import * as mingoAccumulators from "mingo/operators/accumulator";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compareValues } from "../store/values.ts";
import { type Expression, isNil } from "./expression-arguments.ts";
import { wholeNumber } from "./number-arithmetic.ts";
import { collationOf } from "./options-collation.ts";
import { lastDocuments, sortDocuments } from "./sort.ts";
import { exceeded, memoryLimits, MemoryTracker } from "./memory.ts";

/**
 * The accumulators and expressions that keep the first, last, greatest or least `n` values,
 * in MongoDB's order. mingo's compared with its own order: `$maxN` and `$minN` put arrays among
 * the smallest values and a `Long` above dates, and `$topN`/`$bottomN` (so `$top`/`$bottom`)
 * sorted a `Long` as an object. Here values compare in the engine's BSON order under the
 * collation, and `sortBy` sorts as the `$sort` stage does. An `n` given as a `Long` (or any
 * whole number) is taken, where mingo refused it, `$firstN`'s and `$lastN`'s included.
 */

type Accumulator = (collection: unknown[], expr: unknown, options: Options) => unknown;

const accumulators = mingoAccumulators as unknown as Record<string, Accumulator>;
const expressions = mingoExpressions as unknown as Record<string, Expression>;
const push = accumulators.$push;

/** The group's key, against which an accumulator's `n` is evaluated. */
const groupIdOf = (options: Options): unknown => (options as { local?: { groupId?: unknown } }).local?.groupId;

/** A checked `n`: a whole number of any width, at least 1. */
function countFrom(name: string, n: unknown): number {
  const whole = wholeNumber(n);
  if (whole === undefined) throw badValue(`${name}: value for 'n' must be of integral type, but found ${String(n)}`);
  if (whole < 1n) throw badValue(`${name}: 'n' must be greater than 0, found ${whole}`);
  return whole > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(whole);
}

/** The `{n, ...}` argument of an N accumulator or expression, with its required fields present. */
function argumentOf(name: string, expr: unknown, fields: readonly string[]): Document {
  if (!isPlainObject(expr)) throw badValue(`specification of ${name} must be an object`);
  for (const field of fields) if (!(field in expr)) throw badValue(`${name}: missing value for '${field}'`);
  return expr;
}

/** Values in BSON order (`sign` -1: greatest first), nulls and missing values left out. */
function ordered(values: unknown[], sign: 1 | -1, options: Options): unknown[] {
  const strings = collationOf(options)?.compare;
  return values.filter((v) => !isNil(v)).sort((a, b) => sign * compareValues(a, b, strings));
}

/** `$maxN` (sign -1) or `$minN` (1) as an accumulator. */
function extremes(name: string, sign: 1 | -1): Accumulator {
  return (collection, expr, options) => {
    const spec = argumentOf(name, expr, ["n", "input"]);
    const n = countFrom(name, evalExpr(groupIdOf(options), spec.n, options));
    return ordered(push(collection, spec.input, options) as unknown[], sign, options).slice(0, n);
  };
}

/** `$maxN`/`$minN` as expressions over an array (null when it is null or missing). */
function arrayExtremes(name: string, sign: 1 | -1): Expression {
  const accumulate = withinLimit(name, extremes(name, sign));
  return (obj, expr, options) => {
    if (Array.isArray(obj)) return accumulate(obj, expr, options); // mingo's call as an accumulator
    const spec = argumentOf(name, expr, ["n", "input"]);
    const n = countFrom(name, evalExpr(obj, spec.n, options));
    const input = evalExpr(obj, spec.input, options);
    if (isNil(input)) return null;
    if (!Array.isArray(input)) throw badValue(`${name}: input must be an array`);
    return ordered(input, sign, options).slice(0, n);
  };
}

/** `$topN` or `$bottomN`: the output of the first or last `n` documents in `sortBy` order, nulls kept. */
function sortedEnds(name: string, end: "top" | "bottom"): Accumulator {
  return (collection, expr, options) => {
    const spec = argumentOf(name, expr, ["n", "sortBy", "output"]);
    const n = countFrom(name, evalExpr(groupIdOf(options), spec.n, options));
    if (!isPlainObject(spec.sortBy)) throw badValue(`${name}: 'sortBy' must be an object`);
    const docs = collection as Document[];
    const collation = collationOf(options);
    const kept = end === "top"
      ? sortDocuments(docs, spec.sortBy, 0, n, collation)
      : lastDocuments(docs, spec.sortBy, n, collation);
    return push(kept, spec.output, options);
  };
}

/** `$top`/`$bottom`: the one value `$topN`/`$bottomN` of one would list. */
function sortedEnd(name: string, end: "top" | "bottom"): Accumulator {
  const many = sortedEnds(name, end);
  return (collection, expr, options) => {
    const spec = argumentOf(name, expr, ["sortBy", "output"]);
    if ("n" in spec) throw badValue(`${name}: 'n' is not allowed`);
    return (many(collection, { ...spec, n: 1 }, options) as unknown[])[0] ?? null;
  };
}

/** mingo's `$firstN`/`$lastN` accumulator, given `n` as a JavaScript number. */
function countedAccumulator(name: "$firstN" | "$lastN"): Accumulator {
  const original = accumulators[name];
  return (collection, expr, options) => {
    const spec = argumentOf(name, expr, ["n", "input"]);
    const n = countFrom(name, evalExpr(groupIdOf(options), spec.n, options));
    return original(collection, { ...spec, n }, options);
  };
}

/** mingo's `$firstN`/`$lastN` expression, given `n` as a JavaScript number. */
function countedExpression(name: "$firstN" | "$lastN"): Expression {
  const original = expressions[name];
  const accumulate = withinLimit(name, countedAccumulator(name));
  return (obj, expr, options) => {
    if (Array.isArray(obj)) return accumulate(obj, expr, options); // mingo's call as an accumulator
    const spec = argumentOf(name, expr, ["n", "input"]);
    return original(obj, { ...spec, n: countFrom(name, evalExpr(obj, spec.n, options)) }, options);
  };
}

function badValue(message: string): CommandError {
  return new CommandError("BadValue", message);
}

/**
 * An N accumulator whose kept values are counted against internalQueryTopNAccumulatorBytes, as
 * MongoDB counts them (accumulator_multi.cpp AccumulatorN::updateAndCheckMemUsage): past it, 146.
 */
function withinLimit(name: string, accumulate: Accumulator): Accumulator {
  return (collection, expr, options) => {
    const kept = accumulate(collection, expr, options);
    const limit = memoryLimits.topN;
    const tracker = new MemoryTracker(() => limit, () =>
      exceeded(
        `${name} used too much memory and spilling to disk cannot reduce memory consumption any further. ` +
          `Memory limit: ${limit} bytes`,
      ));
    for (const value of Array.isArray(kept) && name !== "$top" && name !== "$bottom" ? kept : [kept]) {
      tracker.addValue(value);
    }
    return kept;
  };
}

/** The accumulators, to register in mingo's context over its own. */
export const topValueAccumulators: Record<string, Accumulator> = {
  $maxN: withinLimit("$maxN", extremes("$maxN", -1)),
  $minN: withinLimit("$minN", extremes("$minN", 1)),
  $topN: withinLimit("$topN", sortedEnds("$topN", "top")),
  $bottomN: withinLimit("$bottomN", sortedEnds("$bottomN", "bottom")),
  $top: withinLimit("$top", sortedEnd("$top", "top")),
  $bottom: withinLimit("$bottom", sortedEnd("$bottom", "bottom")),
  $firstN: withinLimit("$firstN", countedAccumulator("$firstN")),
  $lastN: withinLimit("$lastN", countedAccumulator("$lastN")),
};

/** The expressions, to register in mingo's context over its own. */
export const topValueExpressions: Record<string, Expression> = {
  $maxN: arrayExtremes("$maxN", -1),
  $minN: arrayExtremes("$minN", 1),
  $firstN: countedExpression("$firstN"),
  $lastN: countedExpression("$lastN"),
};
