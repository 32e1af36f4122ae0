import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { type Collation, sameCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import type { OrderedIndex } from "../store/ordered-index.ts";
import { type FieldBounds, fieldBounds, isFull, isPoint, UNBOUNDED, unionOf } from "./bounds.ts";
import { equalityValue } from "./filter.ts";
import { type Conjunction, conjunction, everyCombination, idConditions, names } from "./conjunction.ts";
import { countIdRanges } from "./id-scan.ts";
import {
  countInRanges,
  MAX_RANGES,
  rangesAreExact,
  type ScanBranch,
  scanFields,
  scanRanges,
  type ScanSpec,
} from "./index-scan.ts";

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
  | { kind: "idrange"; bounds: FieldBounds; reverse: boolean; exact: boolean; ordered: boolean; estimate: number }
  | {
    kind: "ixscan";
    scan: ScanSpec;
    ranges: NonNullable<ReturnType<typeof scanRanges>>;
    exact: boolean;
    ordered: boolean;
    countable: boolean;
    estimate: number;
    /** The branches of an `$or`, each scanned on its own and merged in index order; `scan.bounds` is then their union. */
    branches?: ScanBranch[];
    /**
     * A hinted sparse or partial index: only the documents it covers are read, as MongoDB's
     * index holds no others (the engine's holds every document, so the read tests this).
     */
    coverage?: (doc: Document) => boolean;
  };

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
    const alone = terms.fields.length === 1 && terms.others === 0 && terms.ors.length === 0;
    if (eq) return { values: [eq.value], exact: eq.value !== null && alone };
    if (isPlainObject(cond) && Object.keys(cond).length === 1 && Array.isArray(cond.$in)) {
      if (cond.$in.some((v) => v instanceof RegExp || Array.isArray(v))) continue;
      return { values: cond.$in, exact: !cond.$in.includes(null) && alone };
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
export function sortDirection(index: OrderedIndex, bounds: FieldBounds[], keys: SortKey[]): 1 | -1 | 0 {
  if (index.multikey && !bounds.every(isFull)) return 0;
  const dirs = index.entries.dirs;
  // s: sort keys matched so far; sign: the scan direction they all agree on (0 until the first).
  let s = 0;
  let sign: 1 | -1 | 0 = 0;
  let f = 0;
  for (; f < index.fields.length && s < keys.length; f++) {
    if (keys[s][0] === index.fields[f]) {
      const d = (keys[s][1] * dirs[f]) as 1 | -1;
      if (sign !== 0 && d !== sign) return 0;
      sign = d;
      s++;
    } else if (!isPoint(bounds[f])) break;
  }
  if (s < keys.length && keys[s][0] === "_id" && f === index.fields.length) {
    if (sign !== 0 && keys[s][1] !== sign) return 0;
    sign = keys[s][1];
    s++;
  }
  return s === keys.length ? (sign === 0 ? 1 : sign) : 0;
}

/** The condition list of a scan field without conditions, shared (see {@link UNBOUNDED}). */
const NO_CONDITIONS: readonly unknown[] = Object.freeze([]);

/**
 * The conditions of `fields` on each scan field of the index, and the bounds they give. Runs
 * for every index on every read: a field without conditions (most) allocates nothing.
 */
function boundsOn(
  index: OrderedIndex,
  fields: [string, unknown][],
): { conds: (readonly unknown[])[]; bounds: FieldBounds[] } {
  const names = scanFields(index);
  const conds: (readonly unknown[])[] = new Array(names.length);
  const bounds: FieldBounds[] = new Array(names.length);
  for (let f = 0; f < names.length; f++) {
    let list: unknown[] | undefined;
    for (let i = 0; i < fields.length; i++) if (fields[i][0] === names[f]) (list ??= []).push(fields[i][1]);
    conds[f] = list ?? NO_CONDITIONS;
    bounds[f] = list === undefined ? UNBOUNDED : fieldBounds(list, index.multikey && f < index.fields.length);
  }
  return { conds, bounds };
}

/** True when the index bounds decide every field condition (none is on another field, none inexact). */
function decides(
  index: OrderedIndex,
  fields: [string, unknown][],
  conds: (readonly unknown[])[],
  bounds: FieldBounds[],
): boolean {
  const onIndex = conds.reduce((n, list) => n + list.length, 0);
  return !index.multikey && onIndex === fields.length && bounds.every((b, f) => conds[f].length === 0 || b.exact);
}

/** The read of one index the filter's terms allow (bounded, in the sort's order where it can), if the index fits. */
export function indexPlan(index: OrderedIndex, terms: Conjunction, keys: SortKey[]): Plan | undefined {
  // Neither bounded nor sorted on its first field, it serves nothing (as the test below finds, without bounds).
  const lead = index.fields[0];
  if ((keys.length === 0 || keys[0][0] !== lead) && !names(terms.fields, lead)) return undefined;
  const { conds, bounds } = boundsOn(index, terms.fields);
  const dir = keys.length ? sortDirection(index, bounds, keys) : 0;
  if (isFull(bounds[0]) && dir === 0) return undefined;
  const ranges = scanRanges(index, bounds);
  if (!ranges) return undefined;
  const exact = decides(index, terms.fields, conds, bounds) && terms.others === 0 && terms.ors.length === 0;
  const scan: ScanSpec = { index, bounds, reverse: dir === -1 };
  const estimate = countInRanges(index.entries, ranges);
  return {
    kind: "ixscan",
    scan,
    ranges,
    exact,
    ordered: dir !== 0,
    countable: exact && rangesAreExact(bounds),
    estimate,
  };
}

/**
 * An index read of one `$or`: each branch, with the conditions that hold beside the `$or`,
 * bounds its own scan, and the scans merge in index order, so the read gives the index's sort
 * when every branch does (MongoDB's SORT_MERGE). Undefined unless every branch bounds the
 * index's first field: a branch that does not would read the whole index. `ors`: how many of
 * the filter's `$or`s the branches stand for (see {@link everyCombination}).
 */
function orPlan(
  index: OrderedIndex,
  terms: Conjunction,
  keys: SortKey[],
  window: number,
  branches: Document[],
  ors = 1,
): Plan | undefined {
  const parts: ScanBranch[] = [];
  let exact = terms.others === 0 && terms.ors.length === ors;
  let count = 0;
  const lead = index.fields[0];
  const pinned = names(terms.fields, lead);
  for (const branch of branches) {
    const own = conjunction(branch);
    // Cheap test first: a branch that says nothing of the index's first field cannot bound it.
    if (!pinned && !names(own.fields, lead)) return undefined;
    const fields = [...terms.fields, ...own.fields];
    const { conds, bounds } = boundsOn(index, fields);
    const ranges = isFull(bounds[0]) ? undefined : scanRanges(index, bounds);
    if (!ranges || (count += ranges.length) > MAX_RANGES) return undefined;
    parts.push({ bounds, ranges });
    exact &&= own.others === 0 && own.ors.length === 0 && decides(index, fields, conds, bounds);
  }
  const union = parts[0].bounds.map((_, f) => unionOf(parts.map((part) => part.bounds[f])));
  const dir = keys.length && !index.multikey ? sortDirection(index, union, keys) : 0;
  // An exact ordered read costs at most the window (see cost): counting further would not change its cost.
  const enough = exact && dir !== 0 ? window : Infinity;
  let estimate = 0;
  for (let i = 0; i < parts.length && estimate < enough; i++) estimate += countInRanges(index.entries, parts[i].ranges);
  const scan: ScanSpec = { index, bounds: union, reverse: dir === -1 };
  return { kind: "ixscan", scan, ranges: [], branches: parts, exact, ordered: dir !== 0, countable: false, estimate };
}

/**
 * A read of the `_id` order restricted to the `_id` ranges the filter allows: its own `_id`
 * conditions, or the union over the branches of an `$or` that each bound `_id`. Undefined when
 * nothing bounds `_id`.
 */
export function idRangePlan(coll: Collection, terms: Conjunction, keys: SortKey[]): Plan | undefined {
  const own = idConditions(terms.fields);
  let bounds = fieldBounds(own, false);
  let exact = bounds.exact && own.length === terms.fields.length && terms.others === 0 && terms.ors.length === 0;
  for (const branches of isFull(bounds) ? terms.ors : []) {
    // Stops at the first branch that leaves `_id` unbounded: the union is then unbounded too.
    const each: FieldBounds[] = [];
    for (const branch of branches) {
      const found = fieldBounds([...own, ...idConditions(conjunction(branch).fields)], false);
      if (isFull(found)) break;
      each.push(found);
    }
    if (each.length < branches.length) continue;
    [bounds, exact] = [unionOf(each), false];
    break;
  }
  if (isFull(bounds)) return undefined;
  const natural = keys.length === 1 && keys[0][0] === "_id";
  const reverse = natural && keys[0][1] === -1;
  return {
    kind: "idrange",
    bounds,
    reverse,
    exact,
    ordered: natural,
    estimate: countIdRanges(coll.docs, bounds.intervals),
  };
}

/** What the planner weighs: entries it expects to read, plus a sort when the plan is unordered. */
function cost(plan: Plan, size: number, window: number, anyOrder: boolean): number {
  const read = plan.kind === "ixscan" || plan.kind === "idrange"
    ? plan.estimate
    : plan.kind === "id"
    ? plan.values.length
    : size;
  if (anyOrder) return (plan.kind === "ixscan" && plan.countable) || (plan.kind === "idrange" && plan.exact) ? 0 : read;
  if (!plan.ordered) return read * 1.5;
  if (plan.exact) return Math.min(read, window);
  // Tested documents may fail, so expect to read past the window, up to half the entries; never
  // less than the window, so an exact plan over as many entries costs no more than this one.
  return Number.isFinite(window) ? Math.min(read, Math.max(window, read / 2)) : read;
}

/**
 * Chooses how to read `filter` in the order of `keys` (empty: any order will do, as for a
 * count) for a page of `window` = skip + limit documents: by `_id`, by a secondary index
 * (equality, `$in`, ranges and prefix regexes on its leading fields, or its order for the
 * sort), or by scanning the collection, whichever is expected to read the fewest entries.
 * Under a collation only indexes with the same one are used, and then only for their order:
 * the bounds are computed in binary string order, and `_id` lookups hash strings exactly.
 */
export function choosePlan(
  coll: Collection,
  filter: unknown,
  keys: SortKey[],
  window = Infinity,
  collation?: Collation,
): Plan {
  const terms: Conjunction = isPlainObject(filter)
    ? conjunction(filter)
    : { fields: [], ors: [], others: isEmptyObject(filter) ? 0 : 1 };
  const natural = keys.length === 0 || (keys.length === 1 && keys[0][0] === "_id");
  const noFilter = terms.fields.length === 0 && terms.others === 0 && terms.ors.length === 0;
  const id = collation ? undefined : idValues(terms);
  if (id) return { kind: "id", values: id.values, exact: id.exact, ordered: id.values.length <= 1 };
  const collscan: Plan = {
    kind: "collscan",
    exact: noFilter,
    ordered: natural,
    reverse: natural && keys[0]?.[1] === -1,
  };
  const best: Choice = { plan: collscan, cost: 0, size: coll.docs.size, window, anyOrder: keys.length === 0 };
  best.cost = cost(collscan, best.size, window, best.anyOrder);
  // keepCheaper is a module function, not a closure: tsx names nested functions through a helper call on each read.
  // Under a collation bounds (binary string order) cannot be used, only a same-collation index's order.
  const usable: Conjunction = collation
    ? { fields: [], ors: [], others: terms.fields.length + terms.ors.length + terms.others }
    : terms;
  if (!collation) keepCheaper(best, idRangePlan(coll, terms, keys));
  for (const index of coll.orderedIndexes()) {
    if (!sameCollation(index.collation, collation)) continue;
    keepCheaper(best, indexPlan(index, usable, keys));
    for (const branches of usable.ors) keepCheaper(best, orPlan(index, usable, keys, window, branches));
    const combined = usable.ors.length > 1 ? everyCombination(usable.ors) : undefined;
    if (combined) keepCheaper(best, orPlan(index, usable, keys, window, combined, usable.ors.length));
  }
  return best.plan;
}

/** The cheapest plan so far and what {@link cost} weighs it with. */
interface Choice {
  plan: Plan;
  cost: number;
  size: number;
  window: number;
  anyOrder: boolean;
}

/** Keeps `plan` in `best` when it costs less (or as much, and is exact where the kept one is not). */
function keepCheaper(best: Choice, plan: Plan | undefined): void {
  if (!plan) return;
  const c = cost(plan, best.size, best.window, best.anyOrder);
  if (c < best.cost || (c === best.cost && plan.exact && !best.plan.exact)) {
    best.plan = plan;
    best.cost = c;
  }
}

/** True for a missing, null or empty filter or sort. */
export function isEmptyObject(v: unknown): boolean {
  return v === undefined || v === null || (isPlainObject(v) && Object.keys(v).length === 0);
}
