import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { type Expression, isNil } from "./expression-arguments.ts";
import { checkRegexOptions, compileMongoRegex, decodedRegexOptions, RegexSyntaxError, scannerOf } from "./regex.ts";

/**
 * `$regexFind`, `$regexFindAll` and `$regexMatch` as MongoDB runs them. mingo's looped forever
 * in `$regexFindAll` on a pattern that matches the empty string (`"x*"`), counted `idx` in
 * UTF-16 units instead of code points, refused the `x` option, and threw JavaScript's own
 * errors for bad arguments.
 */

/** One match as MongoDB reports it. */
interface Match {
  match: string;
  idx: number;
  captures: (string | null)[];
}

const ARGUMENTS = new Set(["input", "regex", "options"]);

/** The compiled regex and the input string, or undefined when either is null or missing. */
interface Subject {
  regex: RegExp;
  input: string;
}

/** Reads and checks the arguments in MongoDB's order: options, regex, then input. */
function subjectOf(name: string, obj: unknown, expr: unknown, options: Options): Subject | undefined {
  if (!isPlainObject(expr)) {
    throw new CommandError(
      "Location51103",
      `${name} expects an object of named arguments but found: ${bsonTypeOf(expr)}`,
    );
  }
  for (const key in expr) {
    if (!ARGUMENTS.has(key)) throw new CommandError("Location31024", `${name} found an unknown argument: ${key}`);
  }
  const pattern = evalExpr(obj, expr.regex, options);
  if (!isNil(pattern) && typeof pattern !== "string" && !(pattern instanceof RegExp)) {
    throw new CommandError("Location51105", `${name} needs 'regex' to be of type string or regex`);
  }
  const flags = evalExpr(obj, expr.options, options);
  if (!isNil(flags) && typeof flags !== "string") {
    throw new CommandError("Location51106", `${name} needs 'options' to be of type string`);
  }
  if (typeof flags === "string" && flags.includes("\0")) {
    throw new CommandError("Location51110", `${name}: regular expression options cannot contain an embedded null byte`);
  }
  const regex = regexOf(name, pattern, flags ?? undefined);
  const input = evalExpr(obj, expr.input, options);
  if (!isNil(input) && typeof input !== "string") {
    throw new CommandError("Location51104", `${name} needs 'input' to be of type string`);
  }
  return regex === undefined || isNil(input) ? undefined : { regex, input };
}

function regexOf(name: string, value: unknown, flags: string | undefined): RegExp | undefined {
  let pattern: string;
  let options = flags ?? "";
  if (value instanceof RegExp) {
    const own = decodedRegexOptions(value);
    if (own !== "" && flags !== undefined) {
      throw new CommandError(
        "Location51107",
        `${name} found regex option(s) specified in both 'regex' and 'option' fields`,
      );
    }
    pattern = value.source;
    if (flags === undefined) options = own;
  } else if (typeof value === "string") {
    if (value.includes("\0")) {
      throw new CommandError("Location51109", `${name}: regular expression cannot contain an embedded null byte`);
    }
    pattern = value;
  } else if (isNil(value)) {
    checkRegexOptions(options, `${name} `);
    return undefined;
  } else {
    throw new CommandError("Location51105", `${name} needs 'regex' to be of type string or regex`);
  }
  checkRegexOptions(options, `${name} `);
  try {
    return compileMongoRegex(pattern, options);
  } catch (error) {
    if (!(error instanceof RegexSyntaxError)) throw error;
    throw new CommandError("Location51111", `Invalid Regex in ${name}: ${error.message}`);
  }
}

/**
 * The matches of `regex` in `input`, left to right and not overlapping, at most `limit`. After
 * an empty match the search moves on one code point; it ends at the end of the input (an
 * empty input is searched once), as MongoDB's loop does.
 */
function matchesOf({ regex, input }: Subject, limit: number): Match[] {
  const scanner = scannerOf(regex);
  const found: Match[] = [];
  let position = 0;
  let counted = { units: 0, points: 0 };
  do {
    scanner.lastIndex = position;
    const m = scanner.exec(input);
    if (!m) break;
    counted = codePointsTo(input, counted, m.index);
    found.push({ match: m[0], idx: counted.points, captures: m.slice(1).map((c) => c ?? null) });
    position = m[0].length > 0 ? m.index + m[0].length : m.index + codePointLength(input, m.index);
  } while (found.length < limit && position < input.length);
  return found;
}

/** Code points before UTF-16 index `units`, counted on from an earlier count. */
function codePointsTo(input: string, from: { units: number; points: number }, units: number) {
  let points = from.points;
  for (let i = from.units; i < units; i += codePointLength(input, i)) points++;
  return { units, points };
}

function codePointLength(input: string, at: number): number {
  const code = input.codePointAt(at);
  return code !== undefined && code > 0xffff ? 2 : 1;
}

/** The expressions, to register in mingo's context over its own. */
export const regexExpressions: Record<string, Expression> = {
  $regexFind: (obj, expr, options) => {
    const subject = subjectOf("$regexFind", obj, expr, options);
    return subject ? matchesOf(subject, 1)[0] ?? null : null;
  },
  $regexFindAll: (obj, expr, options) => {
    const subject = subjectOf("$regexFindAll", obj, expr, options);
    return subject ? matchesOf(subject, Infinity) : [];
  },
  $regexMatch: (obj, expr, options) => {
    const subject = subjectOf("$regexMatch", obj, expr, options);
    return subject ? matchesOf(subject, 1).length > 0 : false;
  },
};
