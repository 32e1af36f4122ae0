import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { numberKind } from "./number-arithmetic.ts";

/**
 * What MongoDB refuses in a filter, checked before mingo compiles it, and `$comment` (which
 * MongoDB ignores and mingo refused) taken out. mingo matched nothing for a malformed `$size`
 * or `$mod`, everything for `{$and: []}`, and failed with an internal error on an invalid
 * `$regex`; each now gets MongoDB's error.
 */
export function prepareFilter(filter: Document): Document {
  let prepared = filter;
  const replace = (key: string, value: unknown) => {
    if (prepared === filter) prepared = { ...filter };
    if (value === undefined) delete prepared[key];
    else prepared[key] = value;
  };
  for (const key in filter) {
    const value = filter[key];
    if (key === "$comment") replace(key, undefined);
    else if (key === "$and" || key === "$or" || key === "$nor") {
      const branches = preparedBranches(key, value);
      if (branches.some((branch, i) => branch !== value[i])) replace(key, branches);
    } else if (!key.startsWith("$") && isPlainObject(value)) refuseOperatorArguments(value);
  }
  return prepared;
}

function preparedBranches(op: string, branches: unknown): Document[] {
  if (!Array.isArray(branches)) throw new CommandError("BadValue", `${op} must be an array`);
  if (branches.length === 0) throw new CommandError("BadValue", "$and/$or/$nor must be a nonempty array");
  return branches.map((branch) => {
    if (!isPlainObject(branch)) throw new CommandError("BadValue", "$or/$and/$nor entries need to be full objects");
    return prepareFilter(branch);
  });
}

/** The arguments of a field's operators (`{$size: 2, $mod: [3, 1]}`). */
function refuseOperatorArguments(condition: Document): void {
  for (const op in condition) {
    const arg = condition[op];
    if (op === "$size") refuseSize(arg);
    else if (op === "$mod") refuseMod(arg);
    else if (op === "$regex") refuseRegex(arg, condition.$options);
    else if (op === "$not" && isPlainObject(arg)) refuseOperatorArguments(arg);
  }
}

function refuseSize(arg: unknown): void {
  if (numberKind(arg) === undefined) throw new CommandError("BadValue", "$size needs a number");
  const size = toNumber(arg);
  if (!Number.isInteger(size)) throw new CommandError("BadValue", "$size must be a whole number");
  if (size < 0) throw new CommandError("BadValue", "$size may not be negative");
}

function refuseMod(arg: unknown): void {
  if (!Array.isArray(arg)) throw new CommandError("BadValue", "malformed mod, needs to be an array");
  if (arg.length < 2) throw new CommandError("BadValue", "malformed mod, not enough elements");
  if (arg.length > 2) throw new CommandError("BadValue", "malformed mod, too many elements");
  if (numberKind(arg[0]) === undefined) throw new CommandError("BadValue", "malformed mod, divisor not a number");
  if (numberKind(arg[1]) === undefined) throw new CommandError("BadValue", "malformed mod, remainder not a number");
  if (Math.trunc(toNumber(arg[0])) === 0) throw new CommandError("BadValue", "divisor cannot be 0");
}

/** MongoDB's regex options and the JS flags they become (`x` is handled by mingo). */
const REGEX_OPTIONS = new Set(["i", "m", "s", "x", "u"]);

function refuseRegex(pattern: unknown, options: unknown): void {
  if (typeof pattern !== "string") return; // a BSON regex arrives compiled
  const flags = typeof options === "string" ? options : "";
  const unknown = [...flags].find((flag) => !REGEX_OPTIONS.has(flag));
  if (unknown !== undefined) throw new CommandError("Location51108", `invalid flag in regex options: ${unknown}`);
  try {
    new RegExp(pattern, [...flags].filter((flag) => flag !== "x").join(""));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CommandError("Location51091", `Regular expression is invalid: ${reason}`);
  }
}
