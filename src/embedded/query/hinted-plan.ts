import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { type Collation, sameCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import type { OrderedIndex } from "../store/ordered-index.ts";
import { UNBOUNDED } from "./bounds.ts";
import { type Conjunction, conjunction } from "./conjunction.ts";
import { countInRanges, scanFields, scanRanges, type ScanSpec } from "./index-scan.ts";
import { idRangePlan, indexPlan, isEmptyObject, type Plan, sortDirection, type SortKey } from "./planner.ts";

// The plans a `hint` forces (find, count, aggregate's leading read, updates and deletes), as
// MongoDB follows a hint whatever another plan would cost; planner.ts chooses the others.

/** A hint the collection's indexes resolve: a collection scan, the `_id` index, or a secondary index. */
export type ResolvedHint = { natural: 1 | -1 } | { id: true } | { index: OrderedIndex };

/**
 * The index a `hint` names (by name or key pattern, numbers of any width as directions), or
 * `{$natural: ±1}`; undefined for no hint, or one that names nothing (commands/hint.ts refuses
 * those before the read).
 */
export function resolveHint(coll: Collection, hint: unknown): ResolvedHint | undefined {
  if (isPlainObject(hint) && Object.keys(hint).length === 1 && "$natural" in hint) {
    return { natural: toNumber(hint.$natural) < 0 ? -1 : 1 };
  }
  const pattern = isPlainObject(hint) ? JSON.stringify(directions(hint)) : undefined;
  const named = (name: string, key: Document) =>
    typeof hint === "string" ? name === hint : JSON.stringify(directions(key)) === pattern;
  if (typeof hint !== "string" && pattern === undefined) return undefined;
  if (named("_id_", { _id: 1 })) return { id: true };
  for (const index of coll.orderedIndexes()) if (named(index.spec.name, index.spec.key)) return { index };
  return undefined;
}

function directions(key: Document): Document {
  return Object.fromEntries(Object.entries(key).map(([field, dir]) => [field, toNumber(dir)]));
}

/**
 * The plan a hint forces, as MongoDB follows a hint whatever another plan would cost: a
 * collection scan in the hinted direction, or a read of the hinted index, bounded by the filter
 * where it can be and a full scan of the index where it cannot. `sorted`: the read asked for a
 * sort (without one, `$natural: -1` is itself the order asked for).
 */
export function hintedPlan(
  coll: Collection,
  hint: ResolvedHint,
  filter: unknown,
  keys: SortKey[],
  sorted: boolean,
  collation?: Collation,
): Plan {
  const terms: Conjunction = isPlainObject(filter)
    ? conjunction(filter)
    : { fields: [], ors: [], others: isEmptyObject(filter) ? 0 : 1 };
  const noFilter = terms.fields.length === 0 && terms.others === 0 && terms.ors.length === 0;
  const natural = keys.length === 1 && keys[0][0] === "_id";
  if ("natural" in hint) {
    const ordered = !sorted || (natural && keys[0][1] === hint.natural);
    return { kind: "collscan", exact: noFilter, ordered, reverse: hint.natural === -1 };
  }
  if ("id" in hint) {
    const ranged = collation ? undefined : idRangePlan(coll, terms, keys);
    return ranged ?? { kind: "collscan", exact: noFilter, ordered: natural, reverse: natural && keys[0][1] === -1 };
  }
  const { index } = hint;
  // As in choosePlan: bounds are binary string order, right only when neither the read nor the
  // index has a collation; an index under another collation than the read's orders its strings
  // otherwise than the sort asks, so the read then sorts by itself.
  const same = sameCollation(index.collation, collation);
  const usable: Conjunction = same && collation === undefined
    ? terms
    : { fields: [], ors: [], others: terms.fields.length + terms.ors.length + terms.others };
  // Without a sort, the hinted index's own order is the answer's (the engine's default, `_id`
  // order, is not what MongoDB gives).
  const wanted = sorted && same ? keys : [];
  const read = indexPlan(index, usable, wanted) ?? fullIndexPlan(index, wanted, noFilter);
  const plan = sorted || read.kind !== "ixscan" ? read : { ...read, ordered: true };
  if (index.covers === undefined || plan.kind !== "ixscan") return plan;
  return { ...plan, exact: false, countable: false, coverage: index.covers };
}

/** A read of the whole index, in the sort's direction when the index gives it. */
function fullIndexPlan(index: OrderedIndex, keys: SortKey[], noFilter: boolean): Plan {
  const bounds = scanFields(index).map(() => UNBOUNDED);
  const ranges = scanRanges(index, bounds)!;
  const dir = keys.length ? sortDirection(index, bounds, keys) : 0;
  const scan: ScanSpec = { index, bounds, reverse: dir === -1 };
  const estimate = countInRanges(index.entries, ranges);
  const countable = noFilter && !index.multikey;
  return { kind: "ixscan", scan, ranges, exact: noFilter, ordered: dir !== 0, countable, estimate };
}
