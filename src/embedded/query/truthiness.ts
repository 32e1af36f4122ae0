import type { Decimal128, Long } from "bson";
import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options, QueryOperator } from "mingo/types";
import { bsonTag, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { exactOf } from "../store/exact-numbers.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { exactly, type Expression } from "./expression-arguments.ts";

/**
 * Truth as MongoDB's expressions read it: false, null, missing and zero of every numeric type
 * are false, everything else (NaN, "", [] and {} included) is true. mingo read a Long or a
 * Decimal128 zero as true, an object, so `{$expr: "$count"}` matched a `Long(0)` and
 * `$cond`, `$filter`, `$and`, `$or`, `$not`, `$switch`, `$toBool` and the `$…ElementsTrue`
 * expressions took the wrong branch. These take MongoDB's reading; `$switch` with no
 * matching branch and no default is refused (40066), as in MongoDB.
 */

const mingo = mingoExpressions as unknown as Record<string, Expression>;

/** Whether MongoDB's expressions read a value as true. */
export function isTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === "number") return v !== 0;
  const tag = bsonTag(v);
  if (tag === "Long") return !(v as Long).isZero();
  if (tag === "Decimal128") {
    const exact = exactOf(v as Decimal128);
    return typeof exact !== "object" || !("coefficient" in exact) || exact.coefficient !== 0n;
  }
  return true;
}

/** The truth of an expression, as a JS boolean (what mingo's operators read correctly). */
function truthOf(obj: unknown, expr: unknown, options: Options): boolean {
  return isTruthy(evalExpr(obj, expr, options));
}

/** The expressions of `$and`/`$or` (a list, or one bare expression). */
const listOf = (expr: unknown) => Array.isArray(expr) ? expr : [expr];

/** `$and`: true unless one is false, evaluated in order and no further than the first false one. */
const $and: Expression = (obj, expr, options) => listOf(expr).every((e) => truthOf(obj, e, options));

/** `$or`: true when one is true, evaluated in order and no further than the first true one. */
const $or: Expression = (obj, expr, options) => listOf(expr).some((e) => truthOf(obj, e, options));

const $not: Expression = (obj, expr, options) => !truthOf(obj, exactly("$not", listOf(expr), 1)[0], options);

const COND_PARTS = ["if", "then", "else"] as const;
const MISSING_COND_PART = ["Location17080", "Location17081", "Location17082"] as const;

/** `$cond` as `[if, then, else]` or `{if, then, else}`, with MongoDB's errors for a bad shape. */
const $cond: Expression = (obj, expr, options) => {
  let parts: unknown[];
  if (Array.isArray(expr)) parts = exactly("$cond", expr, 3);
  else if (isPlainObject(expr)) {
    const unknown = Object.keys(expr).find((k) => !(COND_PARTS as readonly string[]).includes(k));
    if (unknown !== undefined) throw new CommandError("Location17083", `Unrecognized parameter to $cond: ${unknown}`);
    COND_PARTS.forEach((part, i) => {
      if (!(part in expr)) throw new CommandError(MISSING_COND_PART[i], `Missing '${part}' parameter to $cond`);
    });
    parts = COND_PARTS.map((part) => expr[part]);
  } else throw new CommandError("Location16020", "Expression $cond takes exactly 3 arguments. 1 were passed in.");
  return evalExpr(obj, truthOf(obj, parts[0], options) ? parts[1] : parts[2], options);
};

/** `$switch`: the first true case's `then`, else the default, else MongoDB's error 40066. */
const $switch: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr) || !Array.isArray(expr.branches)) return mingo.$switch(obj, expr, options);
  for (const branch of expr.branches) {
    if (!isPlainObject(branch) || !("case" in branch) || !("then" in branch)) {
      throw new CommandError("Location40068", "$switch requires each branch have a 'case' and a 'then' expression");
    }
    if (truthOf(obj, branch.case, options)) return evalExpr(obj, branch.then, options);
  }
  if (!("default" in expr)) {
    throw new CommandError(
      "Location40066",
      "$switch could not find a matching branch for an input, and no default was specified.",
    );
  }
  return evalExpr(obj, expr.default, options);
};

/** `$filter`, its `cond` read by MongoDB's truth (mingo binds `as` and applies `limit`). */
const $filter: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr) || !("cond" in expr)) return mingo.$filter(obj, expr, options);
  return mingo.$filter(obj, { ...expr, cond: { $cond: [expr.cond, true, false] } }, options);
};

/** `$allElementsTrue` / `$anyElementTrue` of one array. */
function elementsTrue(name: string, every: boolean): Expression {
  return (obj, expr, options) => {
    const [array] = exactly(name, listOf(expr), 1).map((e) => evalExpr(obj, e, options));
    if (!Array.isArray(array)) {
      throw new CommandError(
        every ? "Location17040" : "Location17041",
        `${name}'s argument must be an array, but is ${bsonTypeOf(array)}`,
      );
    }
    return every ? array.every(isTruthy) : array.some(isTruthy);
  };
}

/** `$toBool` of a number of any width: false for zero only (NaN is true); other values are mingo's. */
const $toBool: Expression = (obj, expr, options) => {
  const value = evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options);
  const tag = bsonTag(value);
  const numeric = typeof value === "number" || tag === "Long" || tag === "Decimal128";
  return numeric ? isTruthy(value) : mingo.$toBool(obj, { $literal: value }, options);
};

/** The expressions, to register in mingo's context over its own. */
export const truthExpressions: Record<string, Expression> = {
  $and,
  $or,
  $not,
  $cond,
  $switch,
  $filter,
  $allElementsTrue: elementsTrue("$allElementsTrue", true),
  $anyElementTrue: elementsTrue("$anyElementTrue", false),
  $toBool,
};

/** The `$expr` query operator: a document matches when its expression is true by MongoDB's reading. */
export const $exprQuery =
  ((_selector: string, expr: unknown, options: Options) => (obj: unknown) =>
    truthOf(obj, expr, options)) as unknown as QueryOperator;
