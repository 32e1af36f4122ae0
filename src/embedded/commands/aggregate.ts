import type { Document } from "bson";
import { Aggregator, ProcessingMode } from "mingo";
import { cloneDeep } from "mingo/util";
import { isPlainObject, toNumber } from "../bson.ts";
import { DEFAULT_FIRST_BATCH } from "../cursors.ts";
import { CommandError } from "../errors.ts";
import { isEmptyFilter } from "../query/filter.ts";
import { countMatching, runRead, type ReadSpec } from "../query/plan.ts";
import type { Collection } from "../store/collection.ts";
import { collectionName, namespace, optionalCount } from "./args.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";

/** Stages that never write into the documents they receive, so stored ones can be passed in. */
const NON_MUTATING = new Set(["$match", "$sort", "$skip", "$limit", "$group", "$count", "$sortByCount", "$lookup"]);

function stageName(stage: unknown): string {
  if (!isPlainObject(stage)) throw new CommandError("TypeMismatch", "each pipeline stage must be an object");
  const keys = Object.keys(stage);
  if (keys.length !== 1) throw new CommandError("BadValue", "a pipeline stage must have exactly one field");
  return keys[0];
}

/** $out/$merge would write behind the engine's back (mingo writes into the arrays it is given). */
function rejectWrites(value: unknown): void {
  if (Array.isArray(value)) value.forEach(rejectWrites);
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$out" || k === "$merge") throw new CommandError("NotImplemented", `${k} is not supported by the embedded engine`);
      rejectWrites(v);
    }
  }
}

/** `[$match?, $skip?, $limit?, {$group: {_id: const, n: {$sum: 1}}}]`: the driver's countDocuments. */
function countShape(pipeline: Document[]): { spec: ReadSpec; group: Document } | undefined {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  if (i !== pipeline.length - 1 || !isPlainObject(pipeline[i].$group)) return undefined;
  const group = pipeline[i].$group as Document;
  const fields = Object.keys(group);
  const constantId = typeof group._id !== "string" && !isPlainObject(group._id);
  const counter = fields.length === 2 && fields[0] === "_id" ? group[fields[1]] : undefined;
  if (!constantId || !isPlainObject(counter) || toNumber((counter as Document).$sum) !== 1) return undefined;
  return { spec, group };
}

/** Folds a leading `$match`, `$sort`, `$skip`, `$limit` into an indexed, streaming read. */
function leadingRead(pipeline: Document[]): { spec: ReadSpec; rest: Document[] } {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$sort !== undefined) spec.sort = pipeline[i++].$sort;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  return { spec, rest: pipeline.slice(i) };
}

function source(coll: Collection | undefined, spec: ReadSpec, rest: Document[], ctx: CommandContext): Iterator<Document> {
  const read = runRead(coll, spec);
  if (rest.length === 0) return read;
  const safe = rest.every((stage) => NON_MUTATING.has(stageName(stage)));
  const resolve = (name: string): Document[] => {
    const docs = ctx.engine.catalog.get(ctx.db, name)?.docs.view() ?? [];
    return (safe ? docs : docs.map((d) => cloneDeep(d))) as Document[];
  };
  const aggregator = new Aggregator(rest, {
    processingMode: safe ? ProcessingMode.CLONE_OFF : ProcessingMode.CLONE_INPUT,
    collectionResolver: resolve,
  });
  return aggregator.stream({ [Symbol.iterator]: () => read }) as Iterator<Document>;
}

function dbLevelSource(pipeline: Document[], ctx: CommandContext): Iterator<Document> {
  const aggregator = new Aggregator(pipeline, {
    processingMode: ProcessingMode.CLONE_INPUT,
    collectionResolver: (n: string) => (ctx.engine.catalog.get(ctx.db, n)?.docs.view() ?? []).map((d) => cloneDeep(d)) as Document[],
  });
  return aggregator.stream([]) as Iterator<Document>;
}

function aggregate(ctx: CommandContext): Reply {
  const name = typeof ctx.body.aggregate === "string" ? collectionName(ctx, "aggregate") : undefined;
  const pipeline = ctx.body.pipeline;
  if (!Array.isArray(pipeline)) throw new CommandError("TypeMismatch", "'pipeline' must be an array");
  pipeline.forEach(stageName);
  rejectWrites(pipeline);
  const cursorOptions = isPlainObject(ctx.body.cursor) ? ctx.body.cursor : {};
  const batchSize = optionalCount(cursorOptions, "batchSize") ?? DEFAULT_FIRST_BATCH;
  const { cursors, catalog } = ctx.engine;
  if (name === undefined) {
    return cursors.first(namespace(ctx.db, "$cmd.aggregate"), dbLevelSource(pipeline, ctx), null, batchSize, false);
  }
  const coll = catalog.get(ctx.db, name);
  const ns = namespace(ctx.db, name);
  const counting = countShape(pipeline);
  if (counting) {
    const { spec, group } = counting;
    const n = countMatching(coll, isEmptyFilter(spec.filter) ? undefined : spec.filter, spec.skip, spec.limit);
    const docs = n > 0 ? [{ _id: group._id ?? null, [Object.keys(group)[1]]: n }] : [];
    return cursors.first(ns, docs[Symbol.iterator](), null, batchSize, false);
  }
  const { spec, rest } = leadingRead(pipeline);
  return cursors.first(ns, source(coll, spec, rest, ctx), null, batchSize, false);
}

/** The aggregate command (mingo runs the stages after the leading read the engine folds). */
export const aggregateCommands: Record<string, Handler> = { aggregate };
