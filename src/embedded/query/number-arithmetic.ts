import { Decimal128, Long } from "bson";
import { bsonTag, isPlainObject, toNumber } from "../bson.ts";
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

/** Whether a value is, or holds at any depth, a Long or a Decimal128. */
export function holdsWideNumber(v: unknown): boolean {
  if (isWideNumber(v)) return true;
  if (Array.isArray(v)) return v.some(holdsWideNumber);
  if (isPlainObject(v)) return Object.values(v).some(holdsWideNumber);
  return false;
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

/**
 * A number of any width whose value is whole, as a BigInt: what MongoDB takes as an index, a
 * count or an amount (`Long(2)`, `2.0`, `Decimal128("2.00")`). Undefined for fractions, NaN,
 * infinities and anything that is not a number.
 */
export function wholeNumber(v: unknown): bigint | undefined {
  const kind = numberKind(v);
  if (kind === undefined) return undefined;
  if (kind === "long") return (v as Long).toBigInt();
  if (kind !== "decimal") return Number.isInteger(toNumber(v)) ? BigInt(toNumber(v)) : undefined;
  const x = exactOf(v);
  if (!isFinite(x)) return undefined;
  if (x.exponent >= 0) return x.coefficient * 10n ** BigInt(x.exponent);
  const unit = 10n ** BigInt(-x.exponent);
  return x.coefficient % unit === 0n ? x.coefficient / unit : undefined;
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

/**
 * The square root of a non-negative Decimal128, rounded to its 34 digits: from an integer
 * square root of at least 40 digits, with a sticky last digit when it is not exact so that
 * the rounding never sees a false tie. An exact root takes the ideal exponent (half the
 * operand's, rounded down), as IEEE 754 decimal arithmetic gives it: sqrt(16) is 4, sqrt(16.00) 4.0.
 */
export function decimalSquareRoot(v: unknown): Decimal128 {
  const x = decimalInput(v);
  if (!isFinite(x)) return decimalOfDouble(Math.sqrt(toNumber(v)));
  const ideal = Math.floor(x.exponent / 2);
  if (x.coefficient === 0n) return decimalOf(0n, ideal);
  let coefficient = x.coefficient;
  let exponent = x.exponent;
  const pad = Math.max(0, 80 - String(coefficient).length);
  const shift = pad + ((exponent - pad) % 2 === 0 ? 0 : 1);
  coefficient *= 10n ** BigInt(shift);
  exponent -= shift;
  let root = integerSquareRoot(coefficient);
  let rootExponent = exponent / 2;
  if (root * root !== coefficient) return decimalOf(root * 10n + 1n, rootExponent - 1);
  while (rootExponent < ideal && root % 10n === 0n) {
    root /= 10n;
    rootExponent++;
  }
  return decimalOf(root, rootExponent);
}

function integerSquareRoot(n: bigint): bigint {
  // Newton's iteration from a power of two above the root decreases to the root's floor.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const next = (x + n / x) / 2n;
    if (next >= x) return x;
    x = next;
  }
}

/** Past this many digits an exact power is not worth computing: its double is used instead. */
const EXACT_POWER_DIGITS = 400;

/**
 * `base ^ exponent` with MongoDB's result types: two integers (int32 or Long) give an integer
 * when the exponent is not negative (an int32 if both are and it fits, else a Long, else a
 * double); a Decimal128 among them gives a Decimal128, exact for a whole exponent; otherwise
 * a double. Undefined for a zero base with a negative exponent, which MongoDB refuses.
 */
export function powerNumbers(base: unknown, exponent: unknown): unknown {
  const kind = widerKind(base, exponent);
  if (toNumber(base) === 0 && toNumber(exponent) < 0) return undefined;
  if (kind === "int" || kind === "long") {
    const integer = integerPower(integerOf(base), integerOf(exponent));
    if (integer === undefined) return Math.pow(toNumber(base), toNumber(exponent));
    if (kind === "int" && integer >= INT32_MIN && integer <= INT32_MAX) return Number(integer);
    return Long.fromBigInt(integer);
  }
  if (kind === "double") return Math.pow(toNumber(base), toNumber(exponent));
  return decimalPower(base, exponent);
}

/** An integer power within the Long range, or undefined (a negative exponent, or too large). */
function integerPower(base: bigint, exponent: bigint): bigint | undefined {
  if (base === 1n) return 1n;
  if (base === -1n) return exponent % 2n === 0n ? 1n : -1n;
  if (exponent < 0n) return undefined;
  if (base === 0n) return exponent === 0n ? 1n : 0n;
  if (exponent > 64n) return undefined;
  const result = base ** exponent;
  return result >= LONG_MIN && result <= LONG_MAX ? result : undefined;
}

function decimalPower(base: unknown, exponent: unknown): Decimal128 {
  const x = decimalInput(base);
  const power = toNumber(exponent);
  const digits = isFinite(x) ? String(x.coefficient).length : 0;
  if (!isFinite(x) || !Number.isInteger(power) || Math.abs(power) * digits > EXACT_POWER_DIGITS) {
    return decimalOfNumber(Math.pow(toNumber(base), power));
  }
  const coefficient = x.coefficient ** BigInt(Math.abs(power));
  const scale = x.exponent * Math.abs(power);
  const adjusted = scale + String(coefficient).length - 1;
  // Beyond Decimal128's exponents (which the library would clamp): the double's 0 or infinity.
  if (adjusted > 6144 || adjusted < -6176) return decimalOfNumber(Math.pow(toNumber(base), power));
  const magnitude = decimalOf(coefficient, scale);
  return power >= 0 ? magnitude : divideNumbers(Decimal128.fromString("1"), magnitude) as Decimal128;
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
