import type { Document, Long } from "bson";
import { bsonTag, isPlainObject, toNumber, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { isBsonNumber } from "./bson-types.ts";
import type { ReadSpec } from "./plan.ts";

// The leading stages of a pipeline that the engine answers itself, as an indexed read or a
// count, before mingo runs the rest. Shared by aggregate, explain and views.

const INT64_LIMIT = 2 ** 63;

/**
 * Why a `$skip` or `$limit` argument is not a whole non-negative int64, in MongoDB's words and
 * order of checks; undefined when it is. An int64 is read exactly, a Decimal128 must be an
 * exact integer, a double must not be NaN, infinite or fractional.
 */
function countArgumentProblem(value: unknown): string | undefined {
  if (!isBsonNumber(value)) return "Expected a number in:";
  const tag = bsonTag(value);
  if (tag === "Long") return (value as Long).isNegative() ? "Expected a non-negative number in:" : undefined;
  const n = toNumber(value);
  if (tag === "Decimal128" && !(Number.isInteger(n) && Math.abs(n) < INT64_LIMIT)) {
    return "Cannot represent as a 64-bit integer:";
  }
  if (Number.isNaN(n)) return "Expected an integer, but found NaN in:";
  if (n >= INT64_LIMIT || n < -INT64_LIMIT) return "Cannot represent as a 64-bit integer:";
  if (!Number.isInteger(n)) return "Expected an integer:";
  return n < 0 ? "Expected a non-negative number in:" : undefined;
}

/**
 * Checks the arguments of a pipeline's `$skip`, `$limit` and `$match` stages as MongoDB does
 * (5107200, 5107201, 15958, 15959), before the engine folds them into a read or a count, and
 * those of the pipelines nested in its `$lookup`, `$unionWith` and `$facet` stages (mingo's own
 * checks answered 2 there).
 */
export function checkCountingStages(pipeline: readonly Document[]): void {
  for (const stage of pipeline) {
    for (const [name, code] of [["$skip", "Location5107200"], ["$limit", "Location5107201"]] as const) {
      if (!(name in stage)) continue;
      const problem = countArgumentProblem(stage[name]);
      if (problem) {
        throw new CommandError(
          code,
          `invalid argument to ${name} stage: ${problem} ${name}: ${valueText(stage[name])}`,
        );
      }
      if (name === "$limit" && toNumber(stage[name]) === 0) {
        throw new CommandError("Location15958", "the limit must be positive");
      }
    }
    if ("$match" in stage && !isPlainObject(stage.$match)) {
      throw new CommandError("Location15959", "the match filter must be an expression in an object");
    }
    for (const nested of nestedPipelines(stage)) checkCountingStages(nested);
  }
}

/** The pipelines inside a `$lookup`, `$unionWith` or `$facet` stage, which MongoDB parses with it. */
export function nestedPipelines(stage: Document): Document[][] {
  const argument = stage.$lookup ?? stage.$unionWith ?? stage.$facet;
  if (!isPlainObject(argument)) return [];
  const candidates = "$facet" in stage ? Object.values(argument) : [argument.pipeline];
  return candidates.filter((pipeline): pipeline is Document[] =>
    Array.isArray(pipeline) && pipeline.every(isPlainObject)
  );
}

/** A `$group` key that is the same for every document: null, missing, or a value that is not a path, an array or a document. */
function isConstantKey(id: unknown): boolean {
  if (typeof id === "string") return !id.startsWith("$");
  return !Array.isArray(id) && !isPlainObject(id);
}

/** `[$match?, $skip?, $limit?, {$group: {_id: const, n: {$sum: 1}}}]`: the driver's countDocuments. */
export function countShape(pipeline: Document[]): { spec: ReadSpec; group: Document } | undefined {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  if (i !== pipeline.length - 1 || !isPlainObject(pipeline[i].$group)) return undefined;
  const group = pipeline[i].$group as Document;
  const fields = Object.keys(group);
  const constantId = isConstantKey(group._id);
  // A name $group refuses (dotted, or an operator's) goes the long way, to be refused there.
  const plainName = fields.length === 2 && !fields[1].includes(".") && !fields[1].startsWith("$");
  const counter = plainName && fields[0] === "_id" ? group[fields[1]] : undefined;
  if (!constantId || !isPlainObject(counter) || Object.keys(counter).length !== 1) return undefined;
  if (toNumber((counter as Document).$sum) !== 1) return undefined;
  return { spec, group };
}

/** Folds a leading `$match`, `$sort`, `$skip`, `$limit` into an indexed, streaming read. */
export function leadingRead(pipeline: Document[]): { spec: ReadSpec; rest: Document[] } {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$sort !== undefined) spec.sort = pipeline[i++].$sort;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  return { spec, rest: pipeline.slice(i) };
}
