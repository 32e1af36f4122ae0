import { evalExpr, OpType } from "mingo/core";
import type { Options } from "mingo/types";
import type { Expression } from "./expression-arguments.ts";

/**
 * `$sum`, `$avg`, `$max`, `$min`, `$stdDevPop` and `$stdDevSamp` used as expressions, with
 * MongoDB's reading of their operands: one operand that evaluates to an array stands for its
 * elements, whether given bare (`"$scores"`) or as a list of one (`["$scores"]`, `[[1, 2]]`);
 * a list of several operands is those values, arrays among them taken whole. mingo read a list
 * of one as one value, so `{$sum: ["$scores"]}` was 0 and `{$max: [[1, 3]]}` the array itself.
 * The values then go to the accumulator of the same name in the engine's context.
 */

type Accumulator = (collection: unknown[], expr: unknown, options: Options) => unknown;

const NAMES = ["$sum", "$avg", "$max", "$min", "$stdDevPop", "$stdDevSamp"] as const;

/** The values an accumulator-style expression's operand stands for. */
function operandValues(obj: unknown, expr: unknown, options: Options): unknown[] {
  if (Array.isArray(expr) && expr.length !== 1) return expr.map((operand) => evalExpr(obj, operand, options));
  const value = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
  return Array.isArray(value) ? value : [value];
}

function accumulatorExpression(name: string): Expression {
  return (obj, expr, options) => {
    const accumulate = options.context.getOperator(OpType.ACCUMULATOR, name) as unknown as Accumulator;
    // mingo calls an expression operator in a `$group` too, with the group's documents.
    if (Array.isArray(obj)) return accumulate(obj, expr, options);
    return accumulate(operandValues(obj, expr, options), null, options);
  };
}

/** The expressions, to register in mingo's context (mingo has none of these names). */
export const accumulatorExpressions: Record<string, Expression> = Object.fromEntries(
  NAMES.map((name) => [name, accumulatorExpression(name)]),
);
