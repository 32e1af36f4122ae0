import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { CommandError } from "../errors.ts";

/**
 * What the engine's own expression operators share for reading their arguments: the
 * evaluated list, MongoDB's arity error, and the null-or-missing test most of them start with.
 */

/** An expression operator, as mingo calls it. */
export type Expression = (obj: unknown, expr: unknown, options: Options) => unknown;

/** An expression that stands for `v` itself, whatever it holds (a "$" string is not a path). */
export const literal = (v: unknown): { $literal: unknown } => ({ $literal: v });

/** Null or missing: what most expressions answer null for. */
export const isNil = (v: unknown): v is null | undefined => v === null || v === undefined;

/** The evaluated arguments of an expression that takes a list (a single one as a list of one). */
export function argumentsOf(obj: unknown, expr: unknown, options: Options): unknown[] {
  const values = evalExpr(obj, expr, options);
  return Array.isArray(values) ? values : [values];
}

/** The evaluated argument of a one-argument expression, given bare or in a list of one. */
export function singleArgument(obj: unknown, expr: unknown, options: Options): unknown {
  return evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options);
}

/** The evaluated arguments of an expression of either arity, as a list. */
export function argumentsFor(arity: Arity, obj: unknown, expr: unknown, options: Options): unknown[] {
  return arity === "one" ? [singleArgument(obj, expr, options)] : argumentsOf(obj, expr, options);
}

/** `args`, or MongoDB's error (16020) when there are not exactly `count` of them. */
export function exactly(name: string, args: unknown[], count: number): unknown[] {
  if (args.length !== count) {
    throw new CommandError(
      "Location16020",
      `Expression ${name} takes exactly ${count} arguments. ${args.length} were passed in.`,
    );
  }
  return args;
}

/** How many arguments an expression takes: one (given bare or in a list of one), or a list. */
export type Arity = "one" | "list";

const mingo = mingoExpressions as unknown as Record<string, Expression>;

/**
 * One of mingo's expression operators, taken over when `takes` says so of its evaluated
 * arguments (a Long among them, say): then `compute` answers; otherwise mingo's operator does,
 * given the values already evaluated, so no argument is evaluated twice. A one-argument
 * expression's value is its argument even when it is an array (never spread into arguments).
 */
export function overMingo(
  name: string,
  arity: Arity,
  takes: (args: unknown[]) => boolean,
  compute: (args: unknown[], options: Options) => unknown,
): Expression {
  const original = mingo[name];
  return (obj, expr, options) => {
    const args = argumentsFor(arity, obj, expr, options);
    if (takes(args)) return compute(args, options);
    return original(obj, arity === "one" ? literal(args[0]) : args.map(literal), options);
  };
}
