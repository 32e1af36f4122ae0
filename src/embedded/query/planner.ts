import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { sameCollation, type Collation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import type { OrderedIndex } from "../store/ordered-index.ts";
import { fieldBounds, isFull, isPoint, type FieldBounds } from "./bounds.ts";
import { equalityValue } from "./filter.ts";
import { countInRanges, rangesAreExact, scanRanges, type ScanSpec } from "./index-scan.ts";

/** One sort key: a field and its direction. */
export type SortKey = [field: string, dir: 1 | -1];

/**
 * How a read gets its documents. `exact`: the plan alone decides the filter, so no document is
 * tested against it. `ordered`: the plan yields documents in the requested order, so no sort
 * is needed and a page stops after skip + limit of them.
 */
export type Plan =
  | { kind: "collscan"; exact: boolean; ordered: boolean; reverse: boolean }
  | { kind: "id"; values: readonly unknown[]; exact: boolean; ordered: boolean }
  | { kind: "ixscan"; scan: ScanSpec; ranges: NonNullable<ReturnType<typeof scanRanges>>; exact: boolean; ordered: boolean; countable: boolean; estimate: number };

/**
 * A filter read as a conjunction: its field conditions, from the top level and from top-level
 * `$and` members (each member must hold, so any of them can bound the result), and how many
 * other terms ($or, $expr...) it has, which an index cannot decide.
 */
interface Conjunction {
  fields: [string, unknown][];
  others: number;
}

function conjunction(filter: Document, into: Conjunction = { fields: [], others: 0 }): Conjunction {
  for (const key in filter) {
    const value = filter[key];
    if (key === "$and" && Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) {
      for (const member of value) conjunction(member, into);
    } else if (key.startsWith("$")) {
      into.others++;
    } else {
      into.fields.push([key, value]);
    }
  }
  return into;
}

function direction(v: unknown): 1 | -1 {
  const n = toNumber(v);
  if (n === 1 || n === -1) return n;
  throw new CommandError("BadValue", `bad sort specification: ${JSON.stringify(v)}`);
}

/** The sort keys of a spec; no sort (or `$natural`) is `_id` order, the stored order. */
export function sortKeys(spec: unknown): SortKey[] {
  if (spec === undefined || spec === null) return [["_id", 1]];
  if (!isPlainObject(spec)) throw new CommandError("BadValue", "sort must be an object");
  const keys: SortKey[] = Object.keys(spec).map((f) => [f === "$natural" ? "_id" : f, direction(spec[f])]);
  return keys.length ? keys : [["_id", 1]];
}

/** `_id` equality or `$in` over plain values, as today's lookups by `_id`. */
function idValues(terms: Conjunction): { values: readonly unknown[]; exact: boolean } | undefined {
  for (const [name, cond] of terms.fields) {
    if (name !== "_id") continue;
    const eq = equalityValue(cond);
    if (eq) return { values: [eq.value], exact: eq.value !== null && terms.fields.length === 1 && terms.others === 0 };
    if (isPlainObject(cond) && Object.keys(cond).length === 1 && Array.isArray(cond.$in)) {
      if (cond.$in.some((v) => v instanceof RegExp || Array.isArray(v))) continue;
      return { values: cond.$in, exact: !cond.$in.includes(null) && terms.fields.length === 1 && terms.others === 0 };
    }
  }
  return undefined;
}

/**
 * The direction an index scan with these bounds reads in to yield the sort order, or 0 when it
 * cannot: the sort keys must follow the index fields (each in the index's direction, or each
 * reversed), skipping fields pinned to one value; `_id` may follow all fields, as it orders
 * equal keys. A multikey index yields each document at its smallest key (largest, reversed),
 * which is MongoDB's sort key of an array, only when nothing bounds the scan.
 */
function sortDirection(index: OrderedIndex, bounds: FieldBounds[], keys: SortKey[]): 1 | -1 | 0 {
  if (index.multikey && !bounds.every(isFull)) return 0;
  const dirs = index.entries.dirs;
  let s = 0;
  let sign: 1 | -1 | 0 = 0;
  const take = (dir: number): boolean => {
    const d = dir as 1 | -1;
    if (sign !== 0 && d !== sign) return false;
    sign = d;
    s++;
    return true;
  };
  let f = 0;
  for (; f < index.fields.length && s < keys.length; f++) {
    if (keys[s][0] === index.fields[f]) {
      if (!take(keys[s][1] * dirs[f])) return 0;
    } else if (!isPoint(bounds[f])) break;
  }
  if (s < keys.length && keys[s][0] === "_id" && f === index.fields.length && !take(keys[s][1])) return 0;
  return s === keys.length ? (sign === 0 ? 1 : sign) : 0;
}

function indexPlan(index: OrderedIndex, terms: Conjunction, keys: SortKey[]): Plan | undefined {
  const conds = index.fields.map((field) => terms.fields.filter(([name]) => name === field).map(([, c]) => c));
  const bounds = conds.map((list) => fieldBounds(list, index.multikey));
  const dir = keys.length ? sortDirection(index, bounds, keys) : 0;
  if (isFull(bounds[0]) && dir === 0) return undefined;
  const ranges = scanRanges(index, bounds);
  if (!ranges) return undefined;
  const onIndex = conds.reduce((n, list) => n + list.length, 0);
  const decided = bounds.every((b, f) => conds[f].length === 0 || b.exact);
  const exact = !index.multikey && decided && terms.others === 0 && onIndex === terms.fields.length;
  const scan: ScanSpec = { index, bounds, reverse: dir === -1 };
  const estimate = countInRanges(index.entries, ranges);
  return { kind: "ixscan", scan, ranges, exact, ordered: dir !== 0, countable: exact && rangesAreExact(bounds), estimate };
}

/** What the planner weighs: entries it expects to read, plus a sort when the plan is unordered. */
function cost(plan: Plan, size: number, window: number, anyOrder: boolean): number {
  const read = plan.kind === "ixscan" ? plan.estimate : plan.kind === "id" ? plan.values.length : size;
  if (anyOrder) return plan.kind === "ixscan" && plan.countable ? 0 : read;
  if (!plan.ordered) return read * 1.5;
  if (plan.exact) return Math.min(read, window);
  return Number.isFinite(window) ? read / 2 : read;
}

/**
 * Chooses how to read `filter` in the order of `keys` (empty: any order will do, as for a
 * count) for a page of `window` = skip + limit documents: by `_id`, by a secondary index
 * (equality, `$in`, ranges and prefix regexes on its leading fields, or its order for the
 * sort), or by scanning the collection, whichever is expected to read the fewest entries.
 * Under a collation only indexes with the same one are used, and then only for their order:
 * the bounds are computed in binary string order, and `_id` lookups hash strings exactly.
 */
export function choosePlan(coll: Collection, filter: unknown, keys: SortKey[], window = Infinity, collation?: Collation): Plan {
  const terms = isPlainObject(filter) ? conjunction(filter) : { fields: [], others: isEmptyObject(filter) ? 0 : 1 };
  const natural = keys.length === 0 || (keys.length === 1 && keys[0][0] === "_id");
  const noFilter = terms.fields.length === 0 && terms.others === 0;
  const id = collation ? undefined : idValues(terms);
  if (id) return { kind: "id", values: id.values, exact: id.exact, ordered: id.values.length <= 1 };
  let best: Plan = { kind: "collscan", exact: noFilter, ordered: natural, reverse: natural && keys[0]?.[1] === -1 };
  let bestCost = cost(best, coll.docs.size, window, keys.length === 0);
  const usable = collation ? { fields: [], others: terms.fields.length + terms.others } : terms;
  for (const index of coll.orderedIndexes()) {
    if (!sameCollation(index.collation, collation)) continue;
    const plan = indexPlan(index, usable, keys);
    if (!plan) continue;
    const c = cost(plan, coll.docs.size, window, keys.length === 0);
    if (c < bestCost || (c === bestCost && plan.exact && !best.exact)) [best, bestCost] = [plan, c];
  }
  return best;
}

function isEmptyObject(v: unknown): boolean {
  return v === undefined || v === null || (isPlainObject(v) && Object.keys(v).length === 0);
}
