import type { Options, QueryOperator } from "mingo/types";
import * as mingoQueryOperators from "mingo/operators/query";
import { flatten, resolve } from "mingo/util";
import { bsonTag, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { StringCompare } from "../store/collation.ts";
import { compareValues, keyOf, typeRank, type ValueKey } from "../store/values.ts";
import { someAtPath } from "./bson-types.ts";
import { numberKind } from "./number-arithmetic.ts";
import { collationOf } from "./options-collation.ts";

/**
 * The comparison query operators ($eq, $ne, $in, $nin, $gt, $gte, $lt, $lte), replacing
 * mingo's. Two reasons: mingo compares Long and Decimal128 values as objects (so `{n: 5}` missed
 * `n: Long(5)`), and it ignores a collation in filters. These compare with the engine's own
 * BSON order (numbers of every width by value, MongoDB's type bracketing for ranges) and
 * with the query's collation for strings, at any depth.
 */

type Test = (lhs: unknown, rhs: unknown, strings: StringCompare | undefined, depth: number) => boolean;

/**
 * A test of one value a dotted path reaches, for a condition that does not involve null
 * (null also matches a missing field, which mingo's resolution handles); undefined otherwise.
 */
type LeafTest = (rhs: unknown, strings: StringCompare | undefined) => ((v: unknown) => boolean) | undefined;

function isIndex(part: string): boolean {
  return /^\d+$/.test(part);
}

function fieldOperator(
  test: Test,
  prepare: (rhs: unknown, strings: StringCompare | undefined) => unknown = (v) => v,
  leaf?: { test: LeafTest; negated: boolean; nullTest?: LeafTest },
): QueryOperator {
  return ((selector: string, value: unknown, options: Options) => {
    const strings = collationOf(options)?.compare;
    const parts = selector.split(".");
    const depth = parts.length - 1;
    const rhs = prepare(value, strings);
    // A dotted path is walked as MongoDB walks it: mingo's resolution also descended into an
    // array directly inside an array, so {"a.k": 2} matched {a: [[1, 2]]}.
    const atLeaf = depth > 0 ? leaf?.test(rhs, strings) : undefined;
    if (atLeaf) {
      const negated = leaf!.negated;
      return (obj: Record<string, unknown>) => someAtPath(obj, parts, atLeaf) !== negated;
    }
    const withNull = depth > 0 && !parts.some(isIndex) ? leaf?.nullTest?.(rhs, strings) : undefined;
    if (withNull) {
      const negated = leaf!.negated;
      return (obj: Record<string, unknown>) => someAtPath(obj, parts, withNull, 0, true) !== negated;
    }
    return (obj: Record<string, unknown>) => test(resolve(obj, selector, { unwrapArray: true }), rhs, strings, depth);
  }) as unknown as QueryOperator;
}

/** True when `a` (or one of its elements, as MongoDB matches arrays) satisfies `hit`. */
function anyOf(a: unknown, depth: number, hit: (v: unknown) => boolean): boolean {
  if (hit(a)) return true;
  if (!Array.isArray(a)) return false;
  return a.some(hit) || (depth > 0 && flatten(a, depth).some(hit));
}

const equals: Test = (a, b, strings, depth) => anyOf(a, depth, (v) => compareValues(v, b, strings) === 0);

/** A prepared `$in` list: a set of exact keys when order is binary, else the values. */
interface InList {
  regexes: RegExp[];
  keys?: Set<ValueKey>;
  values: unknown[];
}

function prepareIn(list: unknown, strings: StringCompare | undefined): InList {
  if (!Array.isArray(list)) throw new CommandError("BadValue", "$in needs an array");
  const regexes = list.filter((v): v is RegExp => v instanceof RegExp);
  const values = list.filter((v) => !(v instanceof RegExp));
  return { regexes, values, keys: strings ? undefined : new Set(values.map(keyOf)) };
}

function inListTest(list: InList, strings: StringCompare | undefined): (v: unknown) => boolean {
  const { regexes, keys, values } = list;
  const matchesRegex = (v: unknown) => typeof v === "string" && regexes.some((re) => re.test(v));
  return keys
    ? (v: unknown) => keys.has(keyOf(v)) || matchesRegex(v)
    : (v: unknown) => values.some((b) => compareValues(v, b, strings) === 0) || matchesRegex(v);
}

const isIn: Test = (a, list, strings, depth) => anyOf(a, depth, inListTest(list as InList, strings));

const equalsAtLeaf: LeafTest = (b, strings) => b === null ? undefined : (v) => compareValues(v, b, strings) === 0;

const inListAtLeaf: LeafTest = (list, strings) =>
  (list as InList).values.includes(null) ? undefined : inListTest(list as InList, strings);

/** The leaf tests of conditions met by null (and so by a missing field). */
const equalsNullAtLeaf: LeafTest = (b, strings) => b === null ? (v) => compareValues(v, b, strings) === 0 : undefined;

const inListWithNullAtLeaf: LeafTest = (list, strings) =>
  (list as InList).values.includes(null) ? inListTest(list as InList, strings) : undefined;

/** `$gte: null` and `$lte: null` hold for null alone (the bracket of null is null). */
const boundedByNullAtLeaf: LeafTest = (b) => b === null ? (v) => v === null || v === undefined : undefined;

function rangeAtLeaf(accept: (c: number) => boolean): LeafTest {
  return (b, strings) => {
    if (b === null) return undefined;
    const rank = typeRank(b);
    return (v) => typeRank(v) === rank && accept(compareValues(v, b, strings));
  };
}

const ARRAY_RANK = typeRank([]);

function range(accept: (c: number) => boolean): Test {
  return (a, b, strings, depth) => {
    const rank = typeRank(b);
    // A scalar (the common case, tested for every document read) is compared without a closure.
    if (!Array.isArray(a)) return typeRank(a) === rank && accept(compareValues(a, b, strings));
    // Against an array, an array field is also compared whole, as MongoDB compares it (a dotted
    // path's values are gathered into an array by resolve, which is not a field to compare whole).
    if (rank === ARRAY_RANK && depth === 0 && accept(compareValues(a, b, strings))) return true;
    return a.some((v) => typeRank(v) === rank && accept(compareValues(v, b, strings)));
  };
}

/**
 * `$mod` (its arguments checked by filter-checks.ts): only numbers match, truncated to integers
 * like the divisor and remainder (MongoDB's ModMatchExpression); mingo's JS `%` also matched
 * the string "1". Integers beyond 2^53 (Longs) are divided exactly.
 */
function modOf(spec: unknown): (v: unknown) => boolean {
  const [divisor, remainder] = (spec as unknown[]).map(truncated);
  return (v) => {
    if (numberKind(v) === undefined) return false;
    const n = truncated(v);
    return typeof n === "bigint" || typeof divisor === "bigint"
      ? BigInt(n) % BigInt(divisor) === BigInt(remainder)
      : n % divisor === remainder;
  };
}

/** A number truncated to an integer: a Long beyond 2^53 as a bigint. */
function truncated(v: unknown): number | bigint {
  const n = Math.trunc(toNumber(v));
  if (Number.isSafeInteger(n) || bsonTag(v) !== "Long") return Number.isFinite(n) ? n : 0;
  return BigInt(String(v));
}

const mod: Test = (a, spec, _strings, depth) => anyOf(a, depth, modOf(spec));

const mingoExists = (mingoQueryOperators as unknown as Record<
  string,
  (selector: string, value: unknown, options: Options) => (obj: Record<string, unknown>) => boolean
>).$exists;

/**
 * `$exists` on a dotted path walks it as MongoDB does ({@link someAtPath}): mingo's also
 * descended into an array directly inside an array, so {"a.b": {$exists: false}} missed
 * {a: [[{c: 1}]]}. A top-level field keeps mingo's test.
 */
const $exists = ((selector: string, value: unknown, options: Options) => {
  if (!selector.includes(".")) return mingoExists(selector, value, options);
  const parts = selector.split(".");
  const wanted = !!value;
  return (obj: Record<string, unknown>) => someAtPath(obj, parts, () => true) === wanted;
}) as unknown as QueryOperator;

/** The operators, to register in mingo's context over its own. */
export const comparisonOperators: Record<string, QueryOperator> = {
  $eq: fieldOperator(equals, undefined, { test: equalsAtLeaf, negated: false, nullTest: equalsNullAtLeaf }),
  $ne: fieldOperator((a, b, s, d) => !equals(a, b, s, d), undefined, {
    test: equalsAtLeaf,
    negated: true,
    nullTest: equalsNullAtLeaf,
  }),
  $in: fieldOperator(isIn, prepareIn, { test: inListAtLeaf, negated: false, nullTest: inListWithNullAtLeaf }),
  $nin: fieldOperator((a, b, s, d) => !isIn(a, b, s, d), prepareIn, {
    test: inListAtLeaf,
    negated: true,
    nullTest: inListWithNullAtLeaf,
  }),
  $gt: fieldOperator(range((c) => c > 0), undefined, { test: rangeAtLeaf((c) => c > 0), negated: false }),
  $gte: fieldOperator(range((c) => c >= 0), undefined, {
    test: rangeAtLeaf((c) => c >= 0),
    negated: false,
    nullTest: boundedByNullAtLeaf,
  }),
  $lt: fieldOperator(range((c) => c < 0), undefined, { test: rangeAtLeaf((c) => c < 0), negated: false }),
  $lte: fieldOperator(range((c) => c <= 0), undefined, {
    test: rangeAtLeaf((c) => c <= 0),
    negated: false,
    nullTest: boundedByNullAtLeaf,
  }),
  $mod: fieldOperator(mod, undefined, { test: modOf, negated: false }),
  $exists,
};
