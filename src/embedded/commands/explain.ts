import type { Document } from "bson";
import { performance } from "node:perf_hooks";
import { firstKey, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { countStages, executionStats, findStages } from "../query/describe.ts";
import { isEmptyFilter } from "../query/filter.ts";
import { planCount, planRead, type ReadSpec } from "../query/plan.ts";
import { PAUSE, type Paused } from "../query/interrupts.ts";
import { parseMaxTimeMS } from "./max-time.ts";
import { JoinWork } from "../query/joins.ts";
import { runPipeline } from "../query/pipeline.ts";
import { checkCountingStages, countShape, leadingRead } from "../query/read-stages.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import type { ScanStats } from "../query/index-scan.ts";
import { resolver } from "./aggregate.ts";
import { collectionName, namespace, optionalCount, optionalDocument, optionalNumber } from "./args.ts";
import { operationCollation } from "./collation.ts";
import { checkCommandFields } from "./fields.ts";
import { VERSION } from "./handshake.ts";
import { checkHint } from "./hint.ts";
import { outputStage } from "./output-stages.ts";
import { checkJoinedViews } from "./views.ts";
import type { CommandContext, Handler } from "./context.ts";

const VERBOSITIES = new Set(["queryPlanner", "executionStats", "allPlansExecution"]);

/** What one explained read reports: its winning plan and, if run, its execution statistics. */
interface Explained {
  queryPlanner: Document;
  executionStats?: Document;
}

function planner(ns: string, filter: unknown, winningPlan: Document): Document {
  return { namespace: ns, parsedQuery: filter ?? {}, indexFilterSet: false, winningPlan, rejectedPlans: [] };
}

/** Plans a find-like read and, unless only the plan is wanted, runs it to the end through `drain`. */
function explainRead(
  ctx: CommandContext,
  name: string,
  spec: ReadSpec,
  run: boolean,
  drain = (it: Iterator<Paused<Document>>) => it,
): Explained {
  const started = performance.now();
  const coll = ctx.engine.catalog.get(ctx.db, name);
  const read = planRead(coll, { ...spec, untracked: true });
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const winning = read ? findStages(read.plan, read.keys, spec.filter, skip, limit) : { stage: "EOF" };
  const out: Explained = { queryPlanner: planner(namespace(ctx.db, name), spec.filter, winning) };
  if (!run) return out;
  // Run to the end in one go (explain does not yield): its interrupt points check the deadline.
  let n = 0;
  const output = drain(read?.docs ?? [][Symbol.iterator]());
  for (let step = output.next(); !step.done; step = output.next()) if (step.value !== PAUSE) n++;
  const stats: ScanStats = read?.stats ?? { keysExamined: 0, docsExamined: 0 };
  return { ...out, executionStats: executionStats(winning, stats, n, performance.now() - started) };
}

/** Plans a count (filter, skip, limit, collation of `spec`) and, if `run`, reports its work. */
function explainCount(ctx: CommandContext, name: string, spec: ReadSpec, run: boolean): Explained & { n: number } {
  const started = performance.now();
  const { filter } = spec;
  const coll = ctx.engine.catalog.get(ctx.db, name);
  const counted = planCount(coll, {
    filter: isEmptyFilter(filter) ? undefined : filter,
    skip: spec.skip,
    limit: spec.limit,
    collation: spec.collation,
    hint: spec.hint,
    untracked: true,
  });
  const winning = countStages(counted.plan, filter);
  const out = { queryPlanner: planner(namespace(ctx.db, name), filter, winning), n: counted.n };
  return run ? { ...out, executionStats: executionStats(winning, counted.stats, 0, performance.now() - started) } : out;
}

function explainFind(ctx: CommandContext, body: Document, run: boolean): Explained {
  const name = collectionName({ ...ctx, body }, "find");
  const spec: ReadSpec = {
    filter: bindFilter(optionalDocument(body, "filter"), parseLet(body)),
    sort: optionalDocument(body, "sort"),
    skip: optionalCount(body, "skip") ?? 0,
    limit: Math.abs(optionalNumber(body, "limit") ?? 0),
    collation: operationCollation(body.collation, ctx.engine.catalog.get(ctx.db, name)),
    hint: body.hint ?? undefined,
  };
  return explainRead(ctx, name, spec, run);
}

function explainCountCommand(ctx: CommandContext, body: Document, run: boolean): Explained {
  const name = collectionName({ ...ctx, body }, "count");
  const spec: ReadSpec = {
    filter: optionalDocument(body, "query"),
    skip: optionalCount(body, "skip") ?? 0,
    limit: Math.abs(optionalNumber(body, "limit") ?? 0),
    collation: operationCollation(body.collation, ctx.engine.catalog.get(ctx.db, name)),
    hint: body.hint ?? undefined,
  };
  const { n: _, ...explained } = explainCount(ctx, name, spec, run);
  return explained;
}

function explainAggregate(ctx: CommandContext, body: Document, run: boolean): Document {
  const name = collectionName({ ...ctx, body }, "aggregate");
  const pipeline = body.pipeline;
  if (!Array.isArray(pipeline)) throw new CommandError("TypeMismatch", "'pipeline' must be an array");
  if (outputStage(ctx, pipeline).output) {
    throw new CommandError(
      "NotImplemented",
      "explain of a pipeline ending in $out or $merge is not supported by the embedded engine",
    );
  }
  const collation = operationCollation(body.collation, ctx.engine.catalog.get(ctx.db, name));
  const variables = parseLet(body);
  checkCountingStages(pipeline);
  checkJoinedViews(ctx, pipeline, collation);
  const counting = countShape(pipeline);
  if (counting) {
    const { spec } = counting;
    const { n: _, ...explained } = explainCount(ctx, name, {
      ...spec,
      filter: bindFilter(spec.filter, variables),
      collation,
      hint: body.hint ?? undefined,
    }, run);
    return { stages: [{ $cursor: explained }, pipeline.at(-1)] };
  }
  const { spec, rest } = leadingRead(pipeline);
  const read = { ...spec, filter: bindFilter(spec.filter, variables), collation, hint: body.hint ?? undefined };
  // Each $lookup counts the reads it makes of its foreign collection, as MongoDB's explain reports them.
  const works = rest.map((stage) => ("$lookup" in stage ? new JoinWork() : undefined));
  const options = { collation, variables, joinWork: (position: number) => works[position] };
  const explained = explainRead(ctx, name, read, run, (it) => runPipeline(rest, it, resolver(ctx, true), options));
  if (rest.length === 0) return { ...explained };
  const stages = run ? rest.map((stage, i) => ({ ...stage, ...works[i]?.report() })) : rest;
  return { stages: [{ $cursor: explained }, ...stages] };
}

/**
 * The explain command over find, count and aggregate, in MongoDB's shape: `queryPlanner`
 * with the winning plan (COLLSCAN, IXSCAN, FETCH, SORT, SKIP, LIMIT, COUNT, COUNT_SCAN) and,
 * unless the verbosity is `queryPlanner`, `executionStats` from running the read to the end.
 */
function explain(ctx: CommandContext): Document {
  const inner = ctx.body.explain;
  if (!isPlainObject(inner)) throw new CommandError("TypeMismatch", "'explain' must be a command document");
  const verbosity = ctx.body.verbosity ?? "allPlansExecution";
  if (typeof verbosity !== "string" || !VERBOSITIES.has(verbosity)) {
    throw new CommandError(
      "BadValue",
      `verbosity must be one of queryPlanner, executionStats, allPlansExecution, not ${JSON.stringify(verbosity)}`,
    );
  }
  const run = verbosity !== "queryPlanner";
  const command = firstKey(inner);
  if (command !== undefined) checkCommandFields(command, inner);
  // A maxTimeMS in the explained command counts too: the smaller of the two holds, as in MongoDB.
  const nested = command === undefined ? 0 : parseMaxTimeMS(command, inner);
  if (nested > 0) ctx.operation.within(nested);
  const target = typeof inner[command ?? ""] === "string" ? ctx.engine.catalog.get(ctx.db, inner[command!]) : undefined;
  checkHint(target, inner.hint);
  // Refused rather than explained as the empty collection a view is stored as.
  if (target?.options.viewOn !== undefined) {
    throw new CommandError("NotImplemented", "explain over a view is not supported by the embedded engine");
  }
  const head = { explainVersion: "1" };
  const tail = { command: inner, serverInfo: { host: "embedded", version: VERSION }, ok: 1 };
  switch (command) {
    case "find":
      return { ...head, ...explainFind(ctx, inner, run), ...tail };
    case "count":
      return { ...head, ...explainCountCommand(ctx, inner, run), ...tail };
    case "aggregate":
      return { ...head, ...explainAggregate(ctx, inner, run), ...tail };
  }
  throw new CommandError(
    "CommandNotFound",
    `explain is supported for find, count and aggregate, not '${command ?? ""}'`,
  );
}

/** The explain command. */
export const explainCommands: Record<string, Handler> = { explain };
