import { type Message, msg } from "../i18n/message.ts";

/** MongoDB refuses documents nested deeper than this; checking first keeps validators from recursing without bound. */
export const MAX_NESTING = 100;

/** Why a JSON value cannot be stored as it is, or null when it can. */
export type ShapeProblem = Message | null;

/**
 * A surrogate without its pair: JSON's `\ud800` escape can carry one, UTF-8 and BSON cannot.
 * Stored, it would silently become U+FFFD, so what the client sent would not be what is kept.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;

function keyProblem(key: string): ShapeProblem {
  if (LONE_SURROGATE.test(key)) return msg("shape.loneSurrogate");
  if (key.startsWith("$")) return msg("shape.dollarKey", { key });
  if (key.includes(".")) return msg("shape.dotKey", { key });
  if (key.includes("\u0000")) return msg("shape.nulKey");
  return null;
}

function stringProblem(text: string, maxLength: number, topLevel: boolean): ShapeProblem {
  if (text.length > maxLength) {
    return msg(topLevel ? "shape.stringTooLong" : "shape.nestedStringTooLong", { max: maxLength });
  }
  return LONE_SURROGATE.test(text) ? msg("shape.loneSurrogate") : null;
}

function scalarProblem(value: unknown, maxLength: number, topLevel: boolean): ShapeProblem {
  if (typeof value === "string") return stringProblem(value, maxLength, topLevel);
  if (typeof value !== "number") return null;
  if (!Number.isFinite(value)) return msg("shape.infinite");
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) return msg("shape.unsafeInteger");
  return null;
}

function children(value: object): [string | null, unknown][] {
  if (Array.isArray(value)) return value.map((item) => [null, item]);
  return Object.entries(value);
}

/**
 * Checks a parsed JSON value before any validator sees it: nesting depth, keys MongoDB treats
 * as operators or paths, numbers JSON can carry but a record cannot hold exactly, and strings
 * (values and keys, at any depth) longer than `maxStringLength` characters, so no validator
 * or hook ever spends time on an oversized string. It walks with an explicit stack, so a
 * hostile body cannot exhaust the call stack.
 * @example valueShapeProblem({ a: { $set: 1 } }) // shape.dollarKey: 'has a key "$set" that starts with "$"'
 * @example valueShapeProblem(1e400)              // shape.infinite: "holds a number that is too large"
 * @example valueShapeProblem("abc", 2)           // shape.stringTooLong: "must be at most 2 characters long"
 */
export function valueShapeProblem(value: unknown, maxStringLength = Infinity): ShapeProblem {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") {
      const problem = scalarProblem(current, maxStringLength, depth === 0);
      if (problem) return problem;
      continue;
    }
    if (depth >= MAX_NESTING) return msg("shape.tooDeep", { max: MAX_NESTING });
    for (const [key, child] of children(current)) {
      const problem = key === null ? null : (keyProblem(key) ?? stringProblem(key, maxStringLength, false));
      if (problem) return problem;
      stack.push([child, depth + 1]);
    }
  }
  return null;
}
