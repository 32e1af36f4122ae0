import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import type { ScanStats } from "./index-scan.ts";
import type { Plan } from "./planner.ts";
import type { Variables } from "./variables.ts";
import type { Paused } from "./interrupts.ts";

// What a pipeline needs to reach the other collections of its database: the resolver the
// commands layer hands it (the query layer knows no catalog), the options a pipeline runs
// under, and the counters explain reports for a join stage. Kept apart from pipeline.ts so
// that the join stages (lookup.ts, union-with.ts) and the pipeline import it without a cycle.

/** The single operator name of a stage (validated). */
export function stageName(stage: unknown): string {
  if (!isPlainObject(stage)) throw new CommandError("TypeMismatch", "each pipeline stage must be an object");
  const keys = Object.keys(stage);
  if (keys.length !== 1) throw new CommandError("BadValue", "a pipeline stage must have exactly one field");
  return keys[0];
}

/** How a pipeline runs: the collation its strings compare under, its variables, and whose reads it counts. */
export interface PipelineOptions {
  collation?: Collation;
  /** The command's `let` variables, and inside a `$lookup` pipeline the stage's own `let` too. */
  variables?: Variables;
  /** The counters of the join stage at a position of the pipeline, when its reads are counted (explain). */
  joinWork?: (position: number) => JoinWork | undefined;
  /**
   * The pipeline's consumer yields at pauses (query/interrupts.ts): the reads of its joins
   * pause too, and its stages pass the pauses on where they can (see runPipeline).
   */
  sliced?: boolean;
}

/** How a pipeline reaches the other collections (and views) of its database. */
export interface CollectionResolver {
  /** Every document of a collection or view: what mingo's own joins read (`$graphLookup`, joins inside `$facet`). */
  docs(name: string): readonly Document[];
  /**
   * Runs `stages` over a collection or view (`undefined`: over no collection, for a pipeline
   * that starts with `$documents`): the leading `$match`/`$sort`/`$skip`/`$limit` as an
   * indexed read through the planner, the rest as a pipeline. A missing collection reads as
   * empty. The read is counted into `work`, when given.
   */
  read(
    name: string | undefined,
    stages: Document[],
    options: PipelineOptions,
    work?: JoinWork,
  ): Iterator<Paused<Document>>;
}

/** The reads a join stage made, shared by the stages nested in its pipelines (they count into it, as in MongoDB). */
export class ReadCounts {
  readonly #stats: ScanStats[] = [];
  collectionScans = 0;
  readonly indexesUsed = new Set<string>();

  /** Counts a read that has been planned; its work is summed when reported, since it grows as the read is consumed. */
  count(plan: Plan, stats: ScanStats): void {
    this.#stats.push(stats);
    if (plan.kind === "collscan") this.collectionScans++;
    else if (plan.kind === "ixscan") this.indexesUsed.add(plan.scan.index.spec.name);
    else this.indexesUsed.add("_id_");
  }

  /** Keys and documents examined by every counted read so far. */
  totals(): ScanStats {
    const total: ScanStats = { keysExamined: 0, docsExamined: 0 };
    for (const stats of this.#stats) {
      total.keysExamined += stats.keysExamined;
      total.docsExamined += stats.docsExamined;
    }
    return total;
  }
}

/**
 * The work of one join stage, as MongoDB's explain reports it on a `$lookup` stage: the
 * documents and index keys its reads of the foreign collection examined, how many of those
 * reads scanned the whole collection, the indexes they used, and what the stage returned.
 */
export class JoinWork {
  /** Documents the stage passed on. */
  returned = 0;
  /** Time spent in the stage, its input's included (MongoDB's estimate is cumulative too). */
  millis = 0;
  #nested: JoinWork | undefined;

  constructor(readonly reads: ReadCounts = new ReadCounts()) {}

  /** The counters for the join stages inside this one's pipeline: their reads count here, their output does not. */
  nested(): JoinWork {
    return this.#nested ??= new JoinWork(this.reads);
  }

  /** The fields MongoDB adds to a `$lookup` stage under `executionStats`, in its order. */
  report(): Document {
    const { keysExamined, docsExamined } = this.reads.totals();
    return {
      totalDocsExamined: docsExamined,
      totalKeysExamined: keysExamined,
      collectionScans: this.reads.collectionScans,
      indexesUsed: [...this.reads.indexesUsed],
      nReturned: this.returned,
      executionTimeMillisEstimate: Math.round(this.millis),
    };
  }
}
