import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Expression } from "./expression-arguments.ts";
import {
  builtSize,
  chargeExpression,
  exceeded,
  memoryLimits,
  refuseLongString,
  withExpressionScope,
} from "./memory.ts";

/**
 * The expressions that build arrays, strings and documents, each counted as it builds
 * (memory.ts): `$range` is refused past MongoDB's own limit (internalQueryMaxRangeBytes, 146)
 * before its array is made; `$concatArrays`, `$zip`, `$concat`, `$replaceAll`, `$replaceOne`
 * and `$split`, whose results can be far larger than their inputs, are measured before they
 * build; the rest after. A string past 16 MiB is refused (16493), and what one document's
 * expressions build in all past 100 MiB (146). `$reduce` counts only the value it holds at each
 * step. Each wraps the engine's implementation of the same name, which builds the value.
 */

/** Operands already evaluated, handed to the wrapped implementation as literals. */
const literals = (values: unknown[]): unknown[] => values.map(($literal) => ({ $literal }));

const VALUE = 16;

/**
 * `$range`, refused as MongoDB refuses it (expression.cpp ExpressionRange): the length it would
 * have, one more than its steps, times the start's size, plus the array's own bytes.
 */
function guardRange(base: Expression): Expression {
  return (obj, expr, options) => {
    if (!Array.isArray(expr)) return base(obj, expr, options);
    const args = expr.map((arg) => evalExpr(obj, arg, options));
    const [start, end, step = 1] = args.map(toNumber);
    if (Number.isInteger(start) && Number.isInteger(end) && Number.isInteger(step) && step !== 0) {
      const steps = Math.trunc((end - start) / step);
      const memNeeded = 24 + (steps >= 0 ? 1 + steps : 0) * VALUE;
      if (!(memNeeded < memoryLimits.range)) {
        throw exceeded(
          `$range would use too much memory (${memNeeded} bytes) and cannot spill to disk. ` +
            `Memory limit: ${memoryLimits.range} bytes`,
        );
      }
      chargeExpression(options, "$range", memNeeded);
    }
    return base(obj, literals(args), options);
  };
}

/** `$concatArrays`, counted before it builds: one slot per element of every operand. */
function guardConcatArrays(base: Expression): Expression {
  return (obj, expr, options) => {
    if (!Array.isArray(expr)) return base(obj, expr, options);
    const args = expr.map((arg) => evalExpr(obj, arg, options));
    if (args.every(Array.isArray)) {
      const slots = args.reduce((sum: number, arr) => sum + (arr as unknown[]).length, 0);
      chargeExpression(options, "$concatArrays", VALUE + 24 + VALUE * slots);
    }
    return base(obj, literals(args), options);
  };
}

/** `$zip`, counted before it builds: its arrays, one per position, of one slot per input. */
function guardZip(base: Expression): Expression {
  return (obj, expr, options) => {
    if (!isPlainObject(expr) || !("inputs" in expr)) return base(obj, expr, options);
    const inputs = evalExpr(obj, expr.inputs, options);
    if (Array.isArray(inputs) && inputs.every(Array.isArray)) {
      const lengths = inputs.map((input) => (input as unknown[]).length);
      const count = lengths.length === 0
        ? 0
        : expr.useLongestLength === true
        ? Math.max(...lengths)
        : Math.min(...lengths);
      chargeExpression(options, "$zip", VALUE + 24 + count * (2 * VALUE + 24 + VALUE * inputs.length));
    }
    return base(obj, { ...expr, inputs: { $literal: inputs } }, options);
  };
}

/** `$concat`, its length known before it builds. */
function guardConcat(base: Expression): Expression {
  return (obj, expr, options) => {
    const args = (Array.isArray(expr) ? expr : [expr]).map((arg) => evalExpr(obj, arg, options));
    if (args.every((arg) => typeof arg === "string")) {
      const length = (args as string[]).reduce((sum, arg) => sum + arg.length, 0);
      refuseLongString(length);
      chargeExpression(options, "$concat", VALUE + length);
    }
    return base(obj, literals(args), options);
  };
}

/** How many times `find` occurs in `text`, at most `most` (as replaceAll and split count them). */
function occurrences(text: string, find: string, most = Infinity): number {
  if (find.length === 0) return Math.min(text.length + 1, most);
  let count = 0;
  for (let at = text.indexOf(find); at >= 0 && count < most; at = text.indexOf(find, at + find.length)) count++;
  return count;
}

