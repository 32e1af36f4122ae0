import type { Document } from "bson";
import { isEmptyFilter } from "../query/filter.ts";
import { planPausingRead } from "../query/plan.ts";
import type { Paused } from "../query/interrupts.ts";
import { checkStatsStages, statsSource } from "./stats-stages.ts";
import { checkCountingStages, leadingRead } from "../query/read-stages.ts";
import { type CollectionResolver, runPipeline, stageName } from "../query/pipeline.ts";
import type { Variables } from "../query/variables.ts";
import { type Collation, parseCollation, sameCollation } from "../store/collation.ts";
import { CommandError } from "../errors.ts";
import { firstKey, isPlainObject } from "../bson.ts";
import { namespace } from "./args.ts";
import type { CommandContext } from "./context.ts";

/** MongoDB's limit on views defined on views. */
const MAX_VIEW_DEPTH = 20;

/** A view resolved down to the collection it reads and the whole pipeline applied to it. */
export interface ResolvedView {
  source: string;
  pipeline: Document[];
  /** The view's default collation (not its base collection's): every read of it runs under this. */
  collation: Collation | undefined;
}

/** The view `name` resolved to its base collection (views on views included), or undefined for a collection. */
export function resolveView(ctx: CommandContext, name: string): ResolvedView | undefined {
  let current = ctx.engine.catalog.get(ctx.db, name);
  if (!current?.options.viewOn) return undefined;
  const { collation } = current;
  let pipeline: Document[] = [];
  let source = name;
  for (let depth = 0; current?.options.viewOn; depth++) {
    if (depth >= MAX_VIEW_DEPTH) {
      throw new CommandError(
        "ViewDepthLimitExceeded",
        `View depth too deep or view cycle detected; maximum depth is ${MAX_VIEW_DEPTH}`,
      );
    }
    pipeline = [...(current.options.pipeline ?? []), ...pipeline];
    source = current.options.viewOn;
    current = ctx.engine.catalog.get(ctx.db, source);
  }
  return { source, pipeline, collation };
}

/**
 * The collation a command on a view runs under: the view's own. A command that asks for a
 * different one is refused (code 167), as MongoDB does, rather than answered in another order.
 */
export function viewCollation(view: ResolvedView, raw: unknown): Collation | undefined {
  if (raw !== undefined && !sameCollation(parseCollation(raw), view.collation)) {
    throw new CommandError("OptionNotSupportedOnView", "Cannot override a view's default collation");
  }
  return view.collation;
}

/** Throws MongoDB's CommandNotSupportedOnView (166) when `name` is a view: views are read-only. */
export function refuseViewWrite(ctx: CommandContext, name: string): void {
  if (ctx.engine.catalog.get(ctx.db, name)?.options.viewOn !== undefined) {
    throw new CommandError(
      "CommandNotSupportedOnView",
      `Namespace ${namespace(ctx.db, name)} is a view, not a collection`,
    );
  }
}

/**
 * Runs `stages` over a view, under its collation: its base collection, read through the
 * leading stages, then the rest; `sliced` for a consumer that yields at pauses.
 */
