import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { StringCompare } from "../store/collation.ts";
import { compareValues, keyOf, type ValueKey } from "../store/values.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { exactly, type Expression, isNil, overMingo, singleArgument } from "./expression-arguments.ts";
import { holdsWideNumber } from "./number-arithmetic.ts";
import { collationOf } from "./options-collation.ts";
import { sortDocuments } from "./sort.ts";

/**
 * Set and array expressions that compare elements, for arrays that hold a Long or a
 * Decimal128: `$setUnion`, `$setIntersection`, `$setDifference`, `$setEquals`,
 * `$setIsSubset`, `$indexOfArray` and `$sortArray`. mingo compares those as objects, so
 * `[Long(1), 2]` and `[1, 2]` were different sets and `$sortArray` put a Long anywhere. Here
 * elements are equal as the engine's BSON order says (numbers of every width by value, strings
 * by the collation); arrays of other values still go to mingo's operators.
 */

const mingo = mingoExpressions as unknown as Record<string, Expression>;

/** Distinct values, equal by BSON order: hashed by `keyOf`, or compared under a collation. */
class ValueSet {
  readonly values: unknown[] = [];
  readonly #keys = new Set<ValueKey>();

  constructor(readonly strings: StringCompare | undefined, from: unknown[] = []) {
    for (const v of from) this.add(v);
  }

  has(v: unknown): boolean {
    const strings = this.strings;
    if (strings === undefined) return this.#keys.has(keyOf(v));
    return this.values.some((x) => compareValues(x, v, strings) === 0);
  }

  add(v: unknown): void {
    if (this.has(v)) return;
    this.values.push(v);
    if (this.strings === undefined) this.#keys.add(keyOf(v));
  }
}

type SetOperandCode = "Location17043" | "Location17044" | "Location17046" | "Location17047" | "Location17048";

/** MongoDB's refusal of an operand that is not an array. */
function requireArrays(name: string, code: SetOperandCode, args: unknown[]): unknown[][] {
  for (const arg of args) {
    if (!Array.isArray(arg)) {
      throw new CommandError(
        code,
        `All operands of ${name} must be arrays. One argument is of type: ${bsonTypeOf(arg)}`,
      );
    }
  }
  return args as unknown[][];
}

/** A set expression computed here when an operand holds a wide number, by mingo otherwise. */
function setExpression(
  name: string,
  compute: (args: unknown[], strings: StringCompare | undefined) => unknown,
): Expression {
  return overMingo(
    name,
    "list",
    (args) => args.some(holdsWideNumber),
    (args, options) => compute(args, collationOf(options)?.compare),
  );
}

function union(args: unknown[], strings: StringCompare | undefined): unknown {
  if (args.some(isNil)) return null;
  const set = new ValueSet(strings);
  for (const array of requireArrays("$setUnion", "Location17043", args)) array.forEach((v) => set.add(v));
  return set.values;
}

function intersection(args: unknown[], strings: StringCompare | undefined): unknown {
  if (args.some(isNil)) return null;
  const [first = [], ...rest] = requireArrays("$setIntersection", "Location17047", args);
  const others = rest.map((array) => new ValueSet(strings, array));
  return new ValueSet(strings, first.filter((v) => others.every((set) => set.has(v)))).values;
}

function difference(args: unknown[], strings: StringCompare | undefined): unknown {
  exactly("$setDifference", args, 2);
  if (args.some(isNil)) return null;
  const [first, second] = requireArrays("$setDifference", "Location17048", args);
  const excluded = new ValueSet(strings, second);
  return new ValueSet(strings, first.filter((v) => !excluded.has(v))).values;
}

function equals(args: unknown[], strings: StringCompare | undefined): unknown {
  if (args.length < 2) {
    throw new CommandError("Location17045", `$setEquals needs at least two arguments had: ${args.length}`);
  }
  const sets = requireArrays("$setEquals", "Location17044", args).map((array) => new ValueSet(strings, array));
  const [first] = sets;
  return sets.every((set) => set.values.length === first.values.length && set.values.every((v) => first.has(v)));
}

function isSubset(args: unknown[], strings: StringCompare | undefined): unknown {
  exactly("$setIsSubset", args, 2);
  const [first, second] = requireArrays("$setIsSubset", "Location17046", args);
  const superset = new ValueSet(strings, second);
  return first.every((v) => superset.has(v));
}

/** `$indexOfArray: [array, value, start?, end?]` by BSON equality (a Long found among int32 values). */
function indexOfArray(args: unknown[], strings: StringCompare | undefined): unknown {
  const [array, value, start = 0, end] = args;
  if (isNil(array)) return null;
  if (!Array.isArray(array)) {
    throw new CommandError(
      "Location40090",
      `$indexOfArray requires an array as a first argument, found: ${bsonTypeOf(array)}`,
    );
  }
  const from = toNumber(start);
  const to = end === undefined ? array.length : Math.min(toNumber(end), array.length);
  for (let i = from; i < to; i++) {
    if (compareValues(array[i], value, strings) === 0) return i;
  }
  return -1;
}

/** `$sortArray` in the engine's BSON order when the array holds a wide number. */
const $sortArray: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr)) return mingo.$sortArray(obj, expr, options);
  const input = evalExpr(obj, expr.input, options);
  const sortBy = expr.sortBy;
  if (!Array.isArray(input) || !holdsWideNumber(input)) return mingo.$sortArray(obj, expr, options);
  const collation = collationOf(options);
  if (isPlainObject(sortBy) && input.every(isPlainObject)) return sortDocuments(input, sortBy, 0, 0, collation);
  if (sortBy !== 1 && sortBy !== -1) return mingo.$sortArray(obj, expr, options);
  const strings = collation?.compare;
  return [...input].sort((a, b) => sortBy * compareValues(a, b, strings));
};

/** The expressions, to register in mingo's context over its own. */
/**
 * `$size`: an array's length. Anything else, null and missing included, is an error (17124),
 * where mingo answered null (MongoDB's ExpressionSize::evaluate).
 */
function $size(obj: unknown, expr: unknown, options: Options): unknown {
  if (Array.isArray(expr)) exactly("$size", expr, 1);
  const value = singleArgument(obj, expr, options);
  if (!Array.isArray(value)) {
    throw new CommandError(
      "Location17124",
      `The argument to $size must be an array, but was of type: ${bsonTypeOf(value)}`,
    );
  }
  return value.length;
}

export const valueSetExpressions: Record<string, Expression> = {
  $size,
  $setUnion: setExpression("$setUnion", union),
  $setIntersection: setExpression("$setIntersection", intersection),
  $setDifference: setExpression("$setDifference", difference),
  $setEquals: setExpression("$setEquals", equals),
  $setIsSubset: setExpression("$setIsSubset", isSubset),
  $indexOfArray: setExpression("$indexOfArray", indexOfArray),
  $sortArray,
};
