import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { StringCompare } from "../store/collation.ts";
import { compareValues, keyOf, type ValueKey } from "../store/values.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { wholeNumber } from "./number-arithmetic.ts";

/**
 * `$push` with `$each` and its modifiers, where mingo's differ from MongoDB's:
 * - `$sort` orders in MongoDB's BSON order (mingo's own order put arrays before numbers and
 *   Longs after everything), by every field of a pattern (mingo used the first), with elements
 *   that are not documents sorting as if the pattern's fields were null.
 * - `$sort` and `$slice` apply when the push creates the field (mingo stored `$each` as given).
 * - Malformed modifiers are refused with MongoDB's BadValue: an unknown clause, or a `$sort`
 *   other than 1, -1 or a pattern of them (mingo accepted `$sort: 2` and ignored `$bad`).
 *
 * mingo still inserts the elements (`$each`, `$position`); the engine then sorts and slices the
 * array at each path. Paths with positional parts (`a.$`, `a.$[]`) are sorted by mingo still.
 */

const CLAUSES = new Set(["$each", "$slice", "$sort", "$position"]);

/** What happens to one pushed-to array after the elements are in. */
export interface PushOrdering {
  path: string;
  /** 1 or -1 for whole elements, or a pattern of fields; undefined: no sort. */
  sort?: 1 | -1 | Document;
  slice?: number;
}

/**
 * Checks every `$push` of the update and takes `$sort` and `$slice` out of those the engine
 * applies itself. Returns the update for mingo and what to apply afterwards.
 */
export function takePushOrderings(update: Document): { update: Document; orderings: PushOrdering[] } {
  const push = update.$push;
  if (!isPlainObject(push)) return { update, orderings: [] };
  const orderings: PushOrdering[] = [];
  const forMingo: Document = {};
  for (const [path, value] of Object.entries(push)) {
    forMingo[path] = value;
    if (!isPlainObject(value) || !("$each" in value)) continue;
    const clauses = checkedClauses(value);
    const { $sort: _sort, $slice: _slice, ...inserting } = value;
    if (clauses.position !== undefined) inserting.$position = clauses.position;
    if (path.includes("$") || (clauses.sort === undefined && clauses.slice === undefined)) {
      // Left to mingo whole, its whole numbers as JavaScript numbers.
      forMingo[path] = { ...inserting, ...(clauses.slice === undefined ? {} : { $slice: clauses.slice }) };
      if (clauses.sort !== undefined) forMingo[path].$sort = clauses.sort;
      continue;
    }
    forMingo[path] = inserting;
    orderings.push({ path, sort: clauses.sort, slice: clauses.slice });
  }
  return { update: { ...update, $push: forMingo }, orderings };
}

/**
 * `$addToSet` with `$each`, its list without repeats (the first of equal elements kept, under
 * the update's collation): MongoDB's AddToSetNode dedupes the list when it parses it, so
 * `{$each: [1, 1, 2]}` on a missing field stores `[1, 2]` where mingo stored the list as given.
 */
export function dedupeAddToSet(update: Document, strings?: StringCompare): Document {
  const add = update.$addToSet;
  if (!isPlainObject(add)) return update;
  const deduped: Document = {};
  for (const [path, value] of Object.entries(add)) {
    const each = isPlainObject(value) ? value.$each : undefined;
    deduped[path] = Array.isArray(each) ? { ...value, $each: distinct(each, strings) } : value;
  }
  return { ...update, $addToSet: deduped };
}

function distinct(list: unknown[], strings?: StringCompare): unknown[] {
  if (!strings) {
    // keyOf is equal exactly when compareValues is 0 in binary string order: one pass, no pairs.
    const seen = new Set<ValueKey>();
    return list.filter((v) => !seen.has(keyOf(v)) && seen.add(keyOf(v)));
  }
  const kept: unknown[] = [];
  for (const v of list) if (!kept.some((k) => compareValues(k, v, strings) === 0)) kept.push(v);
  return kept;
}

