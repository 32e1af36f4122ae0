import type { Document } from "bson";
import { isEmptyFilter } from "./filter.ts";
import { type Endpoint, type FieldBounds, RankEdge } from "./bounds.ts";
import type { ScanSpec, ScanStats } from "./index-scan.ts";
import type { Plan, SortKey } from "./planner.ts";

/** The smallest and largest values of the types a range can be bracketed to, as MongoDB prints them. */
const EDGE_NAMES: Record<number, [string, string]> = {
  3: ["-inf", "inf"],
  4: ['""', "{}"],
  10: ["new Date(-9223372036854775808)", "new Date(9223372036854775807)"],
};

function showValue(v: unknown): string {
  if (v instanceof RankEdge) return (EDGE_NAMES[v.rank] ?? ["MinKey", "MaxKey"])[v.end ? 1 : 0];
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v === null || v === undefined) return "null";
  return typeof v === "object" ? String(v) : JSON.stringify(v);
}

function showEndpoint(ep: Endpoint, low: boolean): string {
  const full = ep.value instanceof RankEdge && (low ? ep.value.rank === 0 : ep.value.rank === 99);
  return full ? (low ? "MinKey" : "MaxKey") : showValue(ep.value);
}

/** Bounds in MongoDB's explain notation, e.g. `["[1, 5)"]`, in the order the scan reads them. */
function showBounds(bounds: FieldBounds, dir: 1 | -1, reverse: boolean): string[] {
  const descending = dir * (reverse ? -1 : 1) === -1;
  const shown = bounds.intervals.map(({ lo, hi }) => {
    const [first, last] = descending ? [hi, lo] : [lo, hi];
    const [firstLow, lastLow] = descending ? [false, true] : [true, false];
    return `${first.inclusive ? "[" : "("}${showEndpoint(first, firstLow)}, ${showEndpoint(last, lastLow)}${
      last.inclusive ? "]" : ")"
    }`;
  });
  return descending ? shown.reverse() : shown;
}

/** The IXSCAN (or, for counts read from index positions, COUNT_SCAN) stage of an index scan. */
function indexStage(scan: ScanSpec, stage = "IXSCAN"): Document {
  const { index, bounds, reverse } = scan;
  const indexBounds: Document = {};
  index.fields.forEach((f, i) => (indexBounds[f] = showBounds(bounds[i], index.entries.dirs[i], reverse)));
  return {
    stage,
    keyPattern: index.spec.key,
    indexName: index.spec.name,
    isMultiKey: index.multikey,
    isUnique: index.spec.unique === true,
    direction: reverse ? "backward" : "forward",
    indexBounds,
  };
}

/**
 * What an index plan reads: one IXSCAN, or for an `$or` one IXSCAN per branch under SORT_MERGE
 * (merged in the index's order) or OR (in no particular order), as MongoDB shows them.
 */
function indexInput(plan: Extract<Plan, { kind: "ixscan" }>): Document {
  if (!plan.branches) return indexStage(plan.scan);
  const inputStages = plan.branches.map((branch) => indexStage({ ...plan.scan, bounds: branch.bounds }));
  return plan.ordered ? { stage: "SORT_MERGE", inputStages } : { stage: "OR", inputStages };
}

const ID_SCAN = { stage: "IXSCAN", keyPattern: { _id: 1 }, indexName: "_id_", isMultiKey: false, isUnique: true };

function withFilter(stage: Document, exact: boolean, filter: unknown): Document {
  return exact || isEmptyFilter(filter) ? stage : { ...stage, filter };
}

/** The stages that read the documents: COLLSCAN, or FETCH over an IXSCAN of `_id` or an index. */
export function accessStages(plan: Plan, filter: unknown): Document {
  switch (plan.kind) {
    case "collscan":
      return withFilter({ stage: "COLLSCAN", direction: plan.reverse ? "backward" : "forward" }, plan.exact, filter);
    case "id": {
      const ixscan = {
        ...ID_SCAN,
        direction: "forward",
        indexBounds: { _id: plan.values.map((v) => `[${showValue(v)}, ${showValue(v)}]`) },
      };
      return withFilter({ stage: "FETCH", inputStage: ixscan }, plan.exact, filter);
    }
    case "idrange": {
      const ixscan = {
        ...ID_SCAN,
        direction: plan.reverse ? "backward" : "forward",
        indexBounds: { _id: showBounds(plan.bounds, 1, plan.reverse) },
      };
      return withFilter({ stage: "FETCH", inputStage: ixscan }, plan.exact, filter);
    }
    case "ixscan":
      return withFilter({ stage: "FETCH", inputStage: indexInput(plan) }, plan.exact, filter);
  }
}

/** The winning plan of a find: access stages, then SORT when the plan is unordered, SKIP, LIMIT. */
export function findStages(plan: Plan, keys: SortKey[], filter: unknown, skip: number, limit: number): Document {
  let stage = accessStages(plan, filter);
  if (!plan.ordered) {
    const sort: Document = { stage: "SORT", sortPattern: Object.fromEntries(keys), type: "simple" };
    stage = { ...sort, ...(limit > 0 ? { limitAmount: skip + limit } : {}), inputStage: stage };
  }
  if (skip > 0) stage = { stage: "SKIP", skipAmount: skip, inputStage: stage };
  if (limit > 0) stage = { stage: "LIMIT", limitAmount: limit, inputStage: stage };
  return stage;
}

/** The winning plan of a count: COUNT over the fast count, a COUNT_SCAN, or the access stages. */
export function countStages(plan: Plan | undefined, filter: unknown): Document {
  if (!plan) return { stage: "RECORD_STORE_FAST_COUNT" };
  if (plan.kind === "ixscan" && plan.exact) {
    return {
      stage: "COUNT",
      inputStage: plan.branches ? indexInput(plan) : indexStage(plan.scan, plan.countable ? "COUNT_SCAN" : "IXSCAN"),
    };
  }
  return { stage: "COUNT", inputStage: accessStages(plan, filter) };
}

/** `executionStats` of an explain, in MongoDB's shape. */
export function executionStats(winning: Document, stats: ScanStats, nReturned: number, millis: number): Document {
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: Math.round(millis),
    totalKeysExamined: stats.keysExamined,
    totalDocsExamined: stats.docsExamined,
    executionStages: { ...winning, nReturned },
  };
}
