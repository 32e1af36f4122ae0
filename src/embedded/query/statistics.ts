import { evalExpr } from "mingo/core";
import * as mingoAccumulators from "mingo/operators/accumulator";
import type { Options } from "mingo/types";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { numberKind } from "./number-arithmetic.ts";

/**
 * `$percentile`, `$median`, `$stdDevPop` and `$stdDevSamp`, as accumulators and expressions.
 * mingo sorted the values with JavaScript's default sort, which orders numbers as text, so the
 * median of 3, 9, 10, 25 and 100 came out as 25; and it left out Longs and Decimal128s, whose
 * standard deviation was null. Here every numeric value counts (as a double, as in MongoDB)
 * and percentiles take MongoDB's ranks: "approximate" and "discrete" the value at rank
 * ⌈p·n⌉ − 1 (the approximation's exact answer), "continuous" the interpolation at p·(n − 1).
 */

type Accumulator = (collection: unknown[], expr: unknown, options: Options) => unknown;
type Expression = (obj: unknown, expr: unknown, options: Options) => unknown;

const push = (mingoAccumulators as unknown as Record<string, Accumulator>).$push;

/** The numeric values among `values`, as doubles. */
function numbersOf(values: unknown[]): number[] {
  const numbers: number[] = [];
  for (const v of values) if (numberKind(v) !== undefined) numbers.push(toNumber(v));
  return numbers;
}

/** Population (`sampled` false) or sample standard deviation; null without enough values. */
function standardDeviation(values: unknown[], sampled: boolean): number | null {
  const numbers = numbersOf(values);
  if (numbers.length < (sampled ? 2 : 1)) return null;
  // Welford's running mean and sum of squares, stable where the naive formula cancels.
  let mean = 0;
  let squares = 0;
  numbers.forEach((x, i) => {
    const delta = x - mean;
    mean += delta / (i + 1);
    squares += delta * (x - mean);
  });
  return Math.sqrt(squares / (numbers.length - (sampled ? 1 : 0)));
}

const METHODS = ["approximate", "discrete", "continuous"] as const;
type Method = (typeof METHODS)[number];

interface PercentileSpec {
  input: unknown;
  p: unknown;
  method: Method;
}

/** The `{input, p, method}` of a `$percentile` (`p` given as [0.5] for `$median`), checked. */
function percentileSpec(name: string, expr: unknown, median: boolean): PercentileSpec {
  if (!isPlainObject(expr) || !("input" in expr) || (!median && !("p" in expr)) || !("method" in expr)) {
    const fields = median ? "'input' and 'method'" : "'input', 'p' and 'method'";
    throw new CommandError("BadValue", `${name} requires ${fields}`);
  }
  if (!(METHODS as readonly unknown[]).includes(expr.method)) {
    throw new CommandError(
      "BadValue",
      `${name}'s 'method' must be one of ${METHODS.map((m) => `'${m}'`).join(", ")}, not ${
        JSON.stringify(expr.method)
      }`,
    );
  }
  return { input: expr.input, p: median ? [0.5] : expr.p, method: expr.method as Method };
}

/** The percentiles `ps` of `values` (their numbers, sorted), or nulls when there is none. */
function percentiles(name: string, values: unknown[], ps: unknown, method: Method): (number | null)[] {
  if (!Array.isArray(ps) || ps.length === 0 || !ps.every((p) => numberKind(p) !== undefined)) {
    throw new CommandError("BadValue", `${name}'s 'p' must be a non-empty array of numbers from 0.0 to 1.0`);
  }
  const fractions = ps.map(toNumber);
  if (fractions.some((p) => !(p >= 0 && p <= 1))) {
    throw new CommandError("BadValue", `${name}'s 'p' must be a non-empty array of numbers from 0.0 to 1.0`);
  }
  const sorted = numbersOf(values).sort((a, b) => a - b);
  if (sorted.length === 0) return fractions.map(() => null);
  return fractions.map((p) =>
    method === "continuous" ? interpolated(sorted, p) : sorted[discreteRank(sorted.length, p)]
  );
}

function discreteRank(n: number, p: number): number {
  return p >= 1 ? n - 1 : Math.max(0, Math.ceil(n * p) - 1);
}

function interpolated(sorted: number[], p: number): number {
  const rank = p * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.ceil(rank);
  return below === above ? sorted[below] : (above - rank) * sorted[below] + (rank - below) * sorted[above];
}

function percentileAccumulator(name: string, median: boolean): Accumulator {
  return (collection, expr, options) => {
    const spec = percentileSpec(name, expr, median);
    const ps = evalExpr(null, spec.p, options);
    const result = percentiles(name, push(collection, spec.input, options) as unknown[], ps, spec.method);
    return median ? result[0] : result;
  };
}

/** The expression form: `input` is one document's array (a single value counts as a list of one). */
function percentileExpression(name: string, median: boolean): Expression {
  return (obj, expr, options) => {
    const spec = percentileSpec(name, expr, median);
    const input = evalExpr(obj, spec.input, options);
    const values = Array.isArray(input) ? input : [input];
    const result = percentiles(name, values, evalExpr(obj, spec.p, options), spec.method);
    return median ? result[0] : result;
  };
}

/** The accumulators, to register in mingo's context over its own (their expression forms use them). */
export const statisticsAccumulators: Record<string, Accumulator> = {
  $stdDevPop: (collection, expr, options) => standardDeviation(push(collection, expr, options) as unknown[], false),
  $stdDevSamp: (collection, expr, options) => standardDeviation(push(collection, expr, options) as unknown[], true),
  $percentile: percentileAccumulator("$percentile", false),
  $median: percentileAccumulator("$median", true),
};

/** The expressions, to register in mingo's context over its own. */
export const statisticsExpressions: Record<string, Expression> = {
  $percentile: percentileExpression("$percentile", false),
  $median: percentileExpression("$median", true),
};
