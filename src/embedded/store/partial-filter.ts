import type { Document } from "bson";
import { firstKey, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "../query/bson-types.ts";
import { valuesAt } from "./paths.ts";
import { compareValues, typeRank } from "./values.ts";

/**
 * Which documents a partial index covers, read from its `partialFilterExpression` with the
 * operators MongoDB allows there: equality (`field: value`, `$eq`), `$exists: true`, `$gt`,
 * `$gte`, `$lt`, `$lte`, `$type`, `$in`, and `$and`/`$or` of those. Anything else is refused
 * when the index is created, as MongoDB refuses it (code 67). Values compare in the engine's
 * BSON order within their type, as filters do; an array field matches by its elements.
 */
export type Coverage = (doc: Document) => boolean;

/** The coverage of a partial filter; throws CannotCreateIndex for an expression MongoDB does not allow. */
export function partialFilterCoverage(filter: unknown): Coverage {
  if (!isPlainObject(filter)) throw unsupported("partialFilterExpression must be a document");
  const parts = Object.entries(filter).map(([key, value]) => clause(key, value));
  return (doc) => parts.every((covers) => covers(doc));
}

function clause(key: string, value: unknown): Coverage {
  if (key === "$and" || key === "$or") {
    if (!Array.isArray(value) || value.length === 0) throw unsupported(`${key} must be a non-empty array`);
    const branches = value.map(partialFilterCoverage);
    return key === "$and" ? (doc) => branches.every((b) => b(doc)) : (doc) => branches.some((b) => b(doc));
  }
  if (key.startsWith("$")) throw unsupported(`Expression not supported in partial index: ${key}`);
  if (isPlainObject(value) && firstKey(value)?.startsWith("$")) {
    const tests = Object.entries(value).map(([op, arg]) => operator(key, op, arg));
    return (doc) => tests.every((test) => test(doc));
  }
  return operator(key, "$eq", value);
}

const ORDERED: Record<string, (c: number) => boolean> = {
  $gt: (c) => c > 0,
  $gte: (c) => c >= 0,
  $lt: (c) => c < 0,
  $lte: (c) => c <= 0,
};

function operator(path: string, op: string, arg: unknown): Coverage {
  const values = (doc: Document) => valuesAt(doc, path);
  if (op === "$eq") return (doc) => values(doc).some((v) => equal(v, checkedOperand(arg)));
  if (op === "$in") {
    if (!Array.isArray(arg)) throw unsupported("$in needs an array");
    const choices = arg.map(checkedOperand);
    return (doc) => values(doc).some((v) => choices.some((choice) => equal(v, choice)));
  }
  if (op === "$exists") {
    if (arg !== true && arg !== 1) throw unsupported("Expression not supported in partial index: $exists: false");
    return (doc) => values(doc).some((v) => v !== undefined);
  }
  if (op === "$type") {
    const names = (Array.isArray(arg) ? arg : [arg]).map((name) => {
      if (typeof name !== "string") throw unsupported("$type in a partial index takes type names");
      return name;
    });
    return (doc) => values(doc).some((v) => v !== undefined && names.some((name) => isType(v, name)));
  }
  const holds = ORDERED[op];
  if (holds === undefined) throw unsupported(`Expression not supported in partial index: ${op}`);
  const bound = checkedOperand(arg);
  return (doc) =>
    values(doc).some((v) => v !== undefined && typeRank(v) === typeRank(bound) && holds(compareValues(v, bound)));
}

function isType(value: unknown, name: string): boolean {
  const type = bsonTypeOf(value);
  return type === name || (name === "number" && ["int", "long", "double", "decimal"].includes(type));
}

/** Equality as a filter's: null also matches a missing field; otherwise same type rank and same value. */
function equal(value: unknown, operand: unknown): boolean {
  if (operand === null) return value === null || value === undefined;
  return value !== undefined && typeRank(value) === typeRank(operand) && compareValues(value, operand) === 0;
}

/** An operand the engine compares as MongoDB would here: arrays, documents and regexes are not taken. */
function checkedOperand(arg: unknown): unknown {
  if (Array.isArray(arg) || isPlainObject(arg) || arg instanceof RegExp) {
    throw new CommandError(
      "NotImplemented",
      "partial index filters on arrays, documents or regexes are not supported by the embedded engine",
    );
  }
  return arg;
}

function unsupported(message: string): CommandError {
  return new CommandError("CannotCreateIndex", message);
}
