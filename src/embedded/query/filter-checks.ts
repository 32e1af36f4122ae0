import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { numberKind } from "./number-arithmetic.ts";
import { compileMongoRegex, decodedRegexOptions, queryRegex, RegexSyntaxError } from "./regex.ts";
import { setField } from "../field-names.ts";

/**
 * What MongoDB refuses in a filter, checked before mingo compiles it, `$comment` (which
 * MongoDB ignores and mingo refused) taken out, and regexes compiled as MongoDB reads them
 * (regex.ts). mingo matched nothing for a malformed `$size` or `$mod`, everything for
 * `{$and: []}`, and failed with an internal error on an invalid `$regex` or the `x` option;
 * each now gets MongoDB's answer. The filter is copied only where something changes.
 */
export function prepareFilter(filter: Document): Document {
  let prepared = filter;
  const replace = (key: string, value: unknown) => {
    if (prepared === filter) prepared = { ...filter };
    if (value === undefined) delete prepared[key];
    else setField(prepared, key, value);
  };
  for (const key in filter) {
    const value = filter[key];
    if (key === "$comment") replace(key, undefined);
    else if (key === "$and" || key === "$or" || key === "$nor") {
      const branches = preparedBranches(key, value);
      if (branches.some((branch, i) => branch !== value[i])) replace(key, branches);
    } else if (key.startsWith("$")) continue;
    else if (value instanceof RegExp) replace(key, queryRegex(value));
    else if (isPlainObject(value)) {
      const condition = prepareCondition(value);
      if (condition !== value) replace(key, condition);
    }
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

/** Query operators whose argument is a list that may hold regexes. */
const REGEX_LISTS = new Set(["$in", "$nin", "$all"]);

/**
 * A field's condition (`{$size: 2, $mod: [3, 1]}`, `{$regex: "^a", $options: "i"}`), checked,
 * with its regexes compiled. A document that is not a condition (`{a: 1}`) is returned as is.
 */
export function prepareCondition(condition: Document): Document {
  let prepared = condition;
  const replace = (op: string, value: unknown) => {
    if (prepared === condition) prepared = { ...condition };
    setField(prepared, op, value);
  };
  let regexDone = false;
  for (const op in condition) {
    const arg = condition[op];
    if (op === "$size") refuseSize(arg);
    else if (op === "$mod") refuseMod(arg);
    else if (op === "$regex" || op === "$options") {
      if (regexDone) continue; // both keys are read at the first one
      regexDone = true;
      replace("$regex", compileCondition(condition));
      delete prepared.$options;
    } else if (op === "$not" && arg instanceof RegExp) replace(op, queryRegex(arg));
    else if (op === "$not" && isPlainObject(arg)) {
      const inner = prepareCondition(arg);
      if (inner !== arg) replace(op, inner);
    } else if (op === "$elemMatch" && isPlainObject(arg)) {
      const inner = isConditionForm(arg) ? prepareCondition(arg) : prepareFilter(arg);
      if (inner !== arg) replace(op, inner);
    } else if (REGEX_LISTS.has(op) && Array.isArray(arg)) {
      const members = arg.map(preparedMember);
      if (members.some((member, i) => member !== arg[i])) replace(op, members);
    }
  }
  return prepared;
}

/** A member of `$in`/`$nin`/`$all`: a regex compiled, an `$all` member's `$elemMatch` prepared. */
function preparedMember(member: unknown): unknown {
  if (member instanceof RegExp) return queryRegex(member);
  if (isPlainObject(member) && isPlainObject(member.$elemMatch)) return prepareCondition(member);
  return member;
}

/** `$elemMatch: {$gt: 1}` tests elements themselves; `$elemMatch: {a: 1}` tests their fields. */
function isConditionForm(arg: Document): boolean {
  const first = Object.keys(arg)[0];
  return first !== undefined && first.startsWith("$") && !["$and", "$or", "$nor", "$expr"].includes(first);
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

/**
 * A condition's `$regex` with its `$options`, compiled. MongoDB reads the two in the order
 * they come, so options given twice are refused with the code of the second place they appear.
 */
function compileCondition(condition: Document): RegExp {
  let source: string | undefined;
  let flags = "";
  for (const key in condition) {
    const value = condition[key];
    if (key === "$regex") {
      if (typeof value === "string") source = value;
      else if (!(value instanceof RegExp)) throw new CommandError("BadValue", "$regex has to be a string");
      else {
        source = value.source;
        const own = decodedRegexOptions(value);
        if (own !== "" && flags !== "") {
          throw new CommandError("Location51074", "options set in both $regex and $options");
        }
        if (own !== "") flags = own;
      }
    } else if (key === "$options") {
      if (typeof value !== "string") throw new CommandError("BadValue", "$options has to be a string");
      if (flags !== "") throw new CommandError("Location51075", "options set in both $regex and $options");
      flags = value;
    }
  }
  if (source === undefined) throw new CommandError("BadValue", "$options needs a $regex");
  try {
    return compileMongoRegex(source, flags);
  } catch (error) {
    if (!(error instanceof RegexSyntaxError)) throw error;
    throw new CommandError("Location51091", `Regular expression is invalid: ${error.message}`);
  }
}
