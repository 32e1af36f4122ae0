import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compareValues, keyOf } from "../store/values.ts";
import { combineNumbers, isWideNumber, LONG_OVERFLOW, numberKind } from "./number-arithmetic.ts";

/**
 * `$inc`, `$mul`, `$min` and `$max` on Long and Decimal128 values, and `$inc`/`$mul` of two
 * int32 values. mingo only does arithmetic on JS numbers (it left a Long unchanged, refused a
 * Long amount, and let int32 arithmetic overflow into a double), so for these the engine
 * computes the result with MongoDB's type rules and hands mingo a `$set` instead: two int32
 * values give an int32, or a Long past the int32 range; int32 and Long give a Long (an overflow
 * of the Long range is refused, as MongoDB refuses it); anything with a double gives a double,
 * anything with a Decimal128 a Decimal128 (exact, through BigInt). See number-arithmetic.ts.
 */

function arithmetic(op: "$inc" | "$mul", current: unknown, amount: unknown, path: string): unknown {
  const result = combineNumbers(op === "$inc" ? "add" : "multiply", current, amount);
  if (result !== LONG_OVERFLOW) return result;
  throw new CommandError(
    "BadValue",
    `Failed to apply ${op} operations to current value (${
      String(current)
    }) of field '${path}': the result overflows a 64-bit integer`,
  );
}

/** The value at a dotted path through embedded documents; `blocked` when an array or scalar is in the way. */
function valueAt(doc: Document, path: string): { value: unknown } | "blocked" {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (current === undefined) return { value: undefined };
    if (!isPlainObject(current)) return "blocked";
    current = current[part];
  }
  return { value: current };
}

/**
 * `$inc`/`$mul` of an int32 field by an int32 amount. mingo would compute it as a double (past
 * 2^31 the result was stored as a double, where MongoDB gives a Long, and 0 × -1 gave -0), so
 * the engine computes these too.
 */
function bothInt32(op: string, current: unknown, amount: unknown): boolean {
  return (op === "$inc" || op === "$mul") && numberKind(current) === "int" && numberKind(amount) === "int";
}

/** `$addToSet`'s values: `{$each: [...]}` or one value; undefined for a malformed `$each` (mingo refuses it). */
function valuesToAdd(arg: unknown): unknown[] | undefined {
  if (!isPlainObject(arg) || !("$each" in arg)) return [arg];
  return Array.isArray(arg.$each) && Object.keys(arg).length === 1 ? arg.$each : undefined;
}

/** True when an array or a value list holds a Long or a Decimal128. */
const holdsWide = (values: unknown): boolean => Array.isArray(values) && values.some(isWideNumber);

/**
 * `$addToSet` and `$pullAll` on an array or with values holding a Long or Decimal128, by
 * value: mingo compares those as objects, so `$addToSet` of 1 added a second element to
 * `[Long(1)]`, and `$pullAll` of `[1]` left it.
 */
function rewriteMembership(op: string, path: string, current: unknown, arg: unknown, set: Document): boolean {
  const values = op === "$pullAll" ? arg : valuesToAdd(arg);
  if (!Array.isArray(values) || (current !== undefined && !Array.isArray(current))) return false;
  if (!holdsWide(current) && !holdsWide(values)) return false;
  const list = (current ?? []) as unknown[];
  if (op === "$pullAll") {
    const pulled = new Set(values.map(keyOf));
    set[path] = list.filter((v) => !pulled.has(keyOf(v)));
    return true;
  }
  const present = new Set(list.map(keyOf));
  const added = values.filter((v) => !present.has(keyOf(v)) && present.add(keyOf(v)));
  set[path] = [...list, ...added];
  return true;
}

function rewriteField(doc: Document, op: string, path: string, amount: unknown, set: Document): boolean {
  if (path.includes("$")) return false;
  const at = valueAt(doc, path);
  if (at === "blocked") return false;
  const current = at.value;
  if (op === "$addToSet" || op === "$pullAll") return rewriteMembership(op, path, current, amount, set);
  if (!isWideNumber(current) && !isWideNumber(amount) && !bothInt32(op, current, amount)) return false;
  if (op === "$min" || op === "$max") {
    const c = current === undefined ? 0 : compareValues(amount, current);
    if (current === undefined || (op === "$min" ? c < 0 : c > 0)) set[path] = amount;
    return true;
  }
  // The operand types were checked before (update-checks.ts).
  const arith = op as "$inc" | "$mul";
  // A missing field counts as 0 ($inc) or becomes a zero of the multiplier's type ($mul).
  set[path] = current !== undefined
    ? arithmetic(arith, current, amount, path)
    : arith === "$inc"
    ? arithmetic(arith, 0, amount, path)
    : arithmetic(arith, amount, 0, path);
  return true;
}

/**
 * The modifier with every `$inc`/`$mul`/`$min`/`$max` on a Long or Decimal128 (field or amount),
 * and every `$addToSet`/`$pullAll` meeting one, turned into a `$set` of the computed result;
 * `doc` is the document before the update.
 * Fields reached through arrays or positional paths are left to mingo.
 */
export function settleWideNumbers(doc: Document, modifier: Document): Document {
  const out: Document = { ...modifier };
  const set: Document = {};
  for (const op of ["$inc", "$mul", "$min", "$max", "$addToSet", "$pullAll"]) {
    const fields = modifier[op];
    if (!isPlainObject(fields)) continue;
    const left: Document = {};
    for (const [path, amount] of Object.entries(fields)) {
      if (!rewriteField(doc, op, path, amount, set)) left[path] = amount;
    }
    if (Object.keys(left).length === Object.keys(fields).length) continue;
    if (Object.keys(left).length) out[op] = left;
    else delete out[op];
  }
  if (Object.keys(set).length) out.$set = { ...(isPlainObject(out.$set) ? out.$set : {}), ...set };
  return out;
}
