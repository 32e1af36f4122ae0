import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { isEmptyFilter } from "../query/filter.ts";
import { planPausingRead, type ReadSpec } from "../query/plan.ts";
import { atInterruptPoint, checkForInterrupt, collectAll, type Paused } from "../query/interrupts.ts";
import { countSliced, countView } from "./sliced-reads.ts";
import { checkCountingStages, countShape, leadingRead } from "../query/read-stages.ts";
import type { JoinWork } from "../query/joins.ts";
import { type CollectionResolver, type PipelineOptions, runPipeline, stageName } from "../query/pipeline.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import type { Collection } from "../store/collection.ts";
import { collectionName, firstBatchSize, namespace } from "./args.ts";
import { readCollation } from "./collation.ts";
import { checkHint } from "./hint.ts";
import { checkStatsStages, statsSource } from "./stats-stages.ts";
import {
  checkJoinedViews,
  findStages,
  joinedNamespaces,
  readView,
  refuseViewWrite,
  type ResolvedView,
  resolveView,
} from "./views.ts";
import { type OutputStage, outputStage, writeOutput } from "./output-stages.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";

/**
 * Finds the other collections (and views) a pipeline joins, in the command's database:
 * `$lookup` and `$unionWith` read them through the planner, one read per input document,
 * `$graphLookup` (and a join inside `$facet`, mingo's) takes every document. `untracked`
 * (explain): the reads count in no usage statistics.
 */
export function resolver(ctx: CommandContext, untracked = false): CollectionResolver {
  const resolve: CollectionResolver = {
    docs: (name) => {
      const view = resolveView(ctx, name);
      // mingo reads these whole and at once: no pauses, the deadline checked as they are read.
      if (view) return collectAll(readView(ctx, view, [], resolve));
      // The documents are held as BSON: a join decodes the collection it reads, as a scan would.
      const coll = ctx.engine.catalog.get(ctx.db, name);
      return coll ? everyDocument(coll) : [];
    },
    read: (name, stages, options, work) => readJoined(ctx, resolve, { name, stages, options, work, untracked }),
  };
  return resolve;
}

/** Every document of a collection, decoded, its reading an interrupt point every so many documents. */
function everyDocument(coll: Collection): Document[] {
  const docs: Document[] = [];
  for (const doc of coll.docs.iterate()) {
    if (atInterruptPoint(docs.push(doc))) checkForInterrupt();
  }
  return docs;
}

/** One read of a joined collection or view: what to read and how, and where its work is counted. */
interface JoinedRead {
  name: string | undefined;
  stages: Document[];
  options: PipelineOptions;
  work: JoinWork | undefined;
  untracked: boolean;
}

/**
 * The leading `$match` stages as one (as MongoDB's optimizer merges them), so that a view's
 * `$match` and a `$lookup`'s join equality bound one indexed read together.
 */
function leadingMatchesMerged(pipeline: Document[]): Document[] {
  let n = 0;
  while (n < pipeline.length && isPlainObject(pipeline[n].$match)) n++;
  if (n < 2) return pipeline;
  return [{ $match: { $and: pipeline.slice(0, n).map((stage) => stage.$match) } }, ...pipeline.slice(n)];
}

/**
 * Runs a join's stages over a collection or view (see CollectionResolver.read): a view's own
 * stages first and under its collation, as readView reads it; the leading stages as a read
 * the planner plans on the base collection, counted into the stage's work; a missing
 * collection reads as empty; no collection at all runs the stages over nothing (`$documents`).
 */
