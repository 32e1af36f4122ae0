import { Long, ObjectId, type Timestamp } from "bson";
import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { bsonTag, isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { inDomain } from "./math-domains.ts";
import {
  argumentsOf,
  type Arity,
  type Expression,
  isNil,
  literal,
  overMingo,
  singleArgument,
} from "./expression-arguments.ts";
import {
  decimalOfNumber,
  decimalSquareRoot,
  isWideNumber,
  numberKind,
  powerNumbers,
  truncatedInteger,
  wholeNumber,
} from "./number-arithmetic.ts";
import { nameTable } from "../field-names.ts";

/**
 * Math, bitwise and conversion expressions, and the integer arguments of array and string
 * expressions, given a Long or a Decimal128. mingo refused them all ("must resolve to
 * number"); MongoDB computes a Long's logarithm or sine as a double, a Decimal128's as a
 * Decimal128, a Long's power or bitwise result as a Long, and takes a whole Long or
 * Decimal128 wherever it takes an index or a count. Also `$convert`, through these and the
 * engine's other `$to…` expressions, and `$toObjectId`, which mingo lacks.
 */

const mingo = mingoExpressions as unknown as Record<string, Expression>;

/** An expression computed by `wide` when a Long or a Decimal128 is among its arguments; mingo's otherwise. */
function whenWide(name: string, arity: Arity, wide: (args: unknown[], options: Options) => unknown): Expression {
  return overMingo(name, arity, (args) => args.some(isWideNumber), wide);
}

/** mingo's operator on the arguments with every wide number read as a double. */
function asDoubles(name: string, arity: Arity, args: unknown[], options: Options): unknown {
  const doubles = args.map((v) => literal(isWideNumber(v) ? toNumber(v) : v));
  return mingo[name](null, arity === "one" ? doubles[0] : doubles, options);
}

/**
 * A function computed in double precision for a Long, and as a Decimal128 when a Decimal128
 * is an operand. Only `$sqrt` and whole powers are exact in decimal; the others ($exp, $ln,
 * the logarithms and trigonometry) are the double's result given as a Decimal128, about 16
 * digits where MongoDB gives 34 (docs/embedded-engine.md says so).
 */
function mathExpression(name: string, arity: Arity): Expression {
  return whenWide(name, arity, (args, options) => {
    if (args.some(isNil)) return null;
    const result = asDoubles(name, arity, args, options);
    const decimal = args.some((v) => numberKind(v) === "decimal");
    return decimal && typeof result === "number" ? decimalOfNumber(result) : result;
  });
}

function squareRoot(args: unknown[]): unknown {
  const [value] = args;
  if (isNil(value)) return null;
  if (toNumber(value) < 0) {
    throw new CommandError("Location28714", "$sqrt's argument must be greater than or equal to 0");
  }
  return numberKind(value) === "decimal" ? decimalSquareRoot(value) : Math.sqrt(toNumber(value));
}

function power(args: unknown[]): unknown {
  if (args.length !== 2) {
    throw new CommandError(
      "Location16020",
      `Expression $pow takes exactly 2 arguments. ${args.length} were passed in.`,
    );
  }
  const [base, exponent] = args;
  if (isNil(base) || isNil(exponent)) return null;
  for (const [which, v] of [["base", base], ["exponent", exponent]] as const) {
    if (numberKind(v) === undefined) {
      throw new CommandError("Location28762", `$pow's ${which} must be numeric, not ${bsonTypeOf(v)}`);
    }
  }
  const result = powerNumbers(base, exponent);
  if (result === undefined) {
    throw new CommandError("Location28764", "$pow cannot take a base of 0 and a negative exponent");
  }
  return result;
}

/** `$pow` of two int32 values also computes here: MongoDB gives a Long past the int32 range. */
const $pow = overMingo(
  "$pow",
  "list",
  (args) => args.some(isWideNumber) || (args.length === 2 && args.every((v) => numberKind(v) === "int")),
  power,
);

/** An integer operand of a bitwise expression, or MongoDB's refusal. */
function bitwiseOperand(name: string, v: unknown): bigint {
  const kind = numberKind(v);
  if (kind !== "int" && kind !== "long") {
    throw new CommandError("TypeMismatch", `${name} only supports int and long operands.`);
  }
  return kind === "long" ? (v as Long).toBigInt() : BigInt(v as number);
}

/** `$bitAnd`, `$bitOr`, `$bitXor` over Longs: a Long, as MongoDB gives when one operand is one. */
function bitwise(name: string, combine: (a: bigint, b: bigint) => bigint, start: bigint): (args: unknown[]) => unknown {
  return (args) => {
    if (args.some(isNil)) return null;
    const result = args.reduce<bigint>((total, v) => combine(total, bitwiseOperand(name, v)), start);
    return Long.fromBigInt(BigInt.asIntN(64, result));
  };
}

function bitwiseNot(args: unknown[]): unknown {
  const [value] = args;
  if (isNil(value)) return null;
  return Long.fromBigInt(BigInt.asIntN(64, ~bitwiseOperand("$bitNot", value)));
}

/** `$toString` of a Long (its digits) or a Decimal128 (its own text, as MongoDB prints it). */
function wideToString(args: unknown[]): unknown {
  return String(args[0]);
}

/** `$toDate` of a Long or a Decimal128: the milliseconds since the epoch, truncated. */
function wideToDate(args: unknown[]): unknown {
  const millis = truncatedInteger(args[0]);
  if (millis === undefined || millis > 8_640_000_000_000_000n || millis < -8_640_000_000_000_000n) {
    throw new CommandError(
      "ConversionFailure",
      `Conversion would overflow target type in $convert with no onError value: ${String(args[0])}`,
    );
  }
  return new Date(Number(millis));
}

/**
 * An array or string expression whose integer arguments (an index, a count, a bound) may be a
 * Long or a whole Decimal128, which MongoDB reads as the integer: mingo is handed the integer.
 * Other arguments, and wide numbers that are not whole, go to mingo unchanged.
 */
function integerArguments(name: string): Expression {
  const original = mingo[name];
  return (obj, expr, options) => {
    if (!Array.isArray(expr)) return original(obj, expr, options);
    const args = argumentsOf(obj, expr, options);
    return original(obj, args.map((v) => literal(isWideNumber(v) ? wholeOrSelf(v) : v)), options);
  };
}

function wholeOrSelf(v: unknown): unknown {
  const n = Number(wholeNumber(v));
  return Number.isSafeInteger(n) ? n : v;
}

/** `$toObjectId` (which mingo lacks): an ObjectId, or its 24 hexadecimal digits. */
const $toObjectId: Expression = (obj, expr, options) => {
  const value = singleArgument(obj, expr, options);
  if (isNil(value)) return null;
  if (bsonTag(value) === "ObjectId") return value;
  if (typeof value === "string" && /^[0-9a-fA-F]{24}$/.test(value)) return ObjectId.createFromHexString(value);
  throw new CommandError(
    "ConversionFailure",
    typeof value === "string"
      ? `Failed to parse objectId '${value}' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found ${value.length}`
      : `Unsupported conversion from ${bsonTypeOf(value)} to objectId in $convert with no onError value`,
  );
};

/** BSON types MongoDB 7.0 converts to a string (numbers, strings, dates and booleans are JS values). */
const TO_STRING = new Set(["Long", "Decimal128", "Int32", "Double", "ObjectId"]);

function unsupported(value: unknown, target: string): CommandError {
  return new CommandError(
    "ConversionFailure",
    `Unsupported conversion from ${bsonTypeOf(value)} to ${target} in $convert with no onError value`,
  );
}

const numbersToString = whenWide("$toString", "one", wideToString);

/**
 * `$toString`: an ObjectId as its 24 hexadecimal digits (mingo refused it, and `{$toString:
 * "$_id"}` is common); a value MongoDB 7.0 does not convert (binary data, a timestamp, a regex,
 * a document, an array) refused with ConversionFailure, which `$convert`'s `onError` catches.
 */
const $toString: Expression = (obj, expr, options) => {
  const value = singleArgument(obj, expr, options);
  const tag = bsonTag(value);
  if (tag === "ObjectId") return (value as ObjectId).toHexString();
  if (
    (tag !== undefined && !TO_STRING.has(tag)) || value instanceof RegExp || isPlainObject(value) ||
    Array.isArray(value)
  ) {
    throw unsupported(value, "string");
  }
  return numbersToString(obj, literal(value), options);
};

const numbersToDate = whenWide("$toDate", "one", wideToDate);

/** `$toDate`: an ObjectId as its creation time and a timestamp as its seconds, as MongoDB converts them. */
const $toDate: Expression = (obj, expr, options) => {
  const value = singleArgument(obj, expr, options);
  const tag = bsonTag(value);
  if (tag === "ObjectId") return (value as ObjectId).getTimestamp();
  if (tag === "Timestamp") return new Date((value as Timestamp).t * 1000);
  if (typeof value === "boolean") throw unsupported(value, "date");
  return numbersToDate(obj, literal(value), options);
};

/** `$convert`'s targets, by name and by BSON type number, as the `$to…` expression doing each. */
const CONVERSIONS: Readonly<Record<string, string>> = nameTable({
  double: "$toDouble",
  1: "$toDouble",
  string: "$toString",
  2: "$toString",
  objectId: "$toObjectId",
  7: "$toObjectId",
  bool: "$toBool",
  8: "$toBool",
  date: "$toDate",
  9: "$toDate",
  int: "$toInt",
  16: "$toInt",
  long: "$toLong",
  18: "$toLong",
  decimal: "$toDecimal",
  19: "$toDecimal",
});

/**
 * `$convert` through the engine's `$to…` expressions. mingo's called its own directly, so a
 * Long could not be converted, "decimal" gave a double, "long" an int32, and the input, once
 * evaluated, was evaluated again as an expression (a string starting with "$" read as a path).
 */
const $convert: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr) || !("input" in expr) || !("to" in expr)) return mingo.$convert(obj, expr, options);
  const input = evalExpr(obj, expr.input, options);
  if (isNil(input)) return "onNull" in expr ? evalExpr(obj, expr.onNull, options) : null;
  const to = evalExpr(obj, expr.to, options);
  const conversion = typeof to === "string" || typeof to === "number" ? CONVERSIONS[to] : undefined;
  if (conversion === undefined) throw new CommandError("BadValue", `Unknown type name: ${String(to)}`);
  try {
    return evalExpr(obj, { [conversion]: literal(input) }, options);
  } catch (error) {
    if (!("onError" in expr)) throw error;
    return evalExpr(obj, expr.onError, options);
  }
};

