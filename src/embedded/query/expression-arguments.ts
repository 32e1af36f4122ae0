import { evalExpr } from "mingo/core";
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
