import { evalExpr } from "mingo/core";
import * as mingoAccumulators from "mingo/operators/accumulator";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { isPlainObject, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { aliasName, isHazardousName, ownField, setField, unaliasName } from "../field-names.ts";

/**
 * The expressions that turn strings into field names or field names into strings, with names
 * such as `__proto__` and `constructor` kept fields. Inside mingo such names are spelled with a
 * suffix (field-names.ts `aliasName`, aliases.ts): a field name made from a string is spelled
 * so too, and a name given back as a string loses it. mingo's own versions assigned
 * `obj[k] = v` (a `__proto__` key set the object's prototype and was lost) and read
 * `input[field]` (`$getField: "toString"` gave a function). `$mergeObjects` is here too: it
 * refuses what is not a document as MongoDB does (mingo merged a string's characters).
 */

type Expression = (obj: unknown, expr: unknown, options: Options) => unknown;

const mingo = mingoExpressions as unknown as Record<string, Expression>;

/**
 * `$arrayToObject`: mingo's, given its pairs' names spelled as mingo's documents spell them.
 * Its argument is one expression, which a list of one stands for, as MongoDB parses it:
 * `{$arrayToObject: [[["a", 1], ["b", 2]]]}` is `{a: 1, b: 2}` (mingo read the list as the
 * pairs, and merged all of them into its first).
 */
function $arrayToObject(obj: unknown, expr: unknown, options: Options): unknown {
  const pairs = evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options);
  if (!Array.isArray(pairs)) return mingo.$arrayToObject(obj, { $literal: pairs }, options);
  const spelled = pairs.map((pair) => {
    if (isPlainObject(pair) && typeof pair.k === "string") return { ...pair, k: aliasName(pair.k) };
    if (!Array.isArray(pair)) return pair;
    // mingo flattens a pair one level before reading its name: `[["k", v]]` names "k" too.
    const [head, ...rest] = pair;
    if (typeof head === "string") return [aliasName(head), ...rest];
    if (Array.isArray(head) && typeof head[0] === "string") return [[aliasName(head[0]), ...head.slice(1)], ...rest];
    return pair;
  });
  return mingo.$arrayToObject(obj, { $literal: spelled }, options);
}

/** `$objectToArray`: mingo's, each `k` the field's name as the client spells it. */
function $objectToArray(obj: unknown, expr: unknown, options: Options): unknown {
  const pairs = mingo.$objectToArray(obj, expr, options);
  if (!Array.isArray(pairs)) return pairs;
  return pairs.map((pair: { k: string; v: unknown }) => ({ k: unaliasName(pair.k), v: pair.v }));
}

/** `$getField`: a field the input owns (`toString` is missing from a document without one). */
function $getField(obj: unknown, expr: unknown, options: Options): unknown {
  const args = evalExpr(obj, expr, options) as unknown;
  const { field, input } = typeof args === "string"
    ? { field: args, input: obj }
    : { field: (args as { field?: unknown })?.field, input: (args as { input?: unknown })?.input ?? obj };
  if (typeof field === "string" && isPlainObject(input)) return ownField(input, aliasName(field));
  // Not a document: mingo's answer, but `__proto__` of a string is not String.prototype.
  if (typeof field === "string" && isHazardousName(field)) return undefined;
  return mingo.$getField(obj, { $literal: args }, options);
}

/** `$setField` (and `$unsetField`): a copy of the input with the field set, as a field whatever its name. */
function $setField(obj: unknown, expr: unknown, options: Options): unknown {
  if (!isPlainObject(expr) || !("input" in expr && "field" in expr && "value" in expr)) {
    return mingo.$setField(obj, expr, options); // mingo's refusal of the arguments' shape
  }
  const input = evalExpr(obj, expr.input, options);
  const field = evalExpr(obj, expr.field, options);
  const removing = expr.value === "$$REMOVE";
  const value = removing ? undefined : evalExpr(obj, expr.value, options);
  if (!isPlainObject(input) || typeof field !== "string") {
    // mingo's answers: null for a null input, its errors for the wrong types.
    const literal = { input: { $literal: input }, field: { $literal: field }, value: { $literal: value } };
    return mingo.$setField(obj, literal, options);
  }
  const out = { ...input };
  const name = aliasName(field);
  if (removing) delete out[name];
  else setField(out, name, value);
  return out;
}

const mingoPush = (mingoAccumulators as unknown as Record<string, (c: unknown[], e: unknown, o: Options) => unknown[]>)
  .$push;

/**
 * `$mergeObjects`, as an expression (`{$mergeObjects: [a, b]}` or `{$mergeObjects: "$a"}`) and
 * as mingo calls it in a `$group` (with the group's documents): null and missing operands are
 * skipped, anything else that is not a document refused (40400), later fields winning.
 */
function $mergeObjects(obj: unknown, expr: unknown, options: Options): unknown {
  const operands = Array.isArray(obj)
    ? mingoPush(obj, expr, options)
    : Array.isArray(expr)
    ? expr.map((operand) => evalExpr(obj, operand, options))
    : [evalExpr(obj, expr, options)];
  const out: Record<string, unknown> = {};
  for (const operand of operands) {
    if (operand === null || operand === undefined) continue;
    if (!isPlainObject(operand)) {
      throw new CommandError(
        "Location40400",
        `$mergeObjects requires object inputs, but input ${valueText(operand)} is of type ${bsonTypeOf(operand)}`,
      );
    }
    for (const name of Object.keys(operand)) if (operand[name] !== undefined) setField(out, name, operand[name]);
  }
  return out;
}

function $unsetField(obj: unknown, expr: unknown, options: Options): unknown {
  return $setField(obj, isPlainObject(expr) ? { ...expr, value: "$$REMOVE" } : expr, options);
}

/** The expressions, to register in mingo's context over its own. */
export const fieldExpressions: Record<string, Expression> = {
  $arrayToObject,
  $objectToArray,
  $getField,
  $setField,
  $unsetField,
  $mergeObjects,
};