const TRIGONOMETRY = [
  "$sin",
  "$cos",
  "$tan",
  "$asin",
  "$acos",
  "$atan",
  "$sinh",
  "$cosh",
  "$tanh",
  "$asinh",
  "$acosh",
  "$atanh",
  "$degreesToRadians",
  "$radiansToDegrees",
];

/** The expressions, to register in mingo's context over its own. */
export const wideMathExpressions: Record<string, Expression> = {
  ...Object.fromEntries(TRIGONOMETRY.map((name) => [name, inDomain(name, "one", mathExpression(name, "one"))])),
  $atan2: mathExpression("$atan2", "list"),
  $exp: mathExpression("$exp", "one"),
  $ln: inDomain("$ln", "one", mathExpression("$ln", "one")),
  $log10: inDomain("$log10", "one", mathExpression("$log10", "one")),
  $log: inDomain("$log", "list", mathExpression("$log", "list")),
  $sqrt: inDomain("$sqrt", "one", whenWide("$sqrt", "one", squareRoot)),
  $pow,
  $bitAnd: whenWide("$bitAnd", "list", bitwise("$bitAnd", (a, b) => a & b, -1n)),
  $bitOr: whenWide("$bitOr", "list", bitwise("$bitOr", (a, b) => a | b, 0n)),
  $bitXor: whenWide("$bitXor", "list", bitwise("$bitXor", (a, b) => a ^ b, 0n)),
  $bitNot: whenWide("$bitNot", "one", bitwiseNot),
  $toString,
  $toDate,
  $toObjectId,
  $convert,
  ...Object.fromEntries(
    ["$arrayElemAt", "$slice", "$range", "$substr", "$substrCP", "$substrBytes"]
      .map((name) => [name, integerArguments(name)]),
  ),
};
