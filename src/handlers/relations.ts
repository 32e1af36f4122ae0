import type { Db, Document } from "mongodb";
import type { Model } from "../model/define.ts";
import { type ApiRecord, toRecord } from "../model/serialize.ts";
import { jsonSizeEstimate, type ResponseBudget } from "../query/budget.ts";
import { storedName } from "../query/columns.ts";
import type { QueryLimits } from "../query/limits.ts";
import { childKeys, type WithNode } from "../query/with.ts";
import { stopIfGone } from "./client-gone.ts";
import { allOf } from "./route.ts";

/** What loading a response's relations needs besides the parents: where, within what, and for whom. */
export interface RelationLoad {
  db: Db;
  limits: QueryLimits;
  /** The read scope of a related model (soft delete; may be `{}`). */
  scope: (model: Model) => Document;
  /** `onBeforeRelation` hooks' filters, if any model reached has one. */
  narrow?: RelationNarrower;
  /** The time limit of a read of `model`'s collection (its `maxTimeMS`). */
  timeMs: (model: Model) => number;
  /** What the response may still carry; every level is charged to it before the next is read. */
  budget: ResponseBudget;
  /** The request the relations are loaded for: once its client is gone, no further level is read. */
  request: Request;
}

/** One level's read: its values, the narrowing, the cap per parent and the most documents it may return. */
interface LevelRead {
  values: unknown[];
  scope: Narrowing;
  maxTimeMS: number;
  /** Most documents the budget leaves room for; one more means over budget. */
  room: number;
  /** Throws the budget's 400. */
  over: () => never;
}

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

/** The order of a relation's children: its `sort`, then id. */
function childOrder(node: WithNode): Document {
  const order: Document = {};
  for (const [field, direction] of Object.entries(node.relation.sort ?? {})) order[storedName(field)] = direction;
  if (!("_id" in order)) order._id = 1;
  return order;
}

/** belongsTo: at most one related document per key, so a plain `$in` find is enough. */
async function fetchOwners(db: Db, node: WithNode, read: LevelRead): Promise<Groups> {
  const { values, scope, maxTimeMS } = read;
  const docs = await db
    .collection(node.model.collection)
    // One more than can come back, so the first batch always exhausts the cursor and the
    // driver never needs a getMore: the level stays one command.
    .find(allOf([{ _id: { $in: values } }, ...scope]), {
      projection: childProjection(node),
      batchSize: values.length + 1,
      maxTimeMS,
    })
    .toArray();
  return new Map(docs.map((doc) => [joinKey(doc._id), [doc]]));
}

/** The field that carries a parent's children from `$lookup` to `$unwind`; gone from the output after `$replaceRoot`. */
const CHILDREN = "__children";

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
 * Children hold one parent's id in their foreign key. An array there would join many parents
 * (and {@link joinKey} never attaches it): left out in the read, it takes no parent's place
 * under the cap.
 */
function singleKey(fk: string): Document {
  return { [fk]: { $not: { $type: "array" } } };
}

/**
 * Whether the related model declares an index that starts with the foreign key (a unique one
 * included): then each parent's children are one seek away, and a read per parent costs the
 * children it returns. Without one, every such read would scan the related collection.
 */
function foreignKeyIndexed(node: WithNode): boolean {
  const fk = storedName(node.relation.foreignKey);
  return node.model.unique.some((field) => storedName(field) === fk) ||
    node.model.indexes.some((index) => Object.keys(index.keys)[0] === fk);
}

/**
 * The read of one parent's children, as a `$lookup` sub-pipeline: the level's narrowing, the
 * relation's order, the cap, and the fields to return. MongoDB puts the equality on the
 * foreign key in front of it, so an index on `{<foreignKey>: 1, <sort keys>, _id: 1}` serves
 * it with `cap` entries read per parent.
 */
function childPipeline(node: WithNode, cap: number, scope: Narrowing): Document[] {
  return [
    { $match: allOf([singleKey(node.relation.foreignKey), ...scope]) },
    { $sort: childOrder(node) },
    { $limit: cap },
    { $project: childProjection(node) },
  ];
}

/**
 * The level as a `$lookup` from the parents: for each parent, its first `cap` children in the
 * relation's order (MongoDB 5.0's localField/foreignField with a pipeline), so the level reads
 * about parents × cap children whatever the collection holds (a parent with 100,000 children
 * costs its 100 shown). `$unwind` + `$replaceRoot` give the children back as separate
 * documents, grouped per parent in that order (MongoDB runs `$lookup` and `$unwind` as one
 * stage, so no parent document gathers its children and meets the 16 MB limit).
 */
