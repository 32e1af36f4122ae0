import type { Db, Document } from "mongodb";
import type { Model } from "../model/define.ts";
import { type ApiRecord, toRecord } from "../model/serialize.ts";
import { storedName } from "../query/columns.ts";
import type { QueryLimits } from "../query/limits.ts";
import { childKeys, type WithNode } from "../query/with.ts";

/** Children of one level, grouped by the value they share with their parent. */
type Groups = Map<unknown, Document[]>;

/**
 * A Map key for a join value. Numbers and strings are their own key; Dates and ObjectIds
 * are compared by value. Null, missing, arrays and sub-documents never join: `$in: [null]`
 * would match every child without a foreign key, and an array would join many-to-many.
 */
function joinKey(value: unknown): unknown {
  if (typeof value === "number" || typeof value === "string" || typeof value === "bigint") return value;
  if (value instanceof Date) return `date:${value.getTime()}`;
  const hex = (value as { toHexString?: unknown } | null)?.toHexString;
  if (typeof hex === "function") return `oid:${hex.call(value)}`;
  return undefined;
}

/** Distinct join values of the parents, in first-seen order, as they go into `$in`. */
function parentValues(docs: readonly Document[], path: string): unknown[] {
  const seen = new Map<unknown, unknown>();
  for (const doc of docs) {
    const key = joinKey(doc[path]);
    if (key !== undefined && !seen.has(key)) seen.set(key, doc[path]);
  }
  return [...seen.values()];
}

/** Inclusion projection: output fields plus the keys needed to attach and recurse. */
function childProjection(node: WithNode): Document {
  const names = [...(node.fields ?? node.model.visible), ...childKeys(node)];
  return Object.fromEntries(names.map((name) => [storedName(name), 1]));
}

/** Extra filters of one level: the read scope, the relation's fixed `filter`, and what relation hooks added. */
type Narrowing = readonly Document[];

function scoped(filter: Document, narrowing: Narrowing): Document {
  const parts = narrowing.filter((part) => Object.keys(part).length > 0);
  return parts.length === 0 ? filter : { $and: [filter, ...parts] };
}

/** The order of a relation's children: its `sort`, then id. */
function childOrder(node: WithNode): Document {
  const order: Document = {};
  for (const [field, direction] of Object.entries(node.relation.sort ?? {})) order[storedName(field)] = direction;
  if (!("_id" in order)) order._id = 1;
  return order;
}

/** belongsTo: at most one related document per key, so a plain `$in` find is enough. */
async function fetchOwners(db: Db, node: WithNode, values: unknown[], scope: Narrowing): Promise<Groups> {
  const docs = await db
    .collection(node.model.collection)
    // One more than can come back, so the first batch always exhausts the cursor and the
    // driver never needs a getMore: the level stays one command.
    .find(scoped({ _id: { $in: values } }, scope), { projection: childProjection(node), batchSize: values.length + 1 })
    .toArray();
  return new Map(docs.map((doc) => [joinKey(doc._id), [doc]]));
}

/** Window output field holding a child's position among its siblings; projected away at the end. */
const RANK = "__rank";

/** Groups children by their foreign key, keeping the order the query returned them in. */
function groupBy(docs: readonly Document[], fk: string): Groups {
  const groups: Groups = new Map();
  for (const doc of docs) {
    const key = joinKey(doc[fk]);
    if (key === undefined) continue;
    const siblings = groups.get(key);
    if (siblings) siblings.push(doc);
    else groups.set(key, [doc]);
  }
  return groups;
}

/**
 * hasMany / hasOne: one aggregate for the whole level. `$setWindowFields` numbers the
 * children of each parent in id order and `$match` keeps the first `cap`, so the cap is
 * applied by the database and no parent can pull an unbounded number of children into the
 * response. Children stay separate documents (a `$group`/`$push` would build one document
 * per parent, which can outgrow the 16 MB BSON limit). Needs MongoDB 5.0 or later.
 */
async function fetchChildren(
  db: Db,
  node: WithNode,
  values: unknown[],
  cap: number,
  scope: Narrowing,
): Promise<Groups> {
  const fk = node.relation.foreignKey;
  const order = childOrder(node);
  const pipeline = [
    { $match: scoped({ [fk]: { $in: values } }, scope) },
    { $setWindowFields: { partitionBy: `$${fk}`, sortBy: order, output: { [RANK]: { $documentNumber: {} } } } },
    { $match: { [RANK]: { $lte: cap } } },
    // The window's output order is not documented; this sort (of at most cap × parents
    // documents) is what guarantees the relation's order (by default id) within each parent.
    { $sort: order },
    // An inclusion projection, so the rank field is dropped along with unrequested fields.
    { $project: childProjection(node) },
  ];
  // Sized so the first batch always drains the cursor: no getMore, one command per level
  // (unless the result is over 16 MB, when the driver fetches the rest as it must).
  const batchSize = Math.min(values.length * cap + 1, 100_000);
  const docs = await db.collection(node.model.collection).aggregate(pipeline, { batchSize }).toArray();
  return groupBy(docs, fk);
}

