import type { Document } from "bson";
import { isEmptyFilter } from "../query/filter.ts";
import { runRead } from "../query/plan.ts";
import { runPipeline, stageName, type CollectionResolver } from "../query/pipeline.ts";
import type { Variables } from "../query/variables.ts";
import { CommandError } from "../errors.ts";
import { isPlainObject } from "../bson.ts";
import { namespace } from "./args.ts";
import type { CommandContext } from "./context.ts";
import { leadingRead } from "./aggregate.ts";

/** MongoDB's limit on views defined on views. */
const MAX_VIEW_DEPTH = 20;

/** A view resolved down to the collection it reads and the whole pipeline applied to it. */
export interface ResolvedView {
  source: string;
  pipeline: Document[];
}

/** The view `name` resolved to its base collection (views on views included), or undefined for a collection. */
export function resolveView(ctx: CommandContext, name: string): ResolvedView | undefined {
  let current = ctx.engine.catalog.get(ctx.db, name);
  if (!current?.options.viewOn) return undefined;
  let pipeline: Document[] = [];
  let source = name;
  for (let depth = 0; current?.options.viewOn; depth++) {
    if (depth >= MAX_VIEW_DEPTH) throw new CommandError("ViewDepthLimitExceeded", `View depth too deep or view cycle detected; maximum depth is ${MAX_VIEW_DEPTH}`);
    pipeline = [...(current.options.pipeline ?? []), ...pipeline];
    source = current.options.viewOn;
    current = ctx.engine.catalog.get(ctx.db, source);
  }
  return { source, pipeline };
}

/** Throws MongoDB's CommandNotSupportedOnView (166) when `name` is a view: views are read-only. */
export function refuseViewWrite(ctx: CommandContext, name: string): void {
  if (ctx.engine.catalog.get(ctx.db, name)?.options.viewOn !== undefined) {
    throw new CommandError("CommandNotSupportedOnView", `Namespace ${namespace(ctx.db, name)} is a view, not a collection`);
  }
}

/** Runs `stages` over a view: its base collection, read through the leading stages, then the rest. */
export function readView(ctx: CommandContext, view: ResolvedView, stages: Document[], resolve: CollectionResolver, variables?: Variables): Iterator<Document> {
  const { spec, rest } = leadingRead([...view.pipeline, ...stages]);
  return runPipeline(rest, runRead(ctx.engine.catalog.get(ctx.db, view.source), spec), resolve, variables);
}

/** A find's filter, sort, skip and limit as aggregation stages (how MongoDB reads a view). */
export function findStages(filter: unknown, sort: Document | undefined, skip: number, limit: number): Document[] {
  const stages: Document[] = [];
  if (!isEmptyFilter(filter)) stages.push({ $match: filter });
  if (sort && Object.keys(sort).length > 0) stages.push({ $sort: sort });
  if (skip > 0) stages.push({ $skip: skip });
  if (limit > 0) stages.push({ $limit: limit });
  return stages;
}

/** Checks a view definition: a source name, and a pipeline that does not write (MongoDB refuses $out/$merge there). */
export function checkViewDefinition(ctx: CommandContext, name: string, viewOn: unknown, pipeline: unknown): { viewOn: string; pipeline: Document[] } {
  if (typeof viewOn !== "string" || viewOn === "") throw new CommandError("TypeMismatch", "'viewOn' must be the name of a collection or view");
  const stages = pipeline ?? [];
  if (!Array.isArray(stages)) throw new CommandError("TypeMismatch", "'pipeline' must be an array of stages");
  for (const stage of stages) {
    const op = stageName(stage);
    if (op === "$out" || op === "$merge") throw new CommandError("OptionNotSupportedOnView", `${op} cannot be used in a view definition`);
    if (!isPlainObject(stage)) throw new CommandError("TypeMismatch", "each pipeline stage must be an object");
  }
  for (let source: string | undefined = viewOn, depth = 0; source !== undefined; depth++) {
    if (source === name) throw new CommandError("GraphContainsCycle", `View cycle detected: ${namespace(ctx.db, name)} would read itself`);
    if (depth >= MAX_VIEW_DEPTH) throw new CommandError("ViewDepthLimitExceeded", `View depth too deep; maximum depth is ${MAX_VIEW_DEPTH}`);
    source = ctx.engine.catalog.get(ctx.db, source)?.options.viewOn;
  }
  return { viewOn, pipeline: stages as Document[] };
}
