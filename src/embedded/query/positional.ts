import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import { compareStrings } from "../store/strings.ts";
import { compileFilter } from "./filter.ts";

// The positional `$` of an update names the array element the query matched: MongoDB records it
// while matching (MatchDetails' elemMatchKey). Each leaf predicate that matches through an array
// records the position, in the first array of its path, of the first element it matched; an AND
// runs its children in the normalised query's order (MatchExpression::sortTree: by match type,
// then path), so the last child that records one wins. Negations and `$or`s of several branches
// record nothing. The engine replays that: it splits the filter into its AND's leaves, orders
// them the same way, and finds each leaf's position by matching it against the document with
// that first array cut down to one element at a time.

/** MongoDB's MatchType order (matcher/expression.h), by which sortTree orders an AND's children. */
const TYPE_RANK: Readonly<Record<string, number>> = {
  $elemMatchObject: 2,
  $elemMatchValue: 3,
  $size: 4,
  $eq: 5,
  $lte: 6,
  $lt: 7,
  $gt: 8,
  $gte: 9,
  $regex: 10,
  $mod: 11,
  $exists: 12,
  $in: 13,
  $bitsAllSet: 14,
  $bitsAllClear: 15,
  $bitsAnySet: 16,
  $bitsAnyClear: 17,
  $type: 21,
};

/** One leaf predicate of the filter's top-level AND: its path, condition and match type rank. */
interface Leaf {
  path: string;
  condition: unknown;
  rank: number;
}

const MISSING_MATCH = "The positional operator did not find the match needed from the query.";

/** Compiled leaves by filter object: a multi-update resolves `$` once per document. */
const leavesByFilter = new WeakMap<Document, { leaf: Leaf; test: (doc: Document) => boolean }[]>();

/**
 * The update with each positional `$` part of its paths replaced by the position the filter
 * matched in `doc`, as MongoDB resolves it before applying the update. Returns `spec` itself
 * when no path has one; refuses (code 2) a `$` for which the query matched no array element.
 */
export function resolvePositional(doc: Document, spec: Document, filter: unknown, collation?: Collation): Document {
  if (!hasPositional(spec)) return spec;
  const position = matchedPosition(doc, filter, collation);
  if (position === undefined) throw new CommandError("BadValue", MISSING_MATCH);
  const resolved: Document = {};
  for (const [op, fields] of Object.entries(spec)) {
    if (!isPlainObject(fields)) {
      resolved[op] = fields;
      continue;
    }
    resolved[op] = Object.fromEntries(
      Object.entries(fields).map(([path, value]) => [replacePositional(path, position), value]),
    );
  }
  return resolved;
}

function hasPositional(spec: Document): boolean {
  for (const fields of Object.values(spec)) {
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) if (path.split(".").includes("$")) return true;
  }
  return false;
}

/** The first `$` part only: a path with two is refused by mingo as MongoDB refuses it. */
function replacePositional(path: string, position: number): string {
  const parts = path.split(".");
  const at = parts.indexOf("$");
  if (at >= 0) parts[at] = String(position);
  return parts.join(".");
}

/** The element position MongoDB's matcher records for `doc` under `filter`, if any. */
function matchedPosition(doc: Document, filter: unknown, collation?: Collation): number | undefined {
  if (!isPlainObject(filter)) return undefined;
  let leaves = leavesByFilter.get(filter);
  if (leaves === undefined) {
    const found: Leaf[] = [];
    collectLeaves(filter, found);
    // A stable sort: leaves of one type and path keep the order they were written in.
    found.sort((a, b) => a.rank - b.rank || compareStrings(a.path, b.path));
    leaves = found.map((leaf) => ({ leaf, test: compileFilter({ [leaf.path]: leaf.condition }, collation)! }));
    if (collation === undefined) leavesByFilter.set(filter, leaves);
  }
  let position: number | undefined;
  for (const { leaf, test } of leaves) position = positionOf(doc, leaf, test) ?? position;
  return position;
}

/** The leaves of a filter's AND: its fields, `$and` branches and a one-branch `$or`, flattened. */
function collectLeaves(filter: Document, into: Leaf[]): void {
  for (const [field, condition] of Object.entries(filter)) {
    if ((field === "$and" || field === "$or") && Array.isArray(condition)) {
      // MongoDB optimises a one-branch `$or` into its branch; an `$or` of more records nothing.
      if (field === "$and" || condition.length === 1) {
        for (const part of condition) if (isPlainObject(part)) collectLeaves(part, into);
      }
      continue;
    }
    if (!field.startsWith("$")) leavesOf(field, condition, into);
  }
}

