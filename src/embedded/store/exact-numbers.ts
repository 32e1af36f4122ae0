import type { Decimal128, Long } from "bson";
import { bsonTag, toNumber } from "../bson.ts";

/**
 * Numbers compared by their exact values, as MongoDB compares a Decimal128 with a double, a
 * Long or another Decimal128: `Decimal128("0.1")` is below the double 0.1 (whose exact value is
 * 0.1000000000000000055...), and `Decimal128("1.10")` equals `Decimal128("1.1")`. Only values
 * whose nearest doubles are equal take the exact path; a double's exact value is finite in
 * decimal (m·2^-k = m·5^k·10^-k), so BigInt arithmetic settles every case.
 */

/** A finite number as coefficient × 10^exponent. */
interface Finite {
  coefficient: bigint;
  exponent: number;
}

/** A number's exact value: finite, an infinity (its sign), or NaN. */
export type ExactNumber = Finite | { infinity: 1 | -1 } | "NaN";

const float = new Float64Array(1);
const floatBits = new BigUint64Array(float.buffer);
const MANTISSA_MASK = (1n << 52n) - 1n;

/** A double's exact value: its mantissa m and binary exponent -k, as m·5^k·10^-k. */
function exactDouble(x: number): ExactNumber {
  if (x !== x) return "NaN";
  if (x === Infinity || x === -Infinity) return { infinity: x > 0 ? 1 : -1 };
  if (Number.isInteger(x)) return { coefficient: BigInt(x), exponent: 0 };
  float[0] = x;
  const bits = floatBits[0];
  const biased = Number((bits >> 52n) & 0x7ffn);
  const mantissa = (bits & MANTISSA_MASK) | (biased === 0 ? 0n : 1n << 52n);
  const k = 1075 - Math.max(biased, 1); // x = ±mantissa · 2^-k, k > 0 for a non-integer
  const magnitude = mantissa * 5n ** BigInt(k);
  return { coefficient: bits >> 63n ? -magnitude : magnitude, exponent: -k };
}

/**
 * The exact value a number's text states: a Decimal128's own digits ("1.10", "-1.5E+400",
 * "NaN", "-Infinity") or a JS number's shortest form ("0.1", "1e+21").
 */
export function exactOfText(text: string): ExactNumber {
  if (text === "NaN") return "NaN";
  if (text.endsWith("Infinity")) return { infinity: text.startsWith("-") ? -1 : 1 };
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (parts === null) throw new RangeError(`not a number: ${text}`);
  const fraction = parts[3] ?? "";
  return {
    coefficient: BigInt(`${parts[1]}${parts[2]}${fraction}`),
    exponent: Number(parts[4] ?? 0) - fraction.length,
  };
}

/** The exact value of any BSON number (JS number, Int32, Double, Long, Decimal128). */
export function exactOf(v: unknown): ExactNumber {
  const tag = bsonTag(v);
  if (tag === "Decimal128") return exactOfText((v as Decimal128).toString());
  if (tag === "Long") return { coefficient: BigInt((v as Long).toString()), exponent: 0 };
  return exactDouble(toNumber(v));
}

function compareFinite(a: Finite, b: Finite): number {
  const signA = a.coefficient > 0n ? 1 : a.coefficient < 0n ? -1 : 0;
  const signB = b.coefficient > 0n ? 1 : b.coefficient < 0n ? -1 : 0;
  if (signA !== signB || signA === 0) return signA - signB;
  const exponent = Math.min(a.exponent, b.exponent);
  const x = a.coefficient * 10n ** BigInt(a.exponent - exponent);
  const y = b.coefficient * 10n ** BigInt(b.exponent - exponent);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Where a value sits among NaN (lowest), -Infinity, finite numbers and +Infinity. */
function bandOf(v: ExactNumber): number {
  if (v === "NaN") return 0;
  return "infinity" in v ? 2 + v.infinity : 2;
}

/** Two exact numbers in MongoDB's order: NaN equals NaN and sorts below every number. */
export function compareExact(a: ExactNumber, b: ExactNumber): number {
  const band = bandOf(a) - bandOf(b);
  if (band !== 0) return band < 0 ? -1 : 1;
  return typeof a === "object" && "coefficient" in a ? compareFinite(a, b as Finite) : 0;
}

/**
 * Two numbers where one at least is a Decimal128, by exact value. Rounding to the nearest
 * double never reverses an order, so doubles that differ decide at once; equal ones (or NaN)
 * go to the exact values.
 */
export function compareWithDecimal(a: unknown, b: unknown): number {
  const x = toNumber(a), y = toNumber(b);
  if (x < y) return -1;
  if (x > y) return 1;
  return compareExact(exactOf(a), exactOf(b));
}

/**
 * A canonical key for a Long or Decimal128 whose value no double holds exactly: its exact
 * value without trailing zeros ("m11E-1" for 1.1 and 1.10 alike, "m9007199254740993E0" for
 * that Long and that Decimal128 alike). Undefined when a double holds the value: the double is
 * the key then, as for every other number.
 */
export function exactKey(v: unknown): string | undefined {
  const exact = exactOf(v);
  if (exact === "NaN" || "infinity" in exact) return undefined;
  if (compareExact(exact, exactDouble(toNumber(v))) === 0) return undefined;
  let { coefficient, exponent } = exact;
  while (coefficient % 10n === 0n) {
    coefficient /= 10n;
    exponent++;
  }
  return `m${coefficient}E${exponent}`;
}
