import { Long } from "bson";
import { evalExpr } from "mingo/core";
import * as mingoAccumulators from "mingo/operators/accumulator";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { bsonTag, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { StringCompare } from "../store/collation.ts";
import { compareValues } from "../store/values.ts";
import { bsonTypeOf, isInt32Number } from "./bson-types.ts";
import {
  argumentsOf,
  type Arity,
  exactly,
  type Expression,
  isNil,
  literal,
  overMingo,
} from "./expression-arguments.ts";
import { collationOf } from "./options-collation.ts";
import {
  combineNumbers,
  decimalOfNumber,
  divideNumbers,
  isWideNumber,
  LONG_OVERFLOW,
  moduloNumbers,
  numberKind,
  type Operation,
  type Rounding,
  roundNumber,
  truncatedInteger,
} from "./number-arithmetic.ts";

/**
 * Aggregation expressions and accumulators that meet a Long or a Decimal128. mingo treats
 * those as objects: `$sum` of Longs gave 0, `$add` refused them, `$gt` compared them as
 * objects. Where an operand is one, these compute with MongoDB's rules (number-arithmetic.ts)
 * and compare with the engine's BSON order; everything else still goes to mingo's operator.
 */

type Accumulator = (collection: unknown[], expr: unknown, options: Options) => unknown;

/** `$floor`, `$ceil`, `$trunc` and `$round` of a Long or Decimal128, which keep their type. */
function rounded(name: string, mode: Rounding): (args: unknown[]) => unknown {
  return (args) => {
    const [value, place = 0] = args;
    if (args.length > 2 || (mode !== "round" && mode !== "trunc" && args.length > 1)) {
      throw new CommandError(
        "Location16020",
        `Expression ${name} takes at most 2 arguments. ${args.length} were passed in.`,
      );
    }
    if (isNil(value) || isNil(place)) return null;
    const places = numberKind(place) === undefined ? Number.NaN : toNumber(place);
    // MongoDB's bounds, which also keep the exact arithmetic's powers of ten small.
    if (!Number.isInteger(places) || places < -20 || places > 100) {
      throw new CommandError("BadValue", `${name} requires "place" to be an integer between -20 and 100`);
    }
    return roundNumber(value, places, mode);
  };
}

function absolute(args: unknown[]): unknown {
  const [value] = exactly("$abs", args, 1);
  if (isNil(value)) return null;
  if (numberKind(value) === "long" && (value as Long).equals(Long.MIN_VALUE)) {
    throw new CommandError("Location28680", "can't take $abs of long long min");
  }
  return toNumber(value) < 0 ? combine("multiply", value, -1) : value;
}

function modulo(args: unknown[]): unknown {
  const [a, b] = exactly("$mod", args, 2);
  if (isNil(a) || isNil(b)) return null;
  if (numberKind(a) === undefined || numberKind(b) === undefined) {
    throw new CommandError(
      "Location16611",
      `$mod only supports numeric types, not ${bsonTypeOf(a)} and ${bsonTypeOf(b)}`,
    );
  }
  const result = moduloNumbers(a, b);
  if (result === undefined) throw new CommandError("Location16610", "can't $mod by zero");
  return result;
}

/** MongoDB's error for an operand of the wrong type, with its code. */
function refuse(
  code: "Location16554" | "Location16555" | "Location16609",
  name: string,
  what: string,
  values: unknown[],
): never {
  const types = values.map(bsonTypeOf).join(" and ");
  throw new CommandError(code, `${name} only supports ${what}, not ${types}`);
}

const allInt32 = (args: unknown[]) => args.length > 0 && args.every((v) => typeof v === "number" && isInt32Number(v));

/**
 * An expression that computes itself when a wide number is among its evaluated arguments, or
 * (`integers`) when all of them are int32 values, whose result MongoDB widens to a Long past
 * the int32 range where mingo's would become a double.
 */
function widened(name: string, arity: Arity, wide: (args: unknown[]) => unknown, integers = false): Expression {
  return overMingo(name, arity, (args) => args.some(isWideNumber) || (integers && allInt32(args)), wide);
}

/** `a op b`, a Long overflow giving a double (as `$add` and the others do in MongoDB). */
function combine(op: Operation, a: unknown, b: unknown): unknown {
  const result = combineNumbers(op, a, b);
  if (result !== LONG_OVERFLOW) return result;
  const x = toNumber(a);
  const y = toNumber(b);
  return op === "add" ? x + y : op === "subtract" ? x - y : x * y;
}

function add(args: unknown[]): unknown {
  if (args.some(isNil)) return null;
  const dates = args.filter((v) => v instanceof Date);
  const numbers = args.filter((v) => !(v instanceof Date));
  if (dates.length > 1) throw new CommandError("Location16612", "only one date allowed in an $add expression");
  const bad = numbers.filter((v) => numberKind(v) === undefined);
  if (bad.length > 0) refuse("Location16554", "$add", "numeric or date types", bad.slice(0, 1));
  const sum = numbers.reduce((total, v) => combine("add", total, v), 0);
  return dates.length === 1 ? new Date((dates[0] as Date).getTime() + Math.round(toNumber(sum))) : sum;
}

function subtract(args: unknown[]): unknown {
  const [a, b] = exactly("$subtract", args, 2);
  if (isNil(a) || isNil(b)) return null;
  if (a instanceof Date && numberKind(b) !== undefined) return new Date(a.getTime() - Math.round(toNumber(b)));
  if (numberKind(a) === undefined || numberKind(b) === undefined) {
    throw new CommandError("Location16556", `cant $subtract a ${bsonTypeOf(b)} from a ${bsonTypeOf(a)}`);
  }
  return combine("subtract", a, b);
}

function multiply(args: unknown[]): unknown {
  if (args.some(isNil)) return null;
  const bad = args.filter((v) => numberKind(v) === undefined);
  if (bad.length > 0) refuse("Location16555", "$multiply", "numeric types", bad.slice(0, 1));
  return args.reduce((product, v) => combine("multiply", product, v), 1);
}

function divide(args: unknown[]): unknown {
  const [a, b] = exactly("$divide", args, 2);
  if (isNil(a) || isNil(b)) return null;
  if (numberKind(a) === undefined || numberKind(b) === undefined) {
    refuse("Location16609", "$divide", "numeric types", [a, b]);
  }
  if (toNumber(b) === 0) throw new CommandError("Location16608", "can't $divide by zero");
  return divideNumbers(a, b);
}

/**
 * A comparison expression in MongoDB's order for expressions: the engine's BSON order (numbers
 * of every width by value, NaN below every number, arrays element by element, documents field
 * by field in their order, strings by the collation), with a missing value below everything but
 * MinKey, and so unequal to null. mingo's order sorted arrays and documents' keys before
 * comparing them, put NaN level with every number and ignored the collation.
 */
function comparison(name: string, accept: (c: number) => unknown): Expression {
  return (obj, expr, options) => {
    const [a, b] = exactly(name, argumentsOf(obj, expr, options), 2);
    return accept(compareExpressionValues(a, b, collationOf(options)?.compare));
  };
}

function compareExpressionValues(a: unknown, b: unknown, strings: StringCompare | undefined): number {
  if (a === undefined || b === undefined) {
    if (a === b) return 0;
    const missingFirst = bsonTag(a ?? b) === "MinKey" ? 1 : -1;
    return a === undefined ? missingFirst : -missingFirst;
  }
  return Math.sign(compareValues(a, b, strings));
}

/**
 * `$toLong`, `$toDecimal`, `$toInt` and `$toDouble` of a Long or a Decimal128 (mingo could not
 * read them), and `$toLong`/`$toDecimal` giving those types (mingo gave JS numbers, which are
 * int32 or double). Other inputs (strings, dates, booleans) are converted by mingo first.
 */
function conversion(name: "$toLong" | "$toDecimal" | "$toInt" | "$toDouble"): Expression {
  const original = (mingoExpressions as unknown as Record<string, Expression>)[name];
  return (obj, expr, options) => {
    const value = evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options);
    const number = isWideNumber(value) ? value : original(obj, literal(value), options);
    if (isNil(number)) return null;
    if (name === "$toDecimal") return decimalOfNumber(number);
    if (name === "$toDouble") return toNumber(number);
    const integer = truncatedInteger(number);
    const [min, max] = name === "$toInt" ? [-(2n ** 31n), 2n ** 31n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
    if (integer === undefined || integer < min || integer > max) {
      throw new CommandError("ConversionFailure", `Conversion would overflow target type in ${name}: ${String(value)}`);
    }
    return name === "$toInt" ? Number(integer) : Long.fromBigInt(integer);
  };
}

/** An accumulator computed from its values (mingo's `$push` evaluates them). */
function accumulator(compute: (values: unknown[], options: Options) => unknown): Accumulator {
  const push = (mingoAccumulators as unknown as Record<string, Accumulator>).$push;
  return (collection, expr, options) => compute(push(collection, expr, options) as unknown[], options);
}

/**
 * `$sum`: non-numbers ignored; int32 values give an int32 or, past its range, a Long; a
 * Long, double or Decimal128 among them widens the total, as in MongoDB.
 */
function sum(values: unknown[]): unknown {
  let total = 0;
  let integers = true;
  for (const v of values) {
    if (typeof v === "number") {
      total += v;
      integers &&= isInt32Number(v);
    } else if (isWideNumber(v)) {
      return values.filter((x) => numberKind(x) !== undefined).reduce((t, x) => combine("add", t, x), 0);
    }
  }
  // Exact below 2^53, which int32 values only pass after millions of them at the limit.
  return integers && !isInt32Number(total) ? Long.fromNumber(total) : total;
}

const sumOf = accumulator(sum);

/** `{$sum: k}` (k = 1 counts): `count × k` without a value per document; int32 × int32 widens to a Long. */
function sumOfConstant(count: number, k: number): number | Long {
  const total = count * k;
  if (total === 0) return 0; // not -0, when k is negative and there are no documents
  return isInt32Number(k) && !isInt32Number(total) ? Long.fromNumber(total) : total;
}

/** `$avg`: a double, or a Decimal128 when one is averaged; null when there is no number. */
function average(values: unknown[]): unknown {
  const numbers = values.filter((v) => numberKind(v) !== undefined);
  if (numbers.length === 0) return null;
  if (!numbers.some(isWideNumber)) return (numbers as number[]).reduce((t, v) => t + v, 0) / numbers.length;
  const total = numbers.reduce((t, v) => combine("add", t, v), 0);
  return numberKind(total) === "decimal" ? divideNumbers(total, numbers.length) : toNumber(total) / numbers.length;
}

/** `$max`/`$min`: by the engine's BSON order (numbers of every width by value); null and missing ignored. */
function extreme(sign: 1 | -1): (values: unknown[], options: Options) => unknown {
  return (values, options) => {
    const strings = collationOf(options)?.compare;
    let best: unknown = null;
    for (const v of values) {
      if (isNil(v)) continue;
      if (best === null || sign * compareValues(v, best, strings) > 0) best = v;
    }
    return best;
  };
}

/** The expressions, to register in mingo's context over its own. */
export const wideExpressions: Record<string, Expression> = {
  $add: widened("$add", "list", add, true),
  $subtract: widened("$subtract", "list", subtract, true),
  $multiply: widened("$multiply", "list", multiply, true),
  $divide: widened("$divide", "list", divide),
  // Always the engine's: mingo answered NaN for a zero divisor, where MongoDB refuses (16610).
  $mod: (obj, expr, options) => modulo(argumentsOf(obj, expr, options)),
  $abs: widened("$abs", "one", absolute),
  $floor: widened("$floor", "one", rounded("$floor", "floor")),
  $ceil: widened("$ceil", "one", rounded("$ceil", "ceil")),
  $trunc: widened("$trunc", "list", rounded("$trunc", "trunc")),
  $round: widened("$round", "list", rounded("$round", "round")),
  $cmp: comparison("$cmp", (c) => c),
  $eq: comparison("$eq", (c) => c === 0),
  $ne: comparison("$ne", (c) => c !== 0),
  $gt: comparison("$gt", (c) => c > 0),
  $gte: comparison("$gte", (c) => c >= 0),
  $lt: comparison("$lt", (c) => c < 0),
  $lte: comparison("$lte", (c) => c <= 0),
  $toLong: conversion("$toLong"),
  $toDecimal: conversion("$toDecimal"),
  $toInt: conversion("$toInt"),
  $toDouble: conversion("$toDouble"),
};

/** The accumulators, to register in mingo's context over its own. */
export const wideAccumulators: Record<string, Accumulator> = {
  $sum: (collection, expr, options) =>
    typeof expr === "number" ? sumOfConstant(collection.length, expr) : sumOf(collection, expr, options),
  $avg: accumulator(average),
  $max: accumulator(extreme(1)),
  $min: accumulator(extreme(-1)),
};
