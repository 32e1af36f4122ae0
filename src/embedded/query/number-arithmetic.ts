import { Decimal128, Long } from "bson";
import { bsonTag, toNumber } from "../bson.ts";
import { type ExactNumber, exactOf, exactOfText } from "../store/exact-numbers.ts";
import { bsonTypeOf } from "./bson-types.ts";

/**
 * Arithmetic on numbers of every BSON width with MongoDB's result types, for update operators
 * (`$inc`, `$mul`) and aggregation expressions (`$add`, `$sum`...). mingo computes on JS numbers
 * only: a Long or a Decimal128 is an object to it. The result takes the wider of the two types
 * (int32 < Long < double < Decimal128); integer results that outgrow their type widen (an int32
 * to a Long), and a Decimal128 result is exact, through BigInt.
 */

/** A numeric BSON type. */
export type NumberKind = "int" | "long" | "double" | "decimal";

const WIDTH: Readonly<Record<NumberKind, number>> = { int: 0, long: 1, double: 2, decimal: 3 };

/** A value's numeric BSON type, or undefined for anything that is not a number. */
export function numberKind(v: unknown): NumberKind | undefined {
  const type = bsonTypeOf(v);
  return type in WIDTH ? type as NumberKind : undefined;
}

/** True for a Long or a Decimal128: the numbers mingo cannot compute with. */
export function isWideNumber(v: unknown): boolean {
  const tag = bsonTag(v);
  return tag === "Long" || tag === "Decimal128";
}

/** The operations {@link combineNumbers} carries out. */
export type Operation = "add" | "subtract" | "multiply";

/** What {@link combineNumbers} gives when two integers' result is beyond the 64-bit range. */
export const LONG_OVERFLOW: unique symbol = Symbol("long overflow");

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Two numbers (of {@link numberKind}) combined, in the wider of their types. */
export function combineNumbers(
  op: Operation,
  a: unknown,
  b: unknown,
): number | Long | Decimal128 | typeof LONG_OVERFLOW {
  const kind = widerKind(a, b);
  if (kind === "decimal") return combineDecimals(op, a, b);
  if (kind === "double") return combineDoubles(op, toNumber(a), toNumber(b));
  const result = combineIntegers(op, integerOf(a), integerOf(b));
  if (kind === "int" && result >= INT32_MIN && result <= INT32_MAX) return Number(result);
  if (result >= LONG_MIN && result <= LONG_MAX) return Long.fromBigInt(result);
  return LONG_OVERFLOW;
}

/** `a / b`: a double, or a Decimal128 (34 digits, rounded) when either is one. */
export function divideNumbers(a: unknown, b: unknown): number | Decimal128 {
  if (widerKind(a, b) !== "decimal") return toNumber(a) / toNumber(b);
  const x = exactOf(a);
  const y = exactOf(b);
  if (!isFinite(x) || !isFinite(y) || y.coefficient === 0n) return decimalOfDouble(toNumber(a) / toNumber(b));
  // Enough digits past the 34 a Decimal128 keeps for its rounding to be right.
  const scale = 40 + String(y.coefficient).length;
  const dividend = x.coefficient * 10n ** BigInt(scale);
  let quotient = dividend / y.coefficient;
  let exponent = x.exponent - y.exponent - scale;
  // An exact quotient takes the ideal exponent (the dividend's less the divisor's), as IEEE 754
  // decimal division gives it: 4.0 / 2 is 2.0, not 2.000…0.
  if (quotient * y.coefficient === dividend) {
    while (exponent < x.exponent - y.exponent && quotient % 10n === 0n) {
      quotient /= 10n;
      exponent++;
    }
  }
  return decimalOf(quotient, exponent);
}

/** A number of any width as a Decimal128 (a double by its shortest decimal text). */
export function decimalOfNumber(v: unknown): Decimal128 {
  if (numberKind(v) === "decimal") return v as Decimal128;
  const x = decimalInput(v);
  return isFinite(x) ? decimalOf(x.coefficient, x.exponent) : decimalOfDouble(toNumber(v));
}

/** A number of any width truncated towards zero, as a BigInt; undefined for NaN and infinities. */
export function truncatedInteger(v: unknown): bigint | undefined {
  if (numberKind(v) === "long") return (v as Long).toBigInt();
  const x = exactOf(v);
  if (!isFinite(x)) return undefined;
  return x.exponent >= 0 ? x.coefficient * 10n ** BigInt(x.exponent) : x.coefficient / 10n ** BigInt(-x.exponent);
}