/** Sorts and slices each array an ordering names, in `doc` (the update's working copy). */
export function applyPushOrderings(doc: Document, orderings: readonly PushOrdering[], strings?: StringCompare): void {
  for (const { path, sort, slice } of orderings) {
    const parts = path.split(".");
    const holder = valueAt(doc, parts.slice(0, -1));
    const last = parts[parts.length - 1];
    const list = isPlainObject(holder) || Array.isArray(holder) ? (holder as Record<string, unknown>)[last] : undefined;
    if (!Array.isArray(list)) continue;
    let ordered = sort === undefined ? list : sortedElements(list, sort, strings);
    if (slice !== undefined) {
      ordered = slice < 0 ? ordered.slice(Math.max(0, ordered.length + slice)) : ordered.slice(0, slice);
    }
    (holder as Record<string, unknown>)[last] = ordered;
  }
}

interface Clauses {
  sort?: 1 | -1 | Document;
  slice?: number;
  position?: number;
}

/** The clauses of one `$push` with `$each`, refused as MongoDB refuses them. */
function checkedClauses(spec: Document): Clauses {
  const clauses: Clauses = {};
  for (const [name, value] of Object.entries(spec)) {
    if (!CLAUSES.has(name)) throw badValue(`Unrecognized clause in $push: ${name}`);
    if (name === "$each" && !Array.isArray(value)) {
      throw badValue(`The argument to $each in $push must be an array but it was of type: ${bsonTypeOf(value)}`);
    }
    if (name === "$slice") clauses.slice = integerClause("$slice", value);
    if (name === "$position") clauses.position = integerClause("$position", value);
    if (name === "$sort") clauses.sort = sortClause(value);
  }
  return clauses;
}

function integerClause(name: string, value: unknown): number {
  const whole = wholeNumber(value);
  if (whole === undefined) {
    throw badValue(`The value for ${name} must be an integer value but was given type: ${bsonTypeOf(value)}`);
  }
  return Number(whole);
}

function sortClause(value: unknown): 1 | -1 | Document {
  if (isPlainObject(value)) {
    const fields = Object.entries(value);
    if (fields.length === 0) throw badValue("The $sort pattern is empty when it should be a set of fields.");
    for (const [field, direction] of fields) {
      if (field === "" || field.split(".").includes("")) {
        throw badValue(`The $sort field is a dotted field but has an empty part: ${field}`);
      }
      if (field.startsWith("$")) throw badValue(`The $sort field cannot start with $: ${field}`);
      sortDirection(direction);
    }
    return value;
  }
  if (wholeNumber(value) === undefined) {
    throw badValue("The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields");
  }
  return sortDirection(value);
}

function sortDirection(value: unknown): 1 | -1 {
  const n = wholeNumber(value) === undefined ? NaN : toNumber(value);
  if (n !== 1 && n !== -1) throw badValue("The $sort element value must be either 1 or -1");
  return n;
}

/** A stable sort of the elements, whole or by a pattern's fields (missing, or not a document: null). */
function sortedElements(list: unknown[], sort: 1 | -1 | Document, strings?: StringCompare): unknown[] {
  if (typeof sort === "number") return [...list].sort((a, b) => sort * compareValues(a, b, strings));
  const fields = Object.entries(sort).map(([field, direction]) => ({
    parts: field.split("."),
    sign: toNumber(direction),
  }));
  const keyed = list.map((element) => ({ element, keys: fields.map(({ parts }) => valueAt(element, parts) ?? null) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i], strings);
      if (c !== 0) return c * fields[i].sign;
    }
    return 0;
  });
  return keyed.map(({ element }) => element);
}

/** The value at a path through documents (and arrays, by numeric parts), as the server's dotted lookup reads it. */
function valueAt(value: unknown, parts: readonly string[]): unknown {
  let current = value;
  for (const part of parts) {
    if (isPlainObject(current)) current = current[part];
    else if (Array.isArray(current) && /^[0-9]+$/.test(part)) current = current[Number(part)];
    else return undefined;
  }
  return current;
}

function badValue(message: string): CommandError {
  return new CommandError("BadValue", message);
}