function fetchLevel(db: Db, node: WithNode, values: unknown[], limits: QueryLimits, scope: Narrowing): Promise<Groups> {
  switch (node.relation.type) {
    case "belongsTo":
      return fetchOwners(db, node, values, scope);
    case "hasOne":
      return fetchChildren(db, node, values, 1, scope);
    default:
      return fetchChildren(
        db,
        node,
        values,
        Math.min(node.relation.limit ?? Infinity, limits.maxChildrenPerParent),
        scope,
      );
  }
}

/** Adds filters from the request to one relation level (`onBeforeRelation` hooks). */
export type RelationNarrower = (node: WithNode) => Promise<Document[]>;

async function narrowing(
  node: WithNode,
  scope: (model: Model) => Document,
  narrow?: RelationNarrower,
): Promise<Narrowing> {
  const fixed = [scope(node.model), node.relation.filter ?? {}];
  return narrow ? [...fixed, ...(await narrow(node))] : fixed;
}

/** Serialises each fetched child once; a belongsTo target shared by parents is shared too. */
function serialise(model: Model, groups: Groups, fields: readonly string[] | null) {
  const records = new Map<Document, ApiRecord>();
  for (const docs of groups.values()) {
    for (const doc of docs) if (!records.has(doc)) records.set(doc, toRecord(model, doc, fields));
  }
  return records;
}

/** Fetches one node's children (and theirs) and returns each parent's value, in parent order. */
async function loadNode(
  db: Db,
  docs: readonly Document[],
  node: WithNode,
  limits: QueryLimits,
  scope: (model: Model) => Document,
  narrow?: RelationNarrower,
): Promise<unknown[]> {
  const parentPath = node.relation.type === "belongsTo" ? node.relation.foreignKey : "_id";
  const values = parentValues(docs, parentPath);
  const groups = values.length === 0
    ? new Map()
    : await fetchLevel(db, node, values, limits, await narrowing(node, scope, narrow));
  const children = serialise(node.model, groups, node.fields);
  await loadRelations(db, [...children.keys()], [...children.values()], node.children, limits, scope, narrow);
  return docs.map((doc) => {
    const found: Document[] = groups.get(joinKey(doc[parentPath])) ?? [];
    const attached = found.map((child) => children.get(child) as ApiRecord);
    return node.relation.type === "hasMany" ? attached : (attached[0] ?? null);
  });
}

/**
 * Loads the relations in `nodes` for a page of parents and attaches them to the records.
 *
 * For each node, ONE query (`$in` over the parents' keys) serves the whole page, and each
 * level of children recurses the same way, so `with=posts{comments}` costs two queries
 * whatever the page size. `docs` are the raw parents (with `_id` and the keys from
 * `parentKeys`), `records` their serialised form in the same order. Sets
 * `records[i][relation]` to an array (hasMany: the first `maxChildrenPerParent`, or the
 * relation's smaller `limit`, children in the relation's `sort`, else id order) or to an object
 * or null (hasOne, belongsTo). `scope(model)` (soft delete, may be `{}`), the relation's fixed
 * `filter` and the filters `narrow(node)` returns (relation hooks) are ANDed into every child query.
 * @example await loadRelations(db, docs, records, parseWith("posts{comments}", User, registry, limits), limits, () => ({}))
 * // records[0].posts → [{ id, title, …, comments: [{ … }] }]
 */
export async function loadRelations(
  db: Db,
  docs: readonly Document[],
  records: ApiRecord[],
  nodes: readonly WithNode[],
  limits: QueryLimits,
  scope: (model: Model) => Document,
  narrow?: RelationNarrower,
): Promise<void> {
  if (docs.length === 0 || nodes.length === 0) return;
  const loaded = await Promise.all(nodes.map((node) => loadNode(db, docs, node, limits, scope, narrow)));
  // Attached only once all are loaded, in the order of `with`, so the output's key order
  // does not depend on which query happened to answer first.
  nodes.forEach((node, n) => records.forEach((record, i) => (record[node.relation.name] = loaded[n][i])));
}
