import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { isEmptyFilter } from "../query/filter.ts";
import { countMatching, runRead, type ReadSpec } from "../query/plan.ts";
import { runPipeline, stageName, type CollectionResolver } from "../query/pipeline.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import { collectionName, firstBatchSize, namespace } from "./args.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";

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
export function countShape(pipeline: Document[]): { spec: ReadSpec; group: Document } | undefined {
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
export function leadingRead(pipeline: Document[]): { spec: ReadSpec; rest: Document[] } {
  const spec: ReadSpec = {};
  let i = 0;
  if (pipeline[i]?.$match !== undefined) spec.filter = pipeline[i++].$match;
  if (pipeline[i]?.$sort !== undefined) spec.sort = pipeline[i++].$sort;
  if (pipeline[i]?.$skip !== undefined) spec.skip = toNumber(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) spec.limit = toNumber(pipeline[i++].$limit);
  return { spec, rest: pipeline.slice(i) };
}

/** Finds the other collections a pipeline joins, in the command's database. */
export function resolver(ctx: CommandContext): CollectionResolver {
  return (name) => ctx.engine.catalog.get(ctx.db, name)?.docs.view() ?? [];
}

function aggregate(ctx: CommandContext): Reply {
  const name = typeof ctx.body.aggregate === "string" ? collectionName(ctx, "aggregate") : undefined;
  const pipeline = ctx.body.pipeline;
  if (!Array.isArray(pipeline)) throw new CommandError("TypeMismatch", "'pipeline' must be an array");
  pipeline.forEach(stageName);
  rejectWrites(pipeline);
  const variables = parseLet(ctx.body);
  const batchSize = firstBatchSize(ctx.body.cursor);
  const { cursors, catalog } = ctx.engine;
  if (name === undefined) {
    const output = runPipeline(pipeline, [][Symbol.iterator](), resolver(ctx), variables);
    return cursors.first(namespace(ctx.db, "$cmd.aggregate"), output, null, batchSize, false);
  }
  const coll = catalog.get(ctx.db, name);
  const ns = namespace(ctx.db, name);
  const counting = countShape(pipeline);
  if (counting) {
    const { spec, group } = counting;
    const filter = isEmptyFilter(spec.filter) ? undefined : bindFilter(spec.filter, variables);
    const n = countMatching(coll, filter, spec.skip, spec.limit);
    const docs = n > 0 ? [{ _id: group._id ?? null, [Object.keys(group)[1]]: n }] : [];
    return cursors.first(ns, docs[Symbol.iterator](), null, batchSize, false);
  }
  const { spec, rest } = leadingRead(pipeline);
  const output = runPipeline(rest, runRead(coll, { ...spec, filter: bindFilter(spec.filter, variables) }), resolver(ctx), variables);
  return cursors.first(ns, output, null, batchSize, false);
}

/** The aggregate command (mingo runs the stages after the leading read the engine folds). */
export const aggregateCommands: Record<string, Handler> = { aggregate };