/** `$replaceAll` and `$replaceOne`, their length known before they build. */
function guardReplace(name: string, base: Expression, all: boolean): Expression {
  return (obj, expr, options) => {
    if (!isPlainObject(expr)) return base(obj, expr, options);
    const input = evalExpr(obj, expr.input, options);
    const find = evalExpr(obj, expr.find, options);
    const replacement = evalExpr(obj, expr.replacement, options);
    if (typeof input === "string" && typeof find === "string" && typeof replacement === "string") {
      const count = occurrences(input, find, all ? Infinity : 1);
      const length = input.length + count * (replacement.length - find.length);
      refuseLongString(length);
      chargeExpression(options, name, VALUE + length);
    }
    const args = { input: { $literal: input }, find: { $literal: find }, replacement: { $literal: replacement } };
    return base(obj, args, options);
  };
}

/** `$split`, counted before it builds: one slot per piece, and the pieces' characters. */
function guardSplit(base: Expression): Expression {
  return (obj, expr, options) => {
    if (!Array.isArray(expr)) return base(obj, expr, options);
    const args = expr.map((arg) => evalExpr(obj, arg, options));
    const [text, separator] = args;
    if (typeof text === "string" && typeof separator === "string" && separator.length > 0) {
      chargeExpression(options, "$split", VALUE + 24 + VALUE * (occurrences(text, separator) + 1) + text.length);
    }
    return base(obj, literals(args), options);
  };
}

/** An expression counted after it builds (what it makes is no larger than what it reads). */
function chargedAfter(name: string, base: Expression): Expression {
  return (obj, expr, options) => {
    const value = base(obj, expr, options);
    if (typeof value === "string") refuseLongString(value.length);
    chargeExpression(options, name, builtSize(value));
    return value;
  };
}

/** The expression operator `$reduce`'s `in` is wrapped in: the step's value, settled as the one held. */
const SETTLE = "$__engineSettle";

/** Proof that a {@link SETTLE} call comes from the engine: no client's BSON can hold this object. */
const INTERNAL = Object.freeze({});

function settled(obj: unknown, arg: unknown, options: Options): unknown {
  if (!isPlainObject(arg) || arg.internal !== INTERNAL) {
    throw new CommandError("InvalidPipelineOperator", `Unrecognized expression '${SETTLE}'`);
  }
  const value = evalExpr(obj, arg.expr, options);
  (arg.settle as (value: unknown) => void)(value);
  return value;
}

/**
 * `$reduce`, each step's value counted as the value the reduction holds: an array grown a
 * step at a time with `$concatArrays` counts as the array it is, not as every copy it was.
 */
function guardReduce(base: Expression): Expression {
  return (obj, expr, options) => {
    if (!isPlainObject(expr) || !("in" in expr)) return base(obj, expr, options);
    return withExpressionScope(options, (settle) => {
      const value = base(obj, { ...expr, in: { [SETTLE]: { internal: INTERNAL, expr: expr.in, settle } } }, options);
      settle(value);
      return value;
    });
  };
}

/** The expressions counted after they build. */
const BUILDERS = [
  "$map",
  "$filter",
  "$slice",
  "$reverseArray",
  "$sortArray",
  "$setUnion",
  "$setIntersection",
  "$setDifference",
  "$objectToArray",
  "$arrayToObject",
  "$mergeObjects",
  "$setField",
  "$unsetField",
  "$firstN",
  "$lastN",
  "$maxN",
  "$minN",
  "$toUpper",
  "$toLower",
  "$substr",
  "$substrCP",
  "$substrBytes",
  "$trim",
  "$ltrim",
  "$rtrim",
  "$toString",
  "$dateToString",
];

/**
 * The engine's expressions (`expressions`, as registered) with those that build values counted;
 * to register over them.
 */
export function countedExpressions(expressions: Record<string, Expression>): Record<string, Expression> {
  const out: Record<string, Expression> = {
    $range: guardRange(expressions.$range),
    $concatArrays: guardConcatArrays(expressions.$concatArrays),
    $zip: guardZip(expressions.$zip),
    $concat: guardConcat(expressions.$concat),
    $replaceAll: guardReplace("$replaceAll", expressions.$replaceAll, true),
    $replaceOne: guardReplace("$replaceOne", expressions.$replaceOne, false),
    $split: guardSplit(expressions.$split),
    $reduce: guardReduce(expressions.$reduce),
    [SETTLE]: settled as Expression,
  };
  for (const name of BUILDERS) if (expressions[name]) out[name] = chargedAfter(name, expressions[name]);
  return out;
}