/** The leaves of one field's condition: one per operator (`{$gt: 1, $lt: 5}` is two). */
function leavesOf(path: string, condition: unknown, into: Leaf[]): void {
  const operators = isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith("$"));
  if (!operators) {
    into.push({ path, condition, rank: TYPE_RANK[condition instanceof RegExp ? "$regex" : "$eq"] });
    return;
  }
  const ops = condition as Document;
  for (const [op, arg] of Object.entries(ops)) {
    if (op === "$options") continue;
    if (op === "$regex") into.push({ path, condition: regexCondition(ops), rank: TYPE_RANK.$regex });
    else if (op === "$all" && Array.isArray(arg)) { for (const member of arg) allMember(path, member, into); }
    else if (op === "$elemMatch") into.push({ path, condition: { $elemMatch: arg }, rank: elemMatchRank(arg) });
    else if (op === "$in" && Array.isArray(arg) && arg.length === 1 && !(arg[0] instanceof RegExp)) {
      // MongoDB rewrites a one-element `$in` to an equality.
      into.push({ path, condition: { $in: arg }, rank: TYPE_RANK.$eq });
    } else if (op === "$exists" && !arg) continue;
    else if (TYPE_RANK[op] !== undefined) into.push({ path, condition: { [op]: arg }, rank: TYPE_RANK[op] });
  }
}

function regexCondition(ops: Document): Document {
  return "$options" in ops ? { $regex: ops.$regex, $options: ops.$options } : { $regex: ops.$regex };
}

/** `$all` is an AND of equalities (or of `$elemMatch`es), each a leaf of its own. */
function allMember(path: string, member: unknown, into: Leaf[]): void {
  if (isPlainObject(member) && "$elemMatch" in member) {
    into.push({ path, condition: { $elemMatch: member.$elemMatch }, rank: elemMatchRank(member.$elemMatch) });
  } else {
    into.push({ path, condition: { $eq: member }, rank: TYPE_RANK[member instanceof RegExp ? "$regex" : "$eq"] });
  }
}

/** `$elemMatch` of a query on the elements' fields is ELEM_MATCH_OBJECT, of operators ELEM_MATCH_VALUE. */
function elemMatchRank(arg: unknown): number {
  const fields = isPlainObject(arg) && Object.keys(arg).some((k) => !k.startsWith("$") || k === "$and" || k === "$or");
  return fields ? TYPE_RANK.$elemMatchObject : TYPE_RANK.$elemMatchValue;
}

/**
 * The position a leaf records: the first element of the first array on its path through which
 * the leaf matches. `$size` of the array itself, and a whole-array match, record none.
 */
function positionOf(doc: Document, leaf: Leaf, test: (doc: Document) => boolean): number | undefined {
  const parts = leaf.path.split(".");
  const found = firstArray(doc, parts);
  if (found === undefined) return undefined;
  const { array, depth } = found;
  if (depth === parts.length && leaf.rank === TYPE_RANK.$size) return undefined;
  // A numeric part after the array indexes it: one element alone would not be at that index.
  if (depth < parts.length && /^\d+$/.test(parts[depth])) return undefined;
  for (let i = 0; i < array.length; i++) {
    if (test(withOnly(doc, parts, depth, array[i]))) return i;
  }
  return undefined;
}

/** The first array on the path, and how many parts lead to it. */
function firstArray(doc: Document, parts: string[]): { array: unknown[]; depth: number } | undefined {
  let value: unknown = doc;
  for (let depth = 0; depth < parts.length; depth++) {
    if (!isPlainObject(value)) return undefined;
    value = value[parts[depth]];
    if (Array.isArray(value)) return { array: value, depth: depth + 1 };
  }
  return undefined;
}

/** A copy of `doc` whose array at the first `depth` parts holds `element` alone. */
function withOnly(doc: Document, parts: string[], depth: number, element: unknown): Document {
  const copy: Document = { ...doc };
  let at = copy;
  for (let i = 0; i < depth - 1; i++) {
    const next = { ...(at[parts[i]] as Document) };
    at[parts[i]] = next;
    at = next;
  }
  at[parts[depth - 1]] = [element];
  return copy;
}
