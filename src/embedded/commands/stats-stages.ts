import { type Document, Long } from "bson";
import { isPlainObject, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "../query/bson-types.ts";
import { wrongType } from "../field-errors.ts";
import { stageName } from "../query/pipeline.ts";
import { namespace } from "./args.ts";
import { indexDocument } from "./indexes.ts";
import { localSessionDocuments, parseListLocalSessions } from "./sessions.ts";
import type { CommandContext } from "./context.ts";
import { checkFlags, storageScale, storageStats } from "./stats.ts";

// `$collStats`, `$indexStats` and `$listLocalSessions`: aggregation stages that read the engine's
// statistics and sessions instead of documents, so the aggregate command runs them before mingo
// sees the pipeline.

/** What a `$collStats` stage asks for. */
interface CollStatsSpec {
  latencyStats?: { histograms: boolean };
  storageStats?: { scale: number };
  count?: true;
  queryExecStats?: true;
}

const COLL_STATS_FIELDS = ["latencyStats", "storageStats", "count", "queryExecStats"];
const SOURCE_STAGES = new Set(["$collStats", "$indexStats", "$listLocalSessions"]);

/** An optional sub-document of `$collStats` (null counts as absent). */
function subDocument(spec: Document, field: string): Document | undefined {
  const value = spec[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw wrongType(`$collStats.${field}`, value, "object");
  return value;
}

/** `count` and `queryExecStats`: present only as `{}`. */
function emptyOption(spec: Document, field: string): true | undefined {
  const value = subDocument(spec, field);
  if (value === undefined) return undefined;
  if (Object.keys(value).length > 0) {
    throw new CommandError("Location31170", `expected an empty object, but got ${valueText(value)}`);
  }
  return true;
}

function latencyOption(spec: Document): CollStatsSpec["latencyStats"] {
  const latency = subDocument(spec, "latencyStats");
  if (latency === undefined) return undefined;
  for (const field of Object.keys(latency)) {
    if (field !== "histograms") {
      throw new CommandError("Location40415", `BSON field '$collStats.latencyStats.${field}' is an unknown field.`);
    }
  }
  const { histograms } = latency;
  if (histograms !== undefined && typeof histograms !== "boolean") {
    throw new CommandError(
      "TypeMismatch",
      `Field 'histograms' should be a boolean value, but found: ${bsonTypeOf(histograms)}`,
    );
  }
  return { histograms: histograms === true };
}

/** Parses a `$collStats` stage's argument as MongoDB 7.0 does. */
function parseCollStats(argument: unknown): CollStatsSpec {
  if (!isPlainObject(argument)) {
    throw new CommandError(
      "Location5447000",
      `$collStats must take a nested object but found: $collStats: ${valueText(argument)}`,
    );
  }
  for (const field of Object.keys(argument)) {
    if (!COLL_STATS_FIELDS.includes(field)) {
      throw new CommandError("Location40415", `BSON field '$collStats.${field}' is an unknown field.`);
    }
  }
  const storage = subDocument(argument, "storageStats");
  return {
    latencyStats: latencyOption(argument),
    storageStats: storage && { scale: storageScale(checkFlags(storage).scale, "$collStats.storageStats.scale") },
    count: emptyOption(argument, "count"),
    queryExecStats: emptyOption(argument, "queryExecStats"),
  };
}

function checkIndexStats(argument: unknown): void {
  if (!isPlainObject(argument) || Object.keys(argument).length > 0) {
    throw new CommandError("Location28803", "The $indexStats stage specification must be an empty object");
  }
}

/**
 * Checks a pipeline's `$collStats` and `$indexStats` stages: their arguments first, then their
 * place, which is first in the pipeline and never inside `$facet`.
 */
export function checkStatsStages(pipeline: readonly Document[]): void {
  for (const stage of pipeline) {
    const name = stageName(stage);
    if (name === "$collStats") parseCollStats(stage[name]);
    if (name === "$indexStats") checkIndexStats(stage[name]);
    if (name === "$listLocalSessions") parseListLocalSessions(stage[name]);
  }
  pipeline.forEach((stage, i) => {
    const name = stageName(stage);
    if (SOURCE_STAGES.has(name) && i > 0) {
      throw new CommandError("Location40602", `${name} is only valid as the first stage in a pipeline`);
    }
    if (name !== "$facet" || !isPlainObject(stage.$facet)) return;
    for (const inner of Object.values(stage.$facet as Document)) {
      const nested = Array.isArray(inner) ? inner.find((s) => SOURCE_STAGES.has(stageName(s))) : undefined;
      if (nested) {
        throw new CommandError("Location40600", `${stageName(nested)} is not allowed to be used within a $facet stage`);
      }
    }
  });
}

/** The error a `$collStats` option that needs a collection gets when there is none. */
function unavailable(what: string, ctx: CommandContext, name: string, isView: boolean): CommandError {
  const ns = namespace(ctx.db, name);
  const [codeName, cause] = isView
    ? ["CommandNotSupportedOnView", `Namespace ${ns} is a view, not a collection`] as const
    : ["NamespaceNotFound", `Collection [${ns}] not found.`] as const;
  return new CommandError(
    codeName,
    `PlanExecutor error during aggregation :: caused by :: Unable to retrieve ${what} in $collStats stage :: caused by :: ${cause}`,
  );
}

/** The one document of `$collStats` on `name` (a view is not resolved: its own latencies are reported). */
function collStatsDocument(ctx: CommandContext, name: string, spec: CollStatsSpec): Document {
  const found = ctx.engine.catalog.get(ctx.db, name);
  const isView = found?.options.viewOn !== undefined;
  const coll = isView ? undefined : found;
  const need = (what: string) => {
    if (coll === undefined) throw unavailable(what, ctx, name, isView);
    return coll;
  };
  const ns = namespace(ctx.db, name);
  const out: Document = { ns, host: ctx.engine.server.host, localTime: new Date() };
  if (spec.latencyStats) out.latencyStats = ctx.engine.latency.report(ns, spec.latencyStats.histograms);
  if (spec.storageStats) out.storageStats = storageStats(need("storageStats"), spec.storageStats.scale);
  if (spec.count) out.count = need("count").docs.size;
  if (spec.queryExecStats) {
    const scans = Long.fromNumber(need("queryExecStats").usage.collectionScans);
    out.queryExecStats = { collectionScans: { total: scans, nonTailable: scans } };
  }
  return out;
}

/** A view as the stats stages need it: the collection it reads and its own stages. */
interface ViewSource {
  source: string;
  pipeline: readonly Document[];
}

/** One document per index of `name` (a view with no stages of its own: its collection's), none when there is no collection. */
function indexStatsDocuments(ctx: CommandContext, name: string, view: ViewSource | undefined): Document[] {
  if (view && view.pipeline.length > 0) {
    throw new CommandError("Location40602", "$indexStats is only valid as the first stage in a pipeline");
  }
  const coll = ctx.engine.catalog.get(ctx.db, view ? view.source : name);
  if (coll === undefined) return [];
  return coll.allIndexes().map((spec) => {
    const accesses = coll.usage.accesses(spec.name);
    return {
      name: spec.name,
      key: spec.key,
      host: ctx.engine.server.host,
      accesses: { ops: Long.fromNumber(accesses?.ops ?? 0), since: accesses?.since ?? new Date() },
      spec: indexDocument(spec),
    };
  });
}

/** True when a pipeline starts with `$collStats`, `$indexStats` or `$listLocalSessions`. */
function startsWithStats(stages: readonly Document[]): boolean {
  return stages.length > 0 && SOURCE_STAGES.has(stageName(stages[0]));
}

/**
 * The documents a pipeline's leading `$collStats`, `$indexStats` or `$listLocalSessions` stage produces on `name`
 * (undefined for `aggregate: 1`), and the stages after it; undefined when the pipeline starts
 * with none of them. `view` is `name` resolved when it is a view the command reads: `$collStats`
 * reports the view itself, `$indexStats` its collection's indexes. `$listLocalSessions` runs
 * only in `aggregate: 1`.
 */
export function statsSource(
  ctx: CommandContext,
  name: string | undefined,
  stages: readonly Document[],
  view?: ViewSource,
): { docs: Document[]; rest: Document[] } | undefined {
  if (!startsWithStats(stages)) return undefined;
  const first = stageName(stages[0]);
  if (first === "$listLocalSessions") {
    if (name !== undefined) {
      throw new CommandError(
        "InvalidNamespace",
        "$listLocalSessions must be run against the database with {aggregate: 1}, not a collection",
      );
    }
    return {
      docs: localSessionDocuments(ctx, parseListLocalSessions(stages[0].$listLocalSessions)),
      rest: stages.slice(1),
    };
  }
  if (name === undefined) {
    throw new CommandError("InvalidNamespace", `{aggregate: 1} is not valid for '${first}'; a collection is required.`);
  }
  const docs = first === "$collStats"
    ? [collStatsDocument(ctx, name, parseCollStats(stages[0].$collStats))]
    : indexStatsDocuments(ctx, name, view);
  return { docs, rest: stages.slice(1) };
}