function perParentRead(node: WithNode, values: unknown[], cap: number, scope: Narrowing): Aggregate {
  const lookup = {
    from: node.model.collection,
    localField: "_id",
    foreignField: node.relation.foreignKey,
    pipeline: childPipeline(node, cap, scope),
    as: CHILDREN,
  };
  return {
    collection: node.owner.collection,
    pipeline: [
      { $match: { _id: { $in: values } } },
      { $lookup: lookup },
      { $unwind: `$${CHILDREN}` },
      { $replaceRoot: { newRoot: `$${CHILDREN}` } },
    ],
  };
}

/** Window output field holding a child's position among its siblings; projected away at the end. */
const RANK = "__rank";

/**
 * The level as one read of the related collection, for a foreign key no declared index starts
 * with: every child of the page's parents, numbered per parent in the relation's order and cut
 * at the cap. That is one scan of the collection where a read per parent would be one scan
 * each; declaring the index makes the level follow the page instead.
 */
function oneScanRead(node: WithNode, values: unknown[], cap: number, scope: Narrowing): Aggregate {
  const fk = node.relation.foreignKey;
  const order = childOrder(node);
  return {
    collection: node.model.collection,
    pipeline: [
      { $match: allOf([{ [fk]: { $in: values } }, singleKey(fk), ...scope]) },
      { $setWindowFields: { partitionBy: `$${fk}`, sortBy: order, output: { [RANK]: { $documentNumber: {} } } } },
      { $match: { [RANK]: { $lte: cap } } },
      // The window's output order is not documented; this sort of at most cap × parents
      // documents is what guarantees the relation's order within each parent.
      { $sort: order },
      // An inclusion projection, so the rank field goes with the unrequested fields.
      { $project: childProjection(node) },
    ],
  };
}

/** An aggregate: the collection it runs on and its stages. */
interface Aggregate {
  collection: string;
  pipeline: Document[];
}

/**
 * hasMany / hasOne: one aggregate for the whole level, which applies the cap in the database,
 * so no parent can pull an unbounded number of children into the response. Read per parent
 * when an index serves that, else in one scan (see {@link perParentRead}, {@link oneScanRead}).
 */
async function fetchChildren(db: Db, node: WithNode, read: LevelRead, cap: number): Promise<Groups> {
  const { values, scope, maxTimeMS, room } = read;
  const aggregate = foreignKeyIndexed(node)
    ? perParentRead(node, values, cap, scope)
    : oneScanRead(node, values, cap, scope);
  // No more than the budget has room for, and one to tell: the level never reads past it.
  const most = Math.min(values.length * cap, room + 1);
  const pipeline = most < values.length * cap ? [...aggregate.pipeline, { $limit: most }] : aggregate.pipeline;
  // Sized so the first batch always drains the cursor: no getMore, one command per level
  // (unless the result is over 16 MB, when the driver fetches the rest as it must).
  const batchSize = Math.min(most + 1, 100_000);
  const docs = await db.collection(aggregate.collection).aggregate(pipeline, { batchSize, maxTimeMS }).toArray();
  if (docs.length > room) read.over();
  return groupBy(docs, node.relation.foreignKey);
}

function fetchLevel(db: Db, node: WithNode, read: LevelRead, limits: QueryLimits): Promise<Groups> {
  switch (node.relation.type) {
    case "belongsTo":
      return fetchOwners(db, node, read);
    case "hasOne":
      return fetchChildren(db, node, read, 1);
    default:
      return fetchChildren(db, node, read, Math.min(node.relation.limit ?? Infinity, limits.maxChildrenPerParent));
  }
}

/** Adds filters from the request to one relation level (`onBeforeRelation` hooks). */
export type RelationNarrower = (node: WithNode) => Promise<Document[]>;

async function narrowing(node: WithNode, load: RelationLoad): Promise<Narrowing> {
  const fixed = [load.scope(node.model), node.relation.filter ?? {}];
  return load.narrow ? [...fixed, ...(await load.narrow(node))] : fixed;
}

/** Serialises each fetched child once; a belongsTo target shared by parents is shared too. */
function serialise(model: Model, groups: Groups, fields: readonly string[] | null) {
  const records = new Map<Document, ApiRecord>();
  for (const docs of groups.values()) {
    for (const doc of docs) if (!records.has(doc)) records.set(doc, toRecord(model, doc, fields));
  }
  return records;
}

