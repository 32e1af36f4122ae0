import { Decimal128, type Document, Long } from "bson";
import { bsonTag, isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compareValues } from "../store/values.ts";
import { exactOfText } from "../store/exact-numbers.ts";

/**
 * `$inc`, `$mul`, `$min` and `$max` on Long and Decimal128 values. mingo only does arithmetic
 * on JS numbers (it left a Long unchanged and refused a Long amount), so where a field or an
 * amount is one of these, the engine computes the result with MongoDB's type rules and hands
 * mingo a `$set` instead: int32 and Long give a Long (an overflow of the Long range is refused,
 * as MongoDB refuses it), anything with a double gives a double, anything with a Decimal128 a
 * Decimal128 (exact, through BigInt).
 */

type Kind = "int" | "long" | "double" | "decimal";

function kindOf(v: unknown): Kind | undefined {
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) <= 2 ** 31 ? "int" : "double";
  const tag = bsonTag(v);
  if (tag === "Long") return "long";
  if (tag === "Decimal128") return "decimal";
  if (tag === "Int32") return "int";
  if (tag === "Double") return "double";
  return undefined;
}

const isWide = (v: unknown) => bsonTag(v) === "Long" || bsonTag(v) === "Decimal128";

/** A decimal as coefficient × 10^exponent. */
interface Exact {
  coefficient: bigint;
  exponent: number;
}

/** A number as coefficient × 10^exponent: a Long or Decimal128 exactly, a double as its shortest decimal text. */
function exact(v: unknown): Exact {
  const text = isWide(v) ? String(v) : String(toNumber(v));
  const value = exactOfText(text);
  if (value === "NaN" || "infinity" in value) {
    throw new CommandError("BadValue", `cannot do exact arithmetic on ${text}`);
  }
  return value;
}

function decimal(x: Exact): Decimal128 {
  return Decimal128.fromString(`${x.coefficient}E${x.exponent}`);
}

function combine(op: "$inc" | "$mul", a: Exact, b: Exact): Exact {
  if (op === "$mul") return { coefficient: a.coefficient * b.coefficient, exponent: a.exponent + b.exponent };
  const e = Math.min(a.exponent, b.exponent);
  const scale = (x: Exact) => x.coefficient * 10n ** BigInt(x.exponent - e);
  return { coefficient: scale(a) + scale(b), exponent: e };
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function arithmetic(op: "$inc" | "$mul", current: unknown, amount: unknown, path: string): unknown {
  const kinds = [kindOf(current), kindOf(amount)];
  if (kinds.includes("decimal")) return decimal(combine(op, exact(current), exact(amount)));
  if (kinds.includes("double")) {
    return op === "$inc" ? toNumber(current) + toNumber(amount) : toNumber(current) * toNumber(amount);
  }
  const result = combine(op, exact(current), exact(amount)).coefficient;
  if (result < LONG_MIN || result > LONG_MAX) {
    throw new CommandError(
      "BadValue",
      `Failed to apply ${op} operations to current value (${
        String(current)
      }) of field '${path}': the result overflows a 64-bit integer`,
    );
  }
  return Long.fromBigInt(result);
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

function rewriteField(doc: Document, op: string, path: string, amount: unknown, set: Document): boolean {
  if (path.includes("$")) return false;
  const at = valueAt(doc, path);
  if (at === "blocked") return false;
  const current = at.value;
  if (!isWide(current) && !isWide(amount)) return false;
  if (op === "$min" || op === "$max") {
    const c = current === undefined ? 0 : compareValues(amount, current);
    if (current === undefined || (op === "$min" ? c < 0 : c > 0)) set[path] = amount;
    return true;
  }
  if (kindOf(amount) === undefined) {
    throw new CommandError(
      "TypeMismatch",
      `Cannot ${op === "$inc" ? "increment" : "multiply"} with non-numeric argument: {${path}: ${String(amount)}}`,
    );
  }
  if (current !== undefined && kindOf(current) === undefined) {
    throw new CommandError("TypeMismatch", `Cannot apply ${op} to a value of non-numeric type: field '${path}'`);
  }
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
 * The modifier with every `$inc`/`$mul`/`$min`/`$max` on a Long or Decimal128 (field or amount)
 * turned into a `$set` of the computed result; `doc` is the document before the update.
 * Fields reached through arrays or positional paths are left to mingo.
 */
export function settleWideNumbers(doc: Document, modifier: Document): Document {
  const out: Document = { ...modifier };
  const set: Document = {};
  for (const op of ["$inc", "$mul", "$min", "$max"]) {
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
