import type { Document } from "bson";
import { evalExpr, OpType } from "mingo/core";
import { type Iterator as LazyIterator, Lazy } from "mingo/lazy";
import * as mingoAccumulators from "mingo/operators/accumulator";
import * as mingoExpressions from "mingo/operators/expression";
import * as mingoPipeline from "mingo/operators/pipeline";
import type { Options, PipelineOperator } from "mingo/types";
import { resolve } from "mingo/util";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compareValues, keyOf, type ValueKey } from "../store/values.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { isWideNumber } from "./number-arithmetic.ts";
import { collationOf } from "./options-collation.ts";
import { counted, exceeded, groupMemory, lookupMemory, memoryLimits, MemoryTracker } from "./memory.ts";

/**
 * Stages and expressions that match values by equality, made to treat numbers of every width
 * as MongoDB does: `5`, `Long(5)` and `Decimal128("5.0")` are one `$group` key, a `$lookup`
 * from a `Long` field finds an int32 one, and `{$in: [5, [Long(5)]]}` is true. mingo hashes and
 * compares a Long or a Decimal128 as an object, so it kept them apart. Equality here is the
 * engine's `keyOf` (the key unique indexes use). `$sortByCount` and the `$addToSet` accumulator
 * group and deduplicate the same way.
 */

type Operator = (collection: LazyIterator, expr: Document, options: Options) => LazyIterator;
type Expression = (obj: unknown, expr: unknown, options: Options) => unknown;

const mingoGroup = (mingoPipeline as unknown as Record<string, Operator>).$group;
const mingoLookup = (mingoPipeline as unknown as Record<string, Operator>).$lookup;
const mingoPush = (mingoAccumulators as unknown as Record<string, (c: Document[], e: unknown, o: Options) => unknown[]>)
  .$push;

/** The expression operator {@link $group} computes its keys with: a group's `_id` as its key. */
const GROUP_KEY = "$__engineGroupKey";

interface GroupKeyArgument {
  id: unknown;
  /** Each key's `_id` as first computed, which the group reports (as MongoDB reports it). */
  firstIds: Map<ValueKey, unknown>;
}

function groupKey(obj: unknown, arg: unknown, options: Options): ValueKey {
  // Only $group below writes this operator (a client's pipeline cannot carry a Map).
  if (!isPlainObject(arg) || !((arg as Partial<GroupKeyArgument>).firstIds instanceof Map)) {
    throw new CommandError("InvalidPipelineOperator", `Unrecognized expression '${GROUP_KEY}'`);
  }
  const { id, firstIds } = arg as unknown as GroupKeyArgument;
  const value = evalExpr(obj, id, options) ?? null;
  const key = keyOf(value);
  if (!firstIds.has(key)) firstIds.set(key, value);
  return key;
}

/**
 * `$group`, with mingo grouping by each `_id`'s key instead of the value, then each group
 * given its `_id` back. A missing `_id` groups with null and is reported as null, as in
 * MongoDB. (mingo's `$firstN`-style `n` expressions see the key as the group's id.)
 */
export function $group(collection: LazyIterator, expr: Document, options: Options): LazyIterator {
  if (!isPlainObject(expr)) {
    throw new CommandError("Location15947", "a group's fields must be specified in an object");
  }
  // As MongoDB parses it: every output field first, then whether there is an _id.
  for (const field of Object.keys(expr)) if (field !== "_id") checkAccumulatorField(field, expr[field], options);
  if (!("_id" in expr)) {
    throw new CommandError("Location15955", "a group specification must include an _id");
  }
  const firstIds = new Map<ValueKey, unknown>();
  const keyed = { ...expr, _id: { [GROUP_KEY]: { id: expr._id, firstIds } } };
  // mingo holds each group's documents until the end: they are what the group's memory counts.
  return mingoGroup(counted(collection, groupMemory()), keyed, options).map((group) => {
    const { _id: key, ...fields } = group as Document;
    return { _id: firstIds.get(key as ValueKey) ?? null, ...fields };
  });
}

/** One output field of `$group`: an object naming one accumulator with one argument, checked in MongoDB's order. */
function checkAccumulatorField(field: string, spec: unknown, options: Options): void {
  const accumulator = isPlainObject(spec) ? Object.keys(spec)[0] : undefined;
  if (accumulator === undefined || !accumulator.startsWith("$")) {
    throw new CommandError("Location40234", `The field '${field}' must be an accumulator object`);
  }
  if (field.includes(".")) throw new CommandError("Location40235", `The field name '${field}' cannot contain '.'`);
  if (field.startsWith("$")) {
    throw new CommandError("Location40236", `The field name '${field}' cannot be an operator name`);
  }
  if (Object.keys(spec as Document).length !== 1) {
    throw new CommandError("Location40238", `The field '${field}' must specify one accumulator`);
  }
  if (Array.isArray((spec as Document)[accumulator])) {
    throw new CommandError("Location40237", `The ${accumulator} accumulator is a unary operator`);
  }
  if (!options.context.getOperator(OpType.ACCUMULATOR, accumulator)) {
    throw new CommandError("Location15952", `unknown group operator '${accumulator}'`);
  }
}