/** A level of parents: their documents, their records, and how many times each is written out. */
interface Parents {
  docs: readonly Document[];
  records: ApiRecord[];
  /** Copies of each parent in the body (1 on the page; more below a shared belongsTo owner). */
  copies: readonly number[];
}

/** The level's read, sized by what the budget has room for (each child weighs at least the lightest parent). */
async function levelRead(node: WithNode, values: unknown[], parents: Parents, load: RelationLoad): Promise<LevelRead> {
  const lightest = Math.min(...parents.copies);
  return {
    values,
    scope: await narrowing(node, load),
    maxTimeMS: load.timeMs(node.model),
    room: Math.floor(load.budget.recordsLeft / lightest),
    over: () => load.budget.overRecords(),
  };
}

/**
 * Each parent's value (in parent order) and each child's copies: as many as the copies of the
 * parents it is attached to. Every child is charged to the budget that many times.
 */
function attach(
  node: WithNode,
  parents: Parents,
  groups: Groups,
  children: Map<Document, ApiRecord>,
  load: RelationLoad,
) {
  const parentPath = node.relation.type === "belongsTo" ? node.relation.foreignKey : "_id";
  const copies = new Map<Document, number>();
  const values = parents.docs.map((doc, i) => {
    const found: Document[] = groups.get(joinKey(doc[parentPath])) ?? [];
    const attached = node.relation.type === "hasMany" ? found : found.slice(0, 1);
    for (const child of attached) copies.set(child, (copies.get(child) ?? 0) + parents.copies[i]);
    const records = attached.map((child) => children.get(child) as ApiRecord);
    return node.relation.type === "hasMany" ? records : (records[0] ?? null);
  });
  for (const [child, n] of copies) load.budget.charge(n, jsonSizeEstimate(children.get(child)));
  return { values, copies };
}

/** Fetches one node's children (and theirs) and returns each parent's value, in parent order. */
async function loadNode(parents: Parents, node: WithNode, load: RelationLoad): Promise<unknown[]> {
  const parentPath = node.relation.type === "belongsTo" ? node.relation.foreignKey : "_id";
  const values = parentValues(parents.docs, parentPath);
  stopIfGone(load.request);
  const groups = values.length === 0
    ? new Map()
    : await fetchLevel(load.db, node, await levelRead(node, values, parents, load), load.limits);
  const children = serialise(node.model, groups, node.fields);
  const attached = attach(node, parents, groups, children, load);
  const docs = [...children.keys()];
  const below = { docs, records: [...children.values()], copies: docs.map((doc) => attached.copies.get(doc) ?? 0) };
  await loadLevels(below, node.children, load);
  return attached.values;
}

async function loadLevels(parents: Parents, nodes: readonly WithNode[], load: RelationLoad): Promise<void> {
  if (parents.docs.length === 0 || nodes.length === 0) return;
  const loaded = await Promise.all(nodes.map((node) => loadNode(parents, node, load)));
  // Attached only once all are loaded, in the order of `with`, so the output's key order
  // does not depend on which query happened to answer first.
  nodes.forEach((node, n) => parents.records.forEach((record, i) => (record[node.relation.name] = loaded[n][i])));
}

/**
 * Loads the relations in `nodes` for a page of parents and attaches them to the records.
 *
 * For each node, ONE query (`$in` over the parents' keys) serves the whole page, and each
 * level of children recurses the same way, so `with=posts{comments}` costs two queries
 * whatever the page size; a hasMany or hasOne level reads at most `cap` children per parent
 * (with an index on the foreign key and the relation's order). `docs` are the raw parents (with
 * `_id` and the keys from `parentKeys`), `records` their serialised form in the same order. Sets
 * `records[i][relation]` to an array (hasMany: the first `maxChildrenPerParent`, or the
 * relation's smaller `limit`, children in the relation's `sort`, else id order) or to an object
 * or null (hasOne, belongsTo). The related model's scope (soft delete, may be `{}`), the
 * relation's fixed `filter` and the filters of relation hooks are ANDed into every child query.
 * Every level is charged to `load.budget` as it arrives (a 400 past it), and reads no more than
 * the budget has room for; each read carries the related model's time limit.
 * @example await loadRelations(docs, records, parseWith("posts{comments}", User, registry, limits), load)
 * // records[0].posts → [{ id, title, …, comments: [{ … }] }]
 */
export async function loadRelations(
  docs: readonly Document[],
  records: ApiRecord[],
  nodes: readonly WithNode[],
  load: RelationLoad,
): Promise<void> {
  await loadLevels({ docs, records, copies: docs.map(() => 1) }, nodes, load);
}
