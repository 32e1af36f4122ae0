import { type Binary, type Long, Long as LongClass, type ObjectId, type Timestamp } from "bson";
import { bsonTag, isPlainObject, toNumber } from "../bson.ts";
import type { StringCompare } from "./collation.ts";
import { compareWithDecimal, exactKey } from "./exact-numbers.ts";
import { compareStrings } from "./strings.ts";

/**
 * The key an empty array gives an index entry or a sort: MongoDB keys `[]` as BSON undefined,
 * which sorts after MinKey and before null (manual, "Comparison/Sort Order": an empty array is
 * less than null or a missing field), so a unique index holds one `{a: []}` and one `{}`.
 */
export const EMPTY_ARRAY_KEY: unique symbol = Symbol("undefined");

/** Rank of each BSON type in MongoDB's cross-type comparison order (null and missing: 2, an empty array's key: 1.5). */
export function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 2;
  if (v === EMPTY_ARRAY_KEY) return 1.5;
  switch (typeof v) {
    case "number":
    case "bigint":
      return 3;
    case "string":
      return 4;
    case "boolean":
      return 9;
  }
  if (Array.isArray(v)) return 6;
  if (v instanceof Date) return 10;
  if (v instanceof RegExp) return 12;
  switch (bsonTag(v)) {
    case "MinKey":
      return 1;
    case "Long":
    case "Int32":
    case "Double":
    case "Decimal128":
      return 3;
    case "BSONSymbol":
      return 4;
    case "Binary":
      return 7;
    case "ObjectId":
      return 8;
    case "Timestamp":
      return 11;
    case "BSONRegExp":
      return 12;
    case "MaxKey":
      return 13;
    case "Code":
      return 14;
  }
  return 5;
}

function cmp<T>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Two numbers known not to be NaN, in order (the shortcut of readers comparing raw BSON). */
export function compareNonNaN(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two JS numbers in MongoDB's order, where NaN equals NaN and sorts below every number. */
function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : 1;
}

/** A Long against a JS number, exactly when the number is an integer a Long can hold. */
function compareLongToNumber(a: Long, b: number): number {
  if (Number.isInteger(b) && Math.abs(b) < 2 ** 63) return a.compare(LongClass.fromNumber(b));
  return compareDoubles(a.toNumber(), b);
}

function compareNumbers(a: unknown, b: unknown): number {
  const ta = bsonTag(a);
  const tb = bsonTag(b);
  if (ta === "Decimal128" || tb === "Decimal128") return compareWithDecimal(a, b);
  if (ta === "Long" && tb === "Long") return (a as Long).compare(b as Long);
  if (ta === "Long" && typeof b === "number") return compareLongToNumber(a as Long, b);
  if (tb === "Long" && typeof a === "number") return -compareLongToNumber(b as Long, a);
  return compareDoubles(toNumber(a), toNumber(b));
}

function compareDocuments(a: Record<string, unknown>, b: Record<string, unknown>, strings?: StringCompare): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const byType = typeRank(a[ka[i]]) - typeRank(b[kb[i]]);
    if (byType !== 0) return byType;
    const byName = compareStrings(ka[i], kb[i]);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[ka[i]], b[kb[i]], strings);
    if (byValue !== 0) return byValue;
  }
  return ka.length - kb.length;
}

function compareArrays(a: unknown[], b: unknown[], strings?: StringCompare): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i], strings);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function compareSameRank(rank: number, a: unknown, b: unknown, strings?: StringCompare): number {
  switch (rank) {
    case 1:
    case 1.5:
    case 2:
    case 13:
      return 0; // MinKey, an empty array's key, null and missing, MaxKey: one value each
    case 3:
      return compareNumbers(a, b);
    case 4:
      return strings ? strings(String(a), String(b)) : compareStrings(String(a), String(b));
    case 5:
      return compareDocuments(a as Record<string, unknown>, b as Record<string, unknown>, strings);
    case 6:
      return compareArrays(a as unknown[], b as unknown[], strings);
    case 7: {
      const [x, y] = [a as Binary, b as Binary];
      return x.length() - y.length() || x.sub_type - y.sub_type || compareBytes(x.buffer, y.buffer);
    }
    case 8:
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case 9:
      return cmp(a as boolean, b as boolean);
    case 10:
      return cmp((a as Date).getTime(), (b as Date).getTime());
    case 11:
      return (a as Timestamp).compare(b as Timestamp);
  }
  return cmp(String(a), String(b));
}

