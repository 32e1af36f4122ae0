import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { isEmptyFilter } from "../query/filter.ts";
import { collect, countMatching, runRead, type ReadSpec } from "../query/plan.ts";
import { runPipeline, stageName, type CollectionResolver } from "../query/pipeline.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import { collectionName, firstBatchSize, namespace } from "./args.ts";
import { checkHint } from "./hint.ts";
import { findStages, readView, resolveView } from "./views.ts";
import { outputStage, writeOutput, type OutputStage } from "./output-stages.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";

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
  const resolve: CollectionResolver = (name) => {
    const view = resolveView(ctx, name);
    if (view) return collect(readView(ctx, view, [], resolve));
    return ctx.engine.catalog.get(ctx.db, name)?.docs.view() ?? [];
  };
  return resolve;
}

/** The pipeline of an aggregate command, its stages validated. */
function pipelineOf(body: Document): Document[] {
  const pipeline = body.pipeline;
  if (!Array.isArray(pipeline)) throw new CommandError("TypeMismatch", "'pipeline' must be an array");
  pipeline.forEach(stageName);
  return pipeline;
}

/** The collection an aggregate writes into through `$out`/`$merge`, if it does (for the write counter). */
export function aggregateOutput(ctx: CommandContext): string | undefined {
  try {
    return outputStage(ctx, pipelineOf(ctx.body)).output?.into;
  } catch {
    return undefined;
  }
}

/** Runs the stages before `$out`/`$merge`, writes their output, and answers with an empty cursor. */
async function aggregateInto(ctx: CommandContext, target: string | undefined, pipeline: Document[], output: OutputStage): Promise<Reply> {
  const view = target === undefined ? undefined : resolveView(ctx, target);
  const name = view ? view.source : target;
  const stages = view ? [...view.pipeline, ...pipeline] : pipeline;
  const variables = parseLet(ctx.body);
  const coll = name === undefined ? undefined : ctx.engine.catalog.get(ctx.db, name);
  checkHint(coll, ctx.body.hint);
  const { spec, rest } = leadingRead(stages);
  const input = name === undefined ? [][Symbol.iterator]() : runRead(coll, { ...spec, filter: bindFilter(spec.filter, variables) });
  await writeOutput(ctx, output, runPipeline(name === undefined ? stages : rest, input, resolver(ctx), variables), variables);
  return ctx.engine.cursors.first(namespace(ctx.db, target ?? "$cmd.aggregate"), [][Symbol.iterator](), null, 0, false);
}

function aggregate(ctx: CommandContext): Reply | Promise<Reply> {
  const name = typeof ctx.body.aggregate === "string" ? collectionName(ctx, "aggregate") : undefined;
  const { stages, output: into } = outputStage(ctx, pipelineOf(ctx.body));
  if (into) return aggregateInto(ctx, name, stages, into);
  const view = name === undefined ? undefined : resolveView(ctx, name);
  const pipeline = view ? [...view.pipeline, ...stages] : stages;
  const variables = parseLet(ctx.body);
  const batchSize = firstBatchSize(ctx.body.cursor);
  const { cursors, catalog } = ctx.engine;
  if (name === undefined) {
    const output = runPipeline(pipeline, [][Symbol.iterator](), resolver(ctx), variables);
    return cursors.first(namespace(ctx.db, "$cmd.aggregate"), output, null, batchSize, false);
  }
  const coll = catalog.get(ctx.db, view ? view.source : name);
  checkHint(coll, ctx.body.hint);
  const ns = namespace(ctx.db, name);
  const counting = countShape(stages);
  if (counting) {
    const { spec, group } = counting;
    const filter = isEmptyFilter(spec.filter) ? undefined : bindFilter(spec.filter, variables);
    const n = view
      ? collect(readView(ctx, view, findStages(filter, undefined, spec.skip ?? 0, spec.limit ?? 0), resolver(ctx), variables)).length
      : countMatching(coll, filter, spec.skip, spec.limit);
    const docs = n > 0 ? [{ _id: group._id ?? null, [Object.keys(group)[1]]: n }] : [];
    return cursors.first(ns, docs[Symbol.iterator](), null, batchSize, false);
  }
  const { spec, rest } = leadingRead(pipeline);
  const output = runPipeline(rest, runRead(coll, { ...spec, filter: bindFilter(spec.filter, variables) }), resolver(ctx), variables);
  return cursors.first(ns, output, null, batchSize, false);
}

/** The aggregate command (mingo runs the stages after the leading read the engine folds). */
export const aggregateCommands: Record<string, Handler> = { aggregate };