/** The values a path reaches, for equality: each element of an array, null when missing. */
export function valuesAt(doc: unknown, path: string): unknown[] {
  const value = resolve(doc as Document, path) ?? null;
  return Array.isArray(value) ? (value.length === 0 ? [] : value) : [value];
}

/** `$lookup`'s field arguments must be strings, and `as` is required (mingo failed with an internal error). */
function refuseLookupArguments(expr: Document): void {
  if (!isPlainObject(expr)) throw new CommandError("FailedToParse", "the $lookup specification must be an Object");
  for (const name of ["localField", "foreignField", "as"]) {
    const value = expr[name];
    if (value !== undefined && typeof value !== "string") {
      throw new CommandError(
        "FailedToParse",
        `$lookup argument '${name}: ${JSON.stringify(value)}' must be a string, is type ${bsonTypeOf(value)}`,
      );
    }
  }
  if (expr.as === undefined) throw new CommandError("FailedToParse", "must specify 'as' field for a $lookup");
}

/** Each key the documents hold at a path (every element of an array), with their positions. */
export function positionsByKey(docs: Document[], path: string): Map<ValueKey, number[]> {
  const byKey = new Map<ValueKey, number[]>();
  docs.forEach((doc, position) => {
    for (const key of new Set(valuesAt(doc, path).map(keyOf))) {
      const positions = byKey.get(key);
      if (positions) positions.push(position);
      else byKey.set(key, [position]);
    }
  });
  return byKey;
}

/**
 * `$lookup` by `localField`/`foreignField` (without a pipeline), matching by key. Matches
 * keep the joined collection's order. Every other form is mingo's.
 */
function $lookup(collection: LazyIterator, expr: Document, options: Options): LazyIterator {
  refuseLookupArguments(expr);
  const { from, localField, foreignField, as } = expr;
  if (expr.pipeline !== undefined || typeof localField !== "string" || typeof foreignField !== "string") {
    return mingoLookup(collection, expr, options);
  }
  const resolver = (options as { collectionResolver?: (name: string) => Document[] }).collectionResolver;
  const joined = typeof from === "string" && resolver ? resolver(from) : undefined;
  if (!Array.isArray(joined)) return mingoLookup(collection, expr, options);
  const byKey = positionsByKey(joined, foreignField);
  return collection.map((doc) => {
    const positions = new Set<number>();
    for (const value of valuesAt(doc, localField)) {
      for (const position of byKey.get(keyOf(value)) ?? []) positions.add(position);
    }
    const matches = [...positions].sort((a, b) => a - b).map((position) => joined[position]);
    const memory = lookupMemory(String(from));
    for (const match of matches) memory.addValue(match);
    return { ...(doc as Document), [as]: matches };
  });
}

const mingoIn = (mingoExpressions as unknown as Record<string, Expression>).$in;

/** `{$in: [value, array]}`, by key when a Long or Decimal128 is involved. */
function $in(obj: unknown, expr: unknown, options: Options): unknown {
  const args = evalExpr(obj, expr, options);
  if (!Array.isArray(args) || args.length !== 2 || !Array.isArray(args[1])) {
    return mingoIn(obj, expr, options);
  }
  const [item, list] = args as [unknown, unknown[]];
  if (!isWideNumber(item) && !list.some(isWideNumber)) {
    return mingoIn(obj, [{ $literal: item }, { $literal: list }], options);
  }
  const key = keyOf(item);
  return list.some((v) => keyOf(v) === key);
}

/** `$sortByCount`'s argument, checked with MongoDB's codes for each wrong shape. */
function refuseSortByCount(expr: unknown): void {
  if (isPlainObject(expr)) {
    const keys = Object.keys(expr);
    if (keys.length !== 1 || !keys[0].startsWith("$")) {
      throw new CommandError(
        "Location40147",
        "the sortByCount field must be specified as a $-prefixed path or as an expression",
      );
    }
  } else if (typeof expr === "string") {
    if (!expr.startsWith("$")) {
      throw new CommandError(
        "Location40148",
        "the sortByCount field must be defined as a $-prefixed path or an expression",
      );
    }
  } else {
    throw new CommandError(
      "Location40149",
      "the sortByCount field must be specified as a string or as an object",
    );
  }
}