export function readView(
  ctx: CommandContext,
  view: ResolvedView,
  stages: Document[],
  resolve: CollectionResolver,
  variables?: Variables,
  sliced = false,
): Iterator<Paused<Document>> {
  const pipeline = [...view.pipeline, ...stages];
  const { collation } = view;
  const stats = statsSource(ctx, view.source, pipeline);
  const options = { collation, variables, sliced };
  if (stats) return runPipeline(stats.rest, stats.docs[Symbol.iterator](), resolve, options);
  const { spec, rest } = leadingRead(pipeline);
  const input = planPausingRead(ctx.engine.catalog.get(ctx.db, view.source), { ...spec, collation }, sliced)?.docs;
  return runPipeline(rest, input ?? [][Symbol.iterator](), resolve, options);
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

/**
 * Checks a view definition: a source name, a pipeline that does not write (MongoDB refuses
 * $out/$merge there), no cycle, and the same collation as every view it reads (MongoDB's rule,
 * code 167: a view read under two orders would have no single answer).
 */
export function checkViewDefinition(
  ctx: CommandContext,
  name: string,
  viewOn: unknown,
  pipeline: unknown,
  collation: Collation | undefined,
): { viewOn: string; pipeline: Document[] } {
  if (typeof viewOn !== "string" || viewOn === "") {
    throw new CommandError("TypeMismatch", "'viewOn' must be the name of a collection or view");
  }
  const stages = pipeline ?? [];
  if (!Array.isArray(stages)) throw new CommandError("TypeMismatch", "'pipeline' must be an array of stages");
  for (const stage of stages) {
    const op = stageName(stage);
    if (op === "$out" || op === "$merge") {
      throw new CommandError("OptionNotSupportedOnView", `${op} cannot be used in a view definition`);
    }
    if (!isPlainObject(stage)) throw new CommandError("TypeMismatch", "each pipeline stage must be an object");
  }
  checkStatsStages(stages);
  checkCountingStages(stages);
  for (let source: string | undefined = viewOn, depth = 0; source !== undefined; depth++) {
    if (source === name) {
      throw new CommandError("GraphContainsCycle", `View cycle detected: ${namespace(ctx.db, name)} would read itself`);
    }
    if (depth >= MAX_VIEW_DEPTH) {
      throw new CommandError("ViewDepthLimitExceeded", `View depth too deep; maximum depth is ${MAX_VIEW_DEPTH}`);
    }
    source = ctx.engine.catalog.get(ctx.db, source)?.options.viewOn;
  }
  for (const other of [viewOn, ...joinedNames(stages)]) checkSameCollation(ctx, name, other, collation);
  return { viewOn, pipeline: stages as Document[] };
}

function checkSameCollation(ctx: CommandContext, name: string, other: string, collation: Collation | undefined): void {
  const view = ctx.engine.catalog.get(ctx.db, other);
  if (view?.options.viewOn === undefined || sameCollation(view.collation, collation)) return;
  throw new CommandError(
    "OptionNotSupportedOnView",
    `View ${namespace(ctx.db, name)} has conflicting collation with view ${namespace(ctx.db, other)}`,
  );
}

/**
 * Refuses an aggregate that joins (`$lookup`, `$unionWith`, `$graphLookup`, at any depth) a
 * view whose default collation is not the aggregate's, as MongoDB does before running it
 * (collatorCompatibleWithPipeline, code 167; its message has no space before the namespace):
 * the view would otherwise be read under another order than it defines.
 */
export function checkJoinedViews(ctx: CommandContext, pipeline: readonly Document[], collation?: Collation): void {
  for (const name of joinedNames(pipeline)) {
    const view = ctx.engine.catalog.get(ctx.db, name);
    if (view?.options.viewOn === undefined || sameCollation(view.collation, collation)) continue;
    throw new CommandError(
      "OptionNotSupportedOnView",
      `Cannot override a view's default collation${namespace(ctx.db, name)}`,
    );
  }
}

/**
 * The namespaces of the collections a pipeline's joins read (`$lookup`, `$unionWith`,
 * `$graphLookup`, at any depth; a view as its base collection, with its own joins): dropping
 * one of them kills the read, as dropping its own collection does.
 */
export function joinedNamespaces(ctx: CommandContext, pipeline: readonly Document[]): Set<string> | undefined {
  // Joins sit in the join stages themselves or in the pipelines of those and `$facet`: most pipelines have none.
  if (!pipeline.some((stage) => JOIN_STAGES.has(firstKey(stage) ?? "") || "$facet" in stage)) return undefined;
  const found = new Set<string>();
  const visit = (stages: readonly Document[]): void => {
    for (const name of joinedNames(stages)) {
      const view = resolveView(ctx, name);
      const ns = namespace(ctx.db, view ? view.source : name);
      if (found.has(ns)) continue;
      found.add(ns);
      if (view) visit(view.pipeline);
    }
  };
  visit(pipeline);
  return found;
}

/** The stages that read another collection or view. */
const JOIN_STAGES = new Set(["$lookup", "$graphLookup", "$unionWith"]);

/** The collections a pipeline joins ($lookup, $graphLookup, $unionWith, at any depth). */
function joinedNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(joinedNames);
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const joined = JOIN_STAGES.has(key) ? joinTarget(inner) : undefined;
    return joined === undefined ? joinedNames(inner) : [joined, ...joinedNames(inner)];
  });
}

/** `{$unionWith: "name"}`, `{$unionWith: {coll}}`, `{$lookup: {from}}`, `{$graphLookup: {from}}`. */
function joinTarget(spec: unknown): string | undefined {
  if (typeof spec === "string") return spec;
  const target = isPlainObject(spec) ? (spec.from ?? spec.coll) : undefined;
  return typeof target === "string" ? target : undefined;
}
