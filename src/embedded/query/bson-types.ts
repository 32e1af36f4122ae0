import type { Options, QueryOperator } from "mingo/types";
import { evalExpr } from "mingo/core";
import { bsonTag, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { nameTable } from "../field-names.ts";

/**
 * BSON types as MongoDB names them, for `$type` in filters, the `$type` and `$isNumber`
 * expressions and `$jsonSchema`'s `bsonType`. mingo's versions guess from JS types: they called
 * an int32 a `long`, a double a `decimal`, never matched a Long, a Decimal128 or an ObjectId,
 * and tested an array as a whole where MongoDB tests its elements too.
 *
 * The engine holds int32 and double values as JS numbers, so a number's type here is the one
 * the BSON serialiser will write it as: an int32 when it is a whole number in the int32 range
 * (and not -0), a double otherwise. That keeps `$type` consistent with what a client reads back.
 */

/** MongoDB's type aliases and their numeric codes. */
const TYPE_CODES: Readonly<Record<string, number>> = nameTable({
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
});

const ALIAS_OF_CODE = new Map(Object.entries(TYPE_CODES).map(([alias, code]) => [code, alias]));

/** The aliases the `number` alias stands for. */
const NUMBER_TYPES = ["int", "long", "double", "decimal"] as const;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** True when the BSON serialiser writes this JS number as an int32 (else as a double). */
export function isInt32Number(v: number): boolean {
  return Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX && !Object.is(v, -0);
}

const TYPE_OF_TAG: Readonly<Record<string, string>> = {
  ObjectId: "objectId",
  Long: "long",
  Decimal128: "decimal",
  Int32: "int",
  Double: "double",
  Binary: "binData",
  Timestamp: "timestamp",
  BSONRegExp: "regex",
  BSONSymbol: "symbol",
  MinKey: "minKey",
  MaxKey: "maxKey",
  // js-bson decodes a `{$ref, $id}` document as a DBRef; MongoDB stores and reports it as an object.
  DBRef: "object",
};

/** A value's BSON type alias, as the `$type` expression names it ("missing" when undefined). */
export function bsonTypeOf(v: unknown): string {
  switch (typeof v) {
    case "undefined":
      return "missing";
    case "number":
      return isInt32Number(v) ? "int" : "double";
    case "bigint":
      return "long";
    case "string":
      return "string";
    case "boolean":
      return "bool";
  }
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "date";
  if (v instanceof RegExp) return "regex";
  if (v instanceof Uint8Array) return "binData";
  const tag = bsonTag(v);
  if (tag === "Code") return (v as { scope?: unknown }).scope ? "javascriptWithScope" : "javascript";
  if (tag !== undefined) return TYPE_OF_TAG[tag] ?? "object";
  return "object";
}

/** True for the types `$isNumber` and the `number` alias accept. */
export function isBsonNumber(v: unknown): boolean {
  return (NUMBER_TYPES as readonly string[]).includes(bsonTypeOf(v));
}

/** One element of a `$type` operand (an alias or a numeric code) as the aliases it stands for. */
function aliasesOf(type: unknown): readonly string[] {
  if (typeof type === "string") {
    if (type === "number") return NUMBER_TYPES;
    if (TYPE_CODES[type] === undefined) throw new CommandError("BadValue", `Unknown type name alias: ${type}`);
    return [type];
  }
  if (typeof type === "number") {
    const alias = Number.isInteger(type) ? ALIAS_OF_CODE.get(type) : undefined;
    if (alias === undefined) throw new CommandError("BadValue", `Invalid numerical type code: ${type}`);
    return [alias];
  }
  throw new CommandError("BadValue", "type must be represented as a number or a string");
}

/** A `$type` operand (one alias or code, or a non-empty array of them) as a set of aliases. */
export function parseTypeSet(operand: unknown): ReadonlySet<string> {
  const list = Array.isArray(operand) ? operand : [operand];
  if (list.length === 0) throw new CommandError("BadValue", "$type must match at least one type");
  return new Set(list.flatMap(aliasesOf));
}

/**
 * Calls `visit` with each value a dotted path reaches, as MongoDB's matcher walks it: through
 * embedded documents, into every document of an array on the way (and to an element by a
 * numeric part), and at the end both each element of an array and the array itself. A
 * missing field is not visited, unless `missingIsNull` (for conditions null also meets): then a
 * path that ends early, or an array's document that lacks the rest of it, visits null, as
 * {"a.b": null} matches {a: [{b: 1}, {c: 1}]} through its second element. Stops when `visit`
 * returns true; returns whether it did.
 */
export function someAtPath(
  value: unknown,
  parts: readonly string[],
  visit: (v: unknown) => boolean,
  at = 0,
  missingIsNull = false,
): boolean {
  if (value === undefined) return missingIsNull && visit(null);
  if (at === parts.length) return (Array.isArray(value) && value.some(visit)) || visit(value);
  const part = parts[at];
  if (isPlainObject(value)) return someAtPath(value[part], parts, visit, at + 1, missingIsNull);
  if (!Array.isArray(value)) return missingIsNull && visit(null);
  if (/^\d+$/.test(part) && someAtPath(value[Number(part)], parts, visit, at + 1, missingIsNull)) return true;
  return value.some((element) =>
    isPlainObject(element) && someAtPath(element[part], parts, visit, at + 1, missingIsNull)
  );
}

/** The `$type` query operator. */
export const $typeQuery = ((selector: string, operand: unknown, _options: Options) => {
  const types = parseTypeSet(operand);
  const parts = selector.split(".");
  return (doc: Record<string, unknown>) => someAtPath(doc, parts, (v) => types.has(bsonTypeOf(v)));
}) as unknown as QueryOperator;

/** The single argument of a one-argument expression (`{$op: x}` or `{$op: [x]}`). */
function onlyArgument(name: string, expr: unknown): unknown {
  if (!Array.isArray(expr)) return expr;
  if (expr.length !== 1) {
    throw new CommandError(
      "Location16020",
      `Expression ${name} takes exactly 1 arguments. ${expr.length} were passed in.`,
    );
  }
  return expr[0];
}

/** The `$type` and `$isNumber` aggregation expressions. */
export const typeExpressions = {
  $type: (obj: unknown, expr: unknown, options: Options) =>
    bsonTypeOf(evalExpr(obj, onlyArgument("$type", expr), options)),
  $isNumber: (obj: unknown, expr: unknown, options: Options) =>
    isBsonNumber(evalExpr(obj, onlyArgument("$isNumber", expr), options)),
};