/** How {@link roundNumber} rounds. */
export type Rounding = "floor" | "ceil" | "trunc" | "round";

/**
 * A Long or a Decimal128 rounded to `place` decimal places (negative: tens, hundreds...), in
 * its own type; `$round` rounds half to even, as MongoDB's does.
 */
export function roundNumber(v: unknown, place: number, mode: Rounding): unknown {
  const x = exactOf(v);
  if (!isFinite(x) || x.exponent >= -place) return v;
  const unit = 10n ** BigInt(-place - x.exponent);
  let quotient = x.coefficient / unit; // towards zero
  const remainder = x.coefficient % unit;
  if (mode === "floor" && remainder < 0n) quotient -= 1n;
  if (mode === "ceil" && remainder > 0n) quotient += 1n;
  if (mode === "round") {
    const twice = 2n * (remainder < 0n ? -remainder : remainder);
    if (twice > unit || (twice === unit && quotient % 2n !== 0n)) quotient += remainder < 0n ? -1n : 1n;
  }
  if (numberKind(v) === "long") return Long.fromBigInt(quotient * 10n ** BigInt(Math.max(0, -place)));
  return decimalOf(quotient, -place);
}

/** `a mod b` (the sign of `a`), in the wider of their types; undefined when `b` is zero. */
export function moduloNumbers(a: unknown, b: unknown): unknown {
  const kind = widerKind(a, b);
  if (toNumber(b) === 0) return undefined;
  if (kind === "double") return toNumber(a) % toNumber(b);
  if (kind !== "decimal") {
    const result = integerOf(a) % integerOf(b);
    return kind === "int" ? Number(result) : Long.fromBigInt(result);
  }
  const x = decimalInput(a);
  const y = decimalInput(b);
  if (!isFinite(x) || !isFinite(y)) return decimalOfDouble(toNumber(a) % toNumber(b));
  const exponent = Math.min(x.exponent, y.exponent);
  const scaled = (z: Finite) => z.coefficient * 10n ** BigInt(z.exponent - exponent);
  return decimalOf(scaled(x) % scaled(y), exponent);
}

function widerKind(a: unknown, b: unknown): NumberKind {
  const ka = numberKind(a) ?? "double";
  const kb = numberKind(b) ?? "double";
  return WIDTH[ka] >= WIDTH[kb] ? ka : kb;
}

function integerOf(v: unknown): bigint {
  return bsonTag(v) === "Long" ? (v as Long).toBigInt() : BigInt(toNumber(v));
}

function combineIntegers(op: Operation, a: bigint, b: bigint): bigint {
  return op === "add" ? a + b : op === "subtract" ? a - b : a * b;
}

function combineDoubles(op: Operation, a: number, b: number): number {
  return op === "add" ? a + b : op === "subtract" ? a - b : a * b;
}

type Finite = Extract<ExactNumber, { coefficient: bigint }>;

function isFinite(x: ExactNumber): x is Finite {
  return typeof x === "object" && "coefficient" in x;
}

/** The exact value of a number for decimal arithmetic: a double by its shortest decimal text. */
function decimalInput(v: unknown): ExactNumber {
  return numberKind(v) === "double" ? exactOfText(String(toNumber(v))) : exactOf(v);
}

function combineDecimals(op: Operation, a: unknown, b: unknown): Decimal128 {
  const x = decimalInput(a);
  const y = decimalInput(b);
  if (!isFinite(x) || !isFinite(y)) return decimalOfDouble(combineDoubles(op, toNumber(a), toNumber(b)));
  if (op === "multiply") return decimalOf(x.coefficient * y.coefficient, x.exponent + y.exponent);
  const exponent = Math.min(x.exponent, y.exponent);
  const scaled = (z: Finite) => z.coefficient * 10n ** BigInt(z.exponent - exponent);
  return decimalOf(op === "add" ? scaled(x) + scaled(y) : scaled(x) - scaled(y), exponent);
}

function decimalOf(coefficient: bigint, exponent: number): Decimal128 {
  return Decimal128.fromStringWithRounding(`${coefficient}E${exponent}`);
}

/** A NaN or an infinity (the results exact arithmetic has no digits for) as a Decimal128. */
function decimalOfDouble(x: number): Decimal128 {
  return Decimal128.fromString(Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : x < 0 ? "-Infinity" : "0");
}