function readJoined(ctx: CommandContext, resolve: CollectionResolver, read: JoinedRead): Iterator<Paused<Document>> {
  const { name, stages, work } = read;
  if (name === undefined) return runPipeline(stages, [][Symbol.iterator](), resolve, read.options);
  const view = resolveView(ctx, name);
  const pipeline = view ? [...view.pipeline, ...stages] : stages;
  const options = view ? { ...read.options, collation: view.collation } : read.options;
  const stats = view ? statsSource(ctx, view.source, pipeline) : undefined;
  if (stats) return runPipeline(stats.rest, stats.docs[Symbol.iterator](), resolve, options);
  const { spec, rest } = leadingRead(leadingMatchesMerged(pipeline));
  const planned = planPausingRead(ctx.engine.catalog.get(ctx.db, view?.source ?? name), {
    ...spec,
    filter: bindFilter(spec.filter, options.variables),
    collation: options.collation,
    untracked: read.untracked,
  }, options.sliced === true);
  if (planned) work?.reads.count(planned.plan, planned.stats);
  return runPipeline(rest, planned?.docs ?? [][Symbol.iterator](), resolve, options);
}

/** The pipeline of an aggregate command, its stages validated. */
function pipelineOf(body: Document): Document[] {
  const pipeline = body.pipeline;
  if (!Array.isArray(pipeline)) throw new CommandError("TypeMismatch", "'pipeline' must be an array");
  pipeline.forEach(stageName);
  if (pipeline.length > 0 && stageName(pipeline[0]) === "$changeStream") {
    // The engine is a standalone server, which has no oplog to stream changes from.
    throw new CommandError("Location40573", "The $changeStream stage is only supported on replica sets");
  }
  checkStatsStages(pipeline);
  checkCountingStages(pipeline);
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

/**
 * What an aggregate reads and how: the collection (a view resolved to its base collection),
 * the whole pipeline (a view's own stages first), the collation and the `let` variables.
 */
interface Source {
  coll: Collection | undefined;
  view: ResolvedView | undefined;
  /** The command's own stages. */
  stages: Document[];
  pipeline: Document[];
  options: PipelineOptions;
}

function sourceOf(ctx: CommandContext, name: string | undefined, stages: Document[]): Source {
  const view = name === undefined ? undefined : resolveView(ctx, name);
  const coll = name === undefined ? undefined : ctx.engine.catalog.get(ctx.db, view ? view.source : name);
  checkHint(coll, ctx.body.hint);
  // An aggregate's consumer (its cursor, or its $out/$merge) yields at pauses: its reads are sliced.
  const options: PipelineOptions = {
    collation: readCollation(ctx.body.collation, coll, view),
    variables: parseLet(ctx.body),
    sliced: true,
  };
  checkJoinedViews(ctx, stages, options.collation);
  return { coll, view, stages, pipeline: view ? [...view.pipeline, ...stages] : stages, options };
}

/** A source's documents (with its reads' pauses), and the secondary index its leading read goes through, if any. */
interface SourceRead {
  docs: Iterator<Paused<Document>>;
  index?: string;
}

/**
 * Runs a source's pipeline: its leading stages as an indexed read, the rest with mingo.
 * `aggregate: 1` reads nothing; a leading `$collStats` or `$indexStats` reads statistics.
 */
function readSource(ctx: CommandContext, name: string | undefined, source: Source): SourceRead {
  const { options, view } = source;
  // A command's own leading stats stage reads the view it names; one leading a view's stages, the view's collection.
  const stats = statsSource(ctx, name, source.stages, view) ??
    (view ? statsSource(ctx, view.source, source.pipeline) : undefined);
  if (stats) return { docs: runPipeline(stats.rest, stats.docs[Symbol.iterator](), resolver(ctx), options) };
  if (name === undefined) return { docs: runPipeline(source.pipeline, [][Symbol.iterator](), resolver(ctx), options) };
  const { spec, rest } = leadingRead(source.pipeline);
  const planned = planPausingRead(source.coll, {
    ...spec,
    filter: bindFilter(spec.filter, options.variables),
    collation: options.collation,
    hint: ctx.body.hint ?? undefined,
  }, true);
  const docs = runPipeline(rest, planned?.docs ?? [][Symbol.iterator](), resolver(ctx), options);
  return { docs, index: planned?.plan.kind === "ixscan" ? planned.plan.scan.index.spec.name : undefined };
}

/** Runs the stages before `$out`/`$merge`, writes their output, and answers with an empty cursor. */
async function aggregateInto(
  ctx: CommandContext,
  name: string | undefined,
  stages: Document[],
  output: OutputStage,
): Promise<Reply> {
  refuseViewWrite(ctx, output.into);
  const source = sourceOf(ctx, name, stages);
  const { docs } = readSource(ctx, name, source);
  const results: Document[] = [];
  const reads = source.coll && namespace(source.coll.db, source.coll.name);
  const reader = { reads, index: undefined, joins: joinedNamespaces(ctx, source.pipeline) };
  await ctx.engine.cursors.drain(docs, ctx.operation, reader, (doc: Document) => {
    results.push(doc);
    return true;
  });
  await writeOutput(ctx, output, results, source.options);
  // Nothing is left to read, so no cursor stays open (MongoDB answers with id 0 even for batchSize 0).
  const ns = namespace(ctx.db, name ?? "$cmd.aggregate");
  return ctx.engine.cursors.first(ns, [][Symbol.iterator](), { batchSize: 0, single: true });
}

/** The driver's countDocuments, counted from the indexes when it reads a collection; its read sliced. */
function countDocuments(
  ctx: CommandContext,
  name: string,
  source: Source,
  counting: { spec: ReadSpec; group: Document },
): Document[] | Promise<Document[]> {
  const { spec, group } = counting;
  const { collation, variables } = source.options;
  const filter = isEmptyFilter(spec.filter) ? undefined : bindFilter(spec.filter, variables);
  const n = source.view
    ? countView(
      ctx,
      name,
      readView(
        ctx,
        source.view,
        findStages(filter, undefined, spec.skip ?? 0, spec.limit ?? 0),
        resolver(ctx),
        variables,
        true,
      ),
    )
    : countSliced(ctx, name, source.coll, {
      filter,
      skip: spec.skip,
      limit: spec.limit,
      collation,
      hint: ctx.body.hint ?? undefined,
    });
  // Answered from the collection's size, where MongoDB's pipeline scans the collection: count the scan it makes.
  if (!source.view && filter === undefined) source.coll?.usage.scanned();
  return n instanceof Promise ? n.then((total) => countGroup(group, total)) : countGroup(group, n);
}

/** countDocuments' one group, unless nothing matched. */
function countGroup(group: Document, n: number): Document[] {
  return n > 0 ? [{ _id: group._id ?? null, [Object.keys(group)[1]]: n }] : [];
}

function aggregate(ctx: CommandContext): Reply | Promise<Reply> {
  const name = typeof ctx.body.aggregate === "string" ? collectionName(ctx, "aggregate") : undefined;
  ctx.operation.context = "PlanExecutor error during aggregation";
  const { stages, output: into } = outputStage(ctx, pipelineOf(ctx.body));
  if (into) return aggregateInto(ctx, name, stages, into);
  const source = sourceOf(ctx, name, stages);
  const batchSize = firstBatchSize(ctx.body.cursor);
  const ns = namespace(ctx.db, name ?? "$cmd.aggregate");
  const counting = name === undefined ? undefined : countShape(stages);
  if (counting) {
    const groups = countDocuments(ctx, name!, source, counting);
    const options = { batchSize, session: ctx.session };
    if (!(groups instanceof Promise)) return ctx.engine.cursors.first(ns, groups[Symbol.iterator](), options);
    return groups.then((docs) => ctx.engine.cursors.first(ns, docs[Symbol.iterator](), options));
  }
  const { docs, index } = readSource(ctx, name, source);
  // The plan reads the collection (a view's base collection): its drop or rename kills the cursor.
  const reads = source.coll && namespace(source.coll.db, source.coll.name);
  const { operation, session } = ctx;
  const joins = joinedNamespaces(ctx, source.pipeline);
  return ctx.engine.cursors.first(ns, docs, { batchSize, session, reads, index, operation, joins });
}

/** The aggregate command (mingo runs the stages after the leading read the engine folds). */
export const aggregateCommands: Record<string, Handler> = { aggregate };
