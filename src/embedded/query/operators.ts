import type { Options, QueryOperator } from "mingo/types";
import { flatten, resolve } from "mingo/util";
import { CommandError } from "../errors.ts";
import type { Collation, StringCompare } from "../store/collation.ts";
import { compareValues, keyOf, typeRank, type ValueKey } from "../store/values.ts";

/**
 * The comparison query operators ($eq, $ne, $in, $nin, $gt, $gte, $lt, $lte), replacing
 * mingo's. Two reasons: mingo compares Long and Decimal128 values as objects (so `{n: 5}` missed
 * `n: Long(5)`), and it ignores a collation in filters. These compare with the engine's own
 * BSON order (numbers of every width by value, MongoDB's type bracketing for ranges) and
 * with the query's collation for strings, at any depth.
 */

type Test = (lhs: unknown, rhs: unknown, strings: StringCompare | undefined, depth: number) => boolean;

/** The string order of the collation mingo carries in its options (none: binary). */
function stringsOf(options: Options): StringCompare | undefined {
  const collation = (options as { collation?: Partial<Collation> }).collation;
  return typeof collation?.compare === "function" ? collation.compare : undefined;
}

function fieldOperator(
  test: Test,
  prepare: (rhs: unknown, strings: StringCompare | undefined) => unknown = (v) => v,
): QueryOperator {
  return ((selector: string, value: unknown, options: Options) => {
    const strings = stringsOf(options);
    const depth = selector.split(".").length - 1;
    const rhs = prepare(value, strings);
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

const isIn: Test = (a, list, strings, depth) => {
  const { regexes, keys, values } = list as InList;
  const matchesRegex = (v: unknown) => typeof v === "string" && regexes.some((re) => re.test(v));
  const hit = keys
    ? (v: unknown) => keys.has(keyOf(v)) || matchesRegex(v)
    : (v: unknown) => values.some((b) => compareValues(v, b, strings) === 0) || matchesRegex(v);
  return anyOf(a, depth, hit);
};

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

/** The operators, to register in mingo's context over its own. */
export const comparisonOperators: Record<string, QueryOperator> = {
  $eq: fieldOperator(equals),
  $ne: fieldOperator((a, b, s, d) => !equals(a, b, s, d)),
  $in: fieldOperator(isIn, prepareIn),
  $nin: fieldOperator((a, b, s, d) => !isIn(a, b, s, d), prepareIn),
  $gt: fieldOperator(range((c) => c > 0)),
  $gte: fieldOperator(range((c) => c >= 0)),
  $lt: fieldOperator(range((c) => c < 0)),
  $lte: fieldOperator(range((c) => c <= 0)),
};
