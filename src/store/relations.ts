import type { Document } from "bson";
import { allOf } from "../plan/conditions.ts";
import type { ReadBudget, RelationRead } from "../plan/read.ts";
import { jsonSizeEstimate } from "../plan/size.ts";
import type { RecordStore } from "./records.ts";

/** Children of one level, grouped by the value they share with their parent. */
type Groups = Map<unknown, Document[]>;

/** One relation level as read: each parent's related documents (in parent order), and the levels below them. */
export interface LoadedRelation<Source = unknown> {
  read: RelationRead<Source>;
  /** Per parent, in the parents' order: its related documents (at most one for belongsTo and hasOne). */
  perParent: Document[][];
  /** Every related document of the level once, in first-seen order: the parents of `children`. */
  docs: Document[];
  children: LoadedRelation<Source>[];
}

/** What loading relations needs besides the parents and the reads. */
export interface RelationLoading<Source = unknown> {
  /** The record store of a model: its driver collection and its commands' time limit. */
  storeOf(model: string): RecordStore;
  /** What the response may still carry; each level is charged before the next is read. */
  budget: ReadBudget;
  /** Filters relation hooks add to a level, asked just before it is read. */
  narrow?: (read: RelationRead<Source>) => Promise<Document[]>;
  /** Called before each level is read: throws to stop (the client has gone). */
  beforeLevel(): void;
}

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

/** Groups children by their key, keeping the order the query returned them in. */
function groupBy(docs: readonly Document[], key: string): Groups {
  const groups: Groups = new Map();
  for (const doc of docs) {
    const value = joinKey(doc[key]);
    if (value === undefined) continue;
    const siblings = groups.get(value);
    if (siblings) siblings.push(doc);
    else groups.set(value, [doc]);
  }
  return groups;
}

/** One level's read as it is sent: the parents' values, every filter, and how many documents the budget has room for. */
interface LevelQuery {
  values: unknown[];
  filters: Document[];
  /** Most documents the budget leaves room for; one more means over budget. */
  room: number;
}

/** belongsTo: at most one related document per key, so a plain `$in` find is enough. */
async function fetchOwners(store: RecordStore, read: RelationRead, query: LevelQuery): Promise<Groups> {
  const docs = await store.collection
    // One more than can come back, so the first batch always exhausts the cursor and the
    // driver never needs a getMore: the level stays one command.
    .find(allOf([{ _id: { $in: query.values } }, ...query.filters]), {
      projection: read.projection,
      batchSize: query.values.length + 1,
      maxTimeMS: store.timeMs,
    })
    .toArray();
  return new Map(docs.map((doc) => [joinKey(doc._id), [doc]]));
}

/** The field that carries a parent's children from `$lookup` to `$unwind`; gone from the output after `$replaceRoot`. */
const CHILDREN = "__children";

/**
 * Children hold one parent's id in their foreign key. An array there would join many parents
 * (and {@link joinKey} never attaches it): left out in the read, it takes no parent's place
 * under the cap.
 */
function singleKey(fk: string): Document {
  return { [fk]: { $not: { $type: "array" } } };
}

/**
 * The level as a `$lookup` from the parents: for each parent, its first `cap` children in the
 * relation's order (MongoDB 5.0's localField/foreignField with a pipeline), so the level reads
 * about parents × cap children whatever the collection holds (a parent with 100,000 children
 * costs its 100 shown). MongoDB puts the equality on the foreign key in front of the
 * sub-pipeline, so an index on `{<foreignKey>: 1, <sort keys>, _id: 1}` serves it with `cap`
 * entries read per parent. `$unwind` + `$replaceRoot` give the children back as separate
 * documents, grouped per parent in that order (MongoDB runs `$lookup` and `$unwind` as one
 * stage, so no parent document gathers its children and meets the 16 MB limit).
 */
function perParentPipeline(read: RelationRead, query: LevelQuery): Document[] {
  const lookup = {
    from: read.collection,
    localField: "_id",
    foreignField: read.childKey,
    pipeline: [
      { $match: allOf([singleKey(read.childKey), ...query.filters]) },
      { $sort: read.order },
      { $limit: read.cap },
      { $project: read.projection },
    ],
    as: CHILDREN,
  };
  return [
    { $match: { _id: { $in: query.values } } },
    { $lookup: lookup },
    { $unwind: `$${CHILDREN}` },
    { $replaceRoot: { newRoot: `$${CHILDREN}` } },
  ];
}

/** Window output field holding a child's position among its siblings; projected away at the end. */
const RANK = "__rank";

/**
 * The level as one read of the related collection, for a foreign key no declared index starts
 * with: every child of the page's parents, numbered per parent in the relation's order and cut
 * at the cap. That is one scan of the collection where a read per parent would be one scan
 * each; declaring the index makes the level follow the page instead.
 */
function oneScanPipeline(read: RelationRead, query: LevelQuery): Document[] {
  const fk = read.childKey;
  return [
    { $match: allOf([{ [fk]: { $in: query.values } }, singleKey(fk), ...query.filters]) },
    { $setWindowFields: { partitionBy: `$${fk}`, sortBy: read.order, output: { [RANK]: { $documentNumber: {} } } } },
    { $match: { [RANK]: { $lte: read.cap } } },
    // The window's output order is not documented; this sort of at most cap × parents
    // documents is what guarantees the relation's order within each parent.
    { $sort: read.order },
    // An inclusion projection, so the rank field goes with the unrequested fields.
    { $project: read.projection },
  ];
}