/** `$sortByCount`: the engine's `$group` by the expression, counted, most frequent first. */
function $sortByCount(collection: LazyIterator, expr: Document, options: Options): LazyIterator {
  refuseSortByCount(expr);
  const counted = $group(collection, { _id: expr, count: { $sum: 1 } }, options);
  return counted.transform((groups) => Lazy((groups as Document[]).sort((a, b) => b.count - a.count)));
}

/** What {@link OR_MISSING} gives for a missing value: null and missing are told apart. */
const MISSING = Object.freeze({ missing: true });

/** The expression operator the accumulators wrap theirs in: the value, or {@link MISSING}. */
const OR_MISSING = "$__engineOrMissing";

/** Proof that an {@link OR_MISSING} call comes from the engine: no client's BSON can hold this object. */
const INTERNAL = Object.freeze({});

function orMissing(obj: unknown, arg: unknown, options: Options): unknown {
  if (!isPlainObject(arg) || arg.internal !== INTERNAL) {
    throw new CommandError("InvalidPipelineOperator", `Unrecognized expression '${OR_MISSING}'`);
  }
  const value = evalExpr(obj, arg.expr, options);
  return value === undefined ? MISSING : value;
}

/**
 * `$push` as an accumulator: a missing value is left out, as MongoDB leaves it out (mingo pushed
 * null). mingo's own `$push` evaluates each document with the right root; the value comes back
 * through {@link OR_MISSING}, evaluated once.
 */
function $push(collection: Document[], expr: unknown, options: Options): unknown[] {
  const limit = memoryLimits.push;
  const tracker = new MemoryTracker(
    () => limit,
    () => exceeded(`$push used too much memory and cannot spill to disk. Memory limit: ${limit} bytes`),
  );
  return pushed(collection, expr, options, tracker);
}

/**
 * The values of `expr` over a group's documents, missing ones left out, evaluated one document
 * at a time and counted by `tracker` as they come (accumulator_push.cpp), so that a `$push` past
 * its limit is refused before the group holds more.
 */
function pushed(collection: Document[], expr: unknown, options: Options, tracker?: MemoryTracker): unknown[] {
  const wrapped = { [OR_MISSING]: { internal: INTERNAL, expr } };
  const values: unknown[] = [];
  for (const doc of collection) {
    const [value] = mingoPush([doc], wrapped, options);
    if (value === MISSING) continue;
    tracker?.addValue(value);
    values.push(value);
  }
  return values;
}

/**
 * `$addToSet` as an accumulator: each value once, by value (`5` and `Long(5)` are one), missing
 * ones left out, in BSON order (under the collation): the order MongoDB's window function gives
 * (its values are a sorted multiset), and one a `$group` may give (its order is unspecified there).
 */
function $addToSet(collection: Document[], expr: unknown, options: Options): unknown[] {
  const strings = collationOf(options)?.compare;
  const seen = new Set<ValueKey>();
  const values: unknown[] = [];
  // Counted as they are added (accumulator_add_to_set.cpp): a value seen before adds nothing.
  const limit = memoryLimits.addToSet;
  const tracker = new MemoryTracker(
    () => limit,
    () => exceeded(`$addToSet used too much memory and cannot spill to disk. Memory limit: ${limit} bytes`),
  );
  for (const value of pushed(collection, expr, options)) {
    const key = keyOf(value);
    if (seen.has(key)) continue;
    seen.add(key);
    tracker.addValue(value);
    values.push(value);
  }
  values.sort((a, b) => compareValues(a, b, strings));
  if (!strings) return values;
  // Under a collation, values the collation calls equal ("a" and "A" at strength 2) are one.
  return values.filter((value, i) => i === 0 || compareValues(values[i - 1], value, strings) !== 0);
}

/** The stages, to register in mingo's context over its own. */
export const valueMatchingStages: Record<string, PipelineOperator> = {
  $group: $group as unknown as PipelineOperator,
  $lookup: $lookup as unknown as PipelineOperator,
  $sortByCount: $sortByCount as unknown as PipelineOperator,
};

/** The accumulators, to register in mingo's context over its own. */
export const valueMatchingAccumulators = { $addToSet, $push };

/** The expressions, to register in mingo's context over its own. */
export const valueMatchingExpressions: Record<string, Expression> = {
  $in,
  [GROUP_KEY]: groupKey,
  [OR_MISSING]: orMissing,
};