/**
 * Compares two values in MongoDB's BSON order (numbers of any width compare by value, then
 * strings, documents, arrays, binaries, ObjectIds, booleans, dates...). Used for `_id` order,
 * sorting, index keys and filters; mingo's own comparison orders Longs as objects, hence this
 * one. `strings`, a collation's order, replaces binary order for strings at any depth.
 */
export function compareValues(a: unknown, b: unknown, strings?: StringCompare): number {
  if (typeof a === "number" && typeof b === "number") {
    return a < b ? -1 : a > b ? 1 : a === b ? 0 : compareDoubles(a, b);
  }
  if (typeof a === "string" && typeof b === "string") return strings ? strings(a, b) : compareStrings(a, b);
  const ra = typeRank(a);
  const rb = typeRank(b);
  return ra !== rb ? ra - rb : compareSameRank(ra, a, b, strings);
}

/** A Map key for a value: JS numbers (and int64/decimal equal to one) map to themselves. */
export type ValueKey = number | string;

/** A number's key: the double when it holds the value exactly, otherwise the exact value's text. */
function numericKey(v: unknown): ValueKey {
  const n = toNumber(v);
  const tag = bsonTag(v);
  const wide = tag === "Decimal128" || (tag === "Long" && !Number.isSafeInteger(n));
  return (wide ? exactKey(v) : undefined) ?? (n === 0 ? 0 : n);
}

function encode(v: unknown): string {
  const k = keyOf(v);
  return typeof k === "number" ? "d" + String(k) : typeof v === "string" ? JSON.stringify(v) : k;
}

/** Whether two canonical keys (see {@link keyOf}) are one key, as a Map would tell: NaN is one value. */
export function sameValueKey(a: ValueKey, b: ValueKey): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * A canonical key for a value, equal for values MongoDB treats as equal in an index
 * (1, 1.0 and Long(1) agree; null and missing agree). Used by unique indexes and write sets.
 */
export function keyOf(v: unknown): ValueKey {
  if (typeof v === "number") return v === 0 ? 0 : v;
  if (typeof v === "string") return "s" + v;
  if (v === undefined || v === null) return "n";
  if (v === EMPTY_ARRAY_KEY) return "u";
  if (typeof v === "boolean") return v ? "b1" : "b0";
  if (v instanceof Date) return "t" + v.getTime();
  if (v instanceof RegExp) return "r/" + v.source + "/" + v.flags;
  if (Array.isArray(v)) return "[" + v.map(encode).join(",") + "]";
  if (isPlainObject(v)) {
    return "{" + Object.keys(v).map((k) => JSON.stringify(k) + ":" + encode(v[k])).join(",") + "}";
  }
  const tag = bsonTag(v);
  switch (tag) {
    case "ObjectId":
      return "o" + (v as ObjectId).toHexString();
    case "Long":
    case "Int32":
    case "Double":
    case "Decimal128":
      return numericKey(v);
    case "Binary":
      return "x" + (v as Binary).sub_type + ":" + (v as Binary).toString("base64");
  }
  return "?" + String(tag) + ":" + JSON.stringify(v);
}

/**
 * Whether two values are the same BSON value, type and digits included: unlike
 * {@link compareValues} and {@link keyOf}, `Long(5)` is not `5` and `Decimal128("1.10")` is
 * not `Decimal128("1.1")`. An update that changes only such a detail still writes and counts
 * as modified, as MongoDB's does. (int32 and double are both JS numbers here, so they cannot
 * differ by type; -0 and 0 do differ, as their bytes do.)
 */
export function identicalValues(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") return typeof a === typeof b && Object.is(a, b);
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => identicalValues(x, b[i]));
  if (isPlainObject(a)) return isPlainObject(b) && identicalDocuments(a, b);
  if (a instanceof Date) return b instanceof Date && Object.is(a.getTime(), b.getTime());
  const tag = bsonTag(a);
  if (tag !== bsonTag(b) || a.constructor !== b.constructor) return false;
  return keyOf(a) === keyOf(b) && (tag !== "Decimal128" || String(a) === String(b));
}

function identicalDocuments(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keysA = Object.keys(a), keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((key, i) => key === keysB[i] && identicalValues(a[key], b[key]));
}
