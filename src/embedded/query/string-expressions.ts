import { Buffer } from "node:buffer";
import { type Binary, BSON } from "bson";
import { evalExpr } from "mingo/core";
import { bsonTag, isPlainObject, SERIALIZE } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { unaliasValue } from "../field-names.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { type Expression, isNil, singleArgument } from "./expression-arguments.ts";
import { numberKind, wholeNumber } from "./number-arithmetic.ts";

/**
 * String expressions mingo lacks or measures differently from MongoDB: `$indexOfCP` (missing
 * in mingo), `$indexOfBytes` (MongoDB counts UTF-8 bytes, mingo counted UTF-16 code units:
 * "l" in "héllo" is at byte 3, not 2), and `$toUpper`/`$toLower`, which in MongoDB change ASCII
 * letters only ("é" stays "é"). Also `$bsonSize` and `$binarySize`, which mingo lacks.
 */

/** A start or end index: a whole number of any width, not negative. */
function indexArgument(name: string, which: "starting" | "ending", v: unknown): number {
  const integer = wholeNumber(v);
  if (integer === undefined) {
    throw new CommandError(
      which === "starting" ? "Location40096" : "Location40092",
      `${name} requires an integral ${which} index, found a value of type: ${bsonTypeOf(v)}, with value: ${String(v)}`,
    );
  }
  if (integer < 0n) {
    throw new CommandError(
      which === "starting" ? "Location40097" : "Location40091",
      `${name} requires a nonnegative ${which} index, found: ${integer}`,
    );
  }
  return Number(integer);
}

/**
 * `$indexOfCP`/`$indexOfBytes`: `[string, substring, start?, end?]`, the first index at or
 * after `start` where `substring` lies wholly before `end`, counted in the units `split` gives.
 */
function indexOf<T>(name: string, split: (s: string) => ArrayLike<T>): Expression {
  return (obj, expr, options) => {
    const args = evalExpr(obj, expr, options);
    if (!Array.isArray(args) || args.length < 2 || args.length > 4) {
      const count = Array.isArray(args) ? args.length : 1;
      throw new CommandError(
        "Location16020",
        `Expression ${name} takes at least 2 arguments, and at most 4, but ${count} were passed in.`,
      );
    }
    const [string, substring] = args;
    if (isNil(string)) return null;
    if (typeof string !== "string") {
      throw new CommandError(
        "Location40093",
        `${name} requires a string as the first argument, found: ${bsonTypeOf(string)}`,
      );
    }
    if (typeof substring !== "string") {
      throw new CommandError(
        "Location40094",
        `${name} requires a string as the second argument, found: ${bsonTypeOf(substring)}`,
      );
    }
    const units = split(string);
    const wanted = split(substring);
    const start = args.length > 2 ? indexArgument(name, "starting", args[2]) : 0;
    const end = Math.min(args.length > 3 ? indexArgument(name, "ending", args[3]) : units.length, units.length);
    for (let i = start; i + wanted.length <= end; i++) {
      let j = 0;
      while (j < wanted.length && units[i + j] === wanted[j]) j++;
      if (j === wanted.length) return i;
    }
    return -1;
  };
}

/** `$toUpper`/`$toLower`: ASCII letters changed, everything else kept; null and missing give "". */
function asciiCase(upper: boolean): Expression {
  return (obj, expr, options) => {
    const value = evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options);
    if (isNil(value)) return "";
    if (typeof value === "object" && !(value instanceof Date) && numberKind(value) === undefined) {
      throw new CommandError("Location16007", `can't convert from BSON type ${bsonTypeOf(value)} to String`);
    }
    const text = typeof value === "string" ? value : value instanceof Date ? value.toISOString() : String(value);
    return upper ? text.replace(/[a-z]+/g, (s) => s.toUpperCase()) : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
  };
}

/** `$bsonSize` (mingo lacks it): the bytes of a document encoded as BSON. */
const $bsonSize: Expression = (obj, expr, options) => {
  const value = singleArgument(obj, expr, options);
  if (isNil(value)) return null;
  if (!isPlainObject(value)) {
    throw new CommandError("Location31393", `$bsonSize requires a document input, found: ${bsonTypeOf(value)}`);
  }
  // As stored: names mingo is given renamed (`constructor`, see aliases.ts) counted as the client spells them.
  return BSON.calculateObjectSize(unaliasValue(value), SERIALIZE);
};

/** `$binarySize` (mingo lacks it): the bytes of a string in UTF-8, or of binary data. */
const $binarySize: Expression = (obj, expr, options) => {
  const value = singleArgument(obj, expr, options);
  if (isNil(value)) return null;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (bsonTag(value) === "Binary") return (value as Binary).length();
  throw new CommandError(
    "Location51276",
    `$binarySize requires a string or BinData argument, found: ${bsonTypeOf(value)}`,
  );
};

/** The expressions, to register in mingo's context over its own. */
export const stringExpressions: Record<string, Expression> = {
  $bsonSize,
  $binarySize,
  $indexOfCP: indexOf("$indexOfCP", (s) => Array.from(s)),
  $indexOfBytes: indexOf("$indexOfBytes", (s) => Buffer.from(s, "utf8")),
  $toUpper: asciiCase(true),
  $toLower: asciiCase(false),
};
