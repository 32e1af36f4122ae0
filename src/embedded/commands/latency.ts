import { type Document, Long } from "bson";

/** Which of a namespace's latency histograms an operation counts in, as MongoDB classifies commands. */
export type LatencyKind = "reads" | "writes" | "commands" | "transactions";

const KINDS: readonly LatencyKind[] = ["reads", "writes", "commands", "transactions"];

/** Commands counted as reads and as writes; every other command naming a collection counts under "commands". */
const READS = new Set(["find", "getMore", "aggregate", "count", "distinct"]);
const WRITES = new Set(["insert", "update", "delete", "findAndModify", "findandmodify"]);

/** The histogram a command counts in. */
export function latencyKind(command: string): LatencyKind {
  return READS.has(command) ? "reads" : WRITES.has(command) ? "writes" : "commands";
}

/**
 * Lower bounds, in microseconds, of MongoDB's latency histogram buckets: a bucket per power of
 * two, with the powers from 2^11 to 2^20 split in halves, up to 2^40.
 */
export const BUCKET_LOWER_BOUNDS: readonly number[] = (() => {
  const bounds = [0];
  for (let power = 1; power <= 40; power++) {
    bounds.push(2 ** power);
    if (power >= 11 && power <= 20) bounds.push(3 * 2 ** (power - 1));
  }
  return bounds;
})();

/** The bucket a latency of `micros` (a whole number) falls in: the last whose lower bound it reaches. */
export function bucketOf(micros: number): number {
  let low = 0;
  let high = BUCKET_LOWER_BOUNDS.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (BUCKET_LOWER_BOUNDS[mid] <= micros) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** One kind of operation's latencies on one namespace. */
class Histogram {
  readonly counts = new Array<number>(BUCKET_LOWER_BOUNDS.length).fill(0);
  latency = 0;
  ops = 0;

  record(micros: number): void {
    this.counts[bucketOf(micros)]++;
    this.latency += micros;
    this.ops++;
  }

  /** `{histogram?, latency, ops}`, int64 numbers, with only the buckets that counted something. */
  report(withHistogram: boolean): Document {
    const out: Document = {};
    if (withHistogram) {
      out.histogram = this.counts.flatMap((count, i) =>
        count === 0 ? [] : [{ micros: Long.fromNumber(BUCKET_LOWER_BOUNDS[i]), count: Long.fromNumber(count) }]
      );
    }
    out.latency = Long.fromNumber(this.latency);
    out.ops = Long.fromNumber(this.ops);
    return out;
  }
}

type Histograms = Record<LatencyKind, Histogram>;

/**
 * Operation latencies per namespace (`db.collection`), for `$collStats: {latencyStats}`: what
 * MongoDB's Top keeps. In memory only; a dropped collection starts afresh.
 */
export class LatencyStats {
  readonly #byNamespace = new Map<string, Histograms>();
  /** Every operation's, for serverStatus' `opLatencies`. */
  readonly #all = histogramsOf();

  /** Counts one operation that took `micros` microseconds, against namespace `ns` if it names one. */
  record(ns: string | undefined, kind: LatencyKind, micros: number): void {
    const whole = Math.max(0, Math.floor(micros));
    this.#all[kind].record(whole);
    if (ns === undefined) return;
    let histograms = this.#byNamespace.get(ns);
    if (histograms === undefined) this.#byNamespace.set(ns, histograms = histogramsOf());
    histograms[kind].record(whole);
  }

  /** `{reads, writes, commands, transactions}` of every operation so far (serverStatus' `opLatencies`). */
  reportAll(withHistograms: boolean): Document {
    return reportOf(this.#all, withHistograms);
  }

  /** Forgets a namespace (its collection was dropped). */
  forget(ns: string): void {
    this.#byNamespace.delete(ns);
  }

  /** Forgets every namespace of database `db`. */
  forgetDatabase(db: string): void {
    for (const ns of this.#byNamespace.keys()) if (ns.startsWith(`${db}.`)) this.#byNamespace.delete(ns);
  }

  /** `{reads, writes, commands, transactions}` of `ns`, zeros for a namespace never used. */
  report(ns: string, withHistograms: boolean): Document {
    return reportOf(this.#byNamespace.get(ns) ?? histogramsOf(), withHistograms);
  }
}

function histogramsOf(): Histograms {
  return { reads: new Histogram(), writes: new Histogram(), commands: new Histogram(), transactions: new Histogram() };
}

function reportOf(histograms: Histograms, withHistograms: boolean): Document {
  const out: Document = {};
  for (const kind of KINDS) out[kind] = histograms[kind].report(withHistograms);
  return out;
}