/**
 * hasMany / hasOne: one aggregate for the whole level, which applies the cap in the database,
 * so no parent can pull an unbounded number of children into the response, and reads no more
 * than the budget has room for (one more says it is over). Read per parent when an index
 * serves that (from the parents' collection), else in one scan.
 */
async function fetchChildren(
  storeOf: (model: string) => RecordStore,
  read: RelationRead,
  query: LevelQuery,
  budget: ReadBudget,
): Promise<Groups> {
  const pipeline = read.indexed ? perParentPipeline(read, query) : oneScanPipeline(read, query);
  const store = storeOf(read.indexed ? read.parentModel : read.model);
  const most = Math.min(query.values.length * read.cap, query.room + 1);
  if (most < query.values.length * read.cap) pipeline.push({ $limit: most });
  // Sized so the first batch always drains the cursor: no getMore, one command per level
  // (unless the result is over 16 MB, when the driver fetches the rest as it must).
  const batchSize = Math.min(most + 1, 100_000);
  const docs = await store.collection.aggregate(pipeline, { batchSize, maxTimeMS: store.timeMs }).toArray();
  if (docs.length > query.room) budget.overRecords();
  return groupBy(docs, read.childKey);
}

/** A level of parents: their documents and how many times each is written out. */
interface Parents {
  docs: readonly Document[];
  /** Copies of each parent in the body (1 on the page; more below a shared belongsTo owner). */
  copies: readonly number[];
}

/** The level's query: the parents' values, the fixed and hooks' filters, and the room the budget leaves. */
async function levelQuery<S>(
  read: RelationRead<S>,
  values: unknown[],
  parents: Parents,
  loading: RelationLoading<S>,
): Promise<LevelQuery> {
  const hooked = loading.narrow ? await loading.narrow(read) : [];
  return {
    values,
    filters: [...read.filters, ...hooked],
    room: Math.floor(loading.budget.recordsLeft / Math.min(...parents.copies)),
  };
}

/**
 * Each parent's related documents (in parent order) and each document's copies: as many as the
 * copies of the parents it is attached to. Every document is charged to the budget that many times.
 */
function attach(read: RelationRead, parents: Parents, groups: Groups, budget: ReadBudget) {
  const copies = new Map<Document, number>();
  const perParent = parents.docs.map((doc, i) => {
    const found: Document[] = groups.get(joinKey(doc[read.parentKey])) ?? [];
    const attached = read.type === "hasMany" ? found : found.slice(0, 1);
    for (const child of attached) copies.set(child, (copies.get(child) ?? 0) + parents.copies[i]);
    return attached;
  });
  for (const [child, n] of copies) budget.charge(n, jsonSizeEstimate(child));
  return { perParent, copies };
}

/** Reads one relation level for `parents`, charges it, then reads the levels below it. */
async function loadLevel<S>(parents: Parents, read: RelationRead<S>, loading: RelationLoading<S>) {
  const values = parentValues(parents.docs, read.parentKey);
  loading.beforeLevel();
  let groups: Groups = new Map();
  if (values.length > 0) {
    const query = await levelQuery(read, values, parents, loading);
    groups = read.type === "belongsTo"
      ? await fetchOwners(loading.storeOf(read.model), read, query)
      : await fetchChildren(loading.storeOf, read, query, loading.budget);
  }
  const { perParent, copies } = attach(read, parents, groups, loading.budget);
  const docs = [...new Set([...groups.values()].flat())].filter((doc) => copies.has(doc));
  const below = { docs, copies: docs.map((doc) => copies.get(doc)!) };
  const children = await loadLevels(below, read.children, loading);
  return { read, perParent, docs, children };
}

async function loadLevels<S>(
  parents: Parents,
  reads: readonly RelationRead<S>[],
  loading: RelationLoading<S>,
): Promise<LoadedRelation<S>[]> {
  if (parents.docs.length === 0 || reads.length === 0) return reads.map((read) => emptyLevel(read, parents));
  return await Promise.all(reads.map((read) => loadLevel(parents, read, loading)));
}

/** A level with nothing to read: every parent gets nothing, and so do the levels below. */
function emptyLevel<S>(read: RelationRead<S>, parents: Parents): LoadedRelation<S> {
  return { read, perParent: parents.docs.map(() => []), docs: [], children: [] };
}

/**
 * Loads the relations `reads` for a page of parents (each with `_id` and the keys the reads
 * attach by). For each read, ONE query (`$in` over the parents' keys) serves the whole page,
 * and each level below recurses the same way, so `with=posts{comments}` costs two queries
 * whatever the page size; a hasMany or hasOne level reads at most `cap` children per parent.
 * Every level is charged to the budget as it arrives, counting each document as often as it is
 * written out, and reads no more than the budget has room for; each read carries its
 * collection's time limit.
 */
export async function loadRelations<S>(
  docs: readonly Document[],
  reads: readonly RelationRead<S>[],
  loading: RelationLoading<S>,
): Promise<LoadedRelation<S>[]> {
  return await loadLevels({ docs, copies: docs.map(() => 1) }, reads, loading);
}
