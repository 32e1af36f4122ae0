import type { Document } from "bson";
/** Which side of the boundary record a page lies on. */
export type CursorSide = "after" | "before";

/** One sort key: a stored field path and its direction. */
export type SortKey = readonly [path: string, direction: 1 | -1];

/**
 * The keys of a planned sort, up to and including `_id`: `_id` is unique, so keys after it
 * never decide an order.
 * @example sortKeys({ name: 1, _id: 1 })      // [["name", 1], ["_id", 1]]
 * @example sortKeys({ _id: -1, name: 1 })     // [["_id", -1]]
 */
export function sortKeys(sort: Document): SortKey[] {
  const keys: SortKey[] = [];
  for (const [path, direction] of Object.entries(sort)) {
    keys.push([path, direction === -1 ? -1 : 1]);
    if (path === "_id") break;
  }
  return keys;
}

/** The same keys in the opposite order, for reading a page backwards. */
export function reversed(keys: readonly SortKey[]): Document {
  return Object.fromEntries(keys.map(([path, direction]) => [path, -direction]));
}

/** A document's position in the order: its values of the sort keys, null for null or missing. */
export function keyOf(doc: Document, keys: readonly SortKey[]): unknown[] {
  return keys.map(([path]) => doc[path] ?? null);
}

/**
 * Records strictly after `value` on one key, in MongoDB's order, where null and missing sort
 * together before every value: ascending, that is every greater value (or, after null, every
 * value at all); descending, every smaller value and then the nulls.
 */
function beyond(path: string, direction: 1 | -1, value: unknown, inclusive: boolean): Document[] {
  // Only _id, the last key, is ever inclusive, and it is never null.
  if (inclusive) return [{ [path]: direction === 1 ? { $gte: value } : { $lte: value } }];
  if (direction === 1) return [{ [path]: value === null ? { $ne: null } : { $gt: value } }];
  if (value === null) return [];
  // _id is never null, so its descending range needs no null branch.
  return path === "_id" ? [{ [path]: { $lt: value } }] : [{ [path]: { $lt: value } }, { [path]: null }];
}

/**
 * A plain MongoDB filter for the records on `side` of the record whose key is `key`: for each
 * key in turn, "equal on every key before it, and beyond it on this one", ORed. `_id` ends
 * every sort, so each record is on exactly one side of any other. Ascending sorts also get a
 * range on their first key (`first >= value`), which an index on that key can serve.
 * `inclusive` takes the boundary record in too (its `_id` range includes its own).
 *
 * Each branch bounds an index on the sort keys (it pins the keys before its own to values and
 * ranges its own), so an index read of the `$or` merges one short scan per branch in index
 * order and reads about one page, however deep the page lies: the embedded engine does this,
 * and MongoDB's planner does it with a SORT_MERGE of the branches.
 * @example keysetFilter([["name", 1], ["_id", 1]], ["Bo", 7], "after")
 * // { name: { $gte: "Bo" }, $or: [{ name: { $gt: "Bo" } }, { name: "Bo", _id: { $gt: 7 } }] }
 */
export function keysetFilter(
  keys: readonly SortKey[],
  key: readonly unknown[],
  side: CursorSide,
  inclusive = false,
): Document {
  const flip = side === "before" ? -1 : 1;
  const branches: Document[] = [];
  const equal: Document = {};
  keys.forEach(([path, direction], i) => {
    const last = i === keys.length - 1 && path === "_id";
    for (const branch of beyond(path, (direction * flip) as 1 | -1, key[i], inclusive && last)) {
      branches.push({ ...equal, ...branch });
    }
    equal[path] = key[i];
  });
  if (branches.length === 0) return { _id: { $in: [] } };
  if (branches.length === 1) return branches[0];
  const [first, direction] = keys[0];
  const bound = direction * flip === 1 && key[0] !== null ? { [first]: { $gte: key[0] } } : {};
  return { ...bound, $or: branches };
}
