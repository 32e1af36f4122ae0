/** Command-line flags, medians and the summary table the HTTP benchmarks print. */
import { loadavg } from "node:os";
import type { Contender } from "./processes.ts";

/** Command-line flag `--name value` as a positive number, or the default. */
export function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? NaN : Number(process.argv[at + 1]);
  return value > 0 ? value : fallback;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A confidence interval: its bounds, and the share of repeated runs expected to cover the truth. */
export interface Interval {
  low: number;
  high: number;
  coverage: number;
}

/**
 * A distribution-free confidence interval for the median of `values`: the order statistics at
 * ranks k and n − k + 1, with k the largest rank that leaves at most (1 − confidence) / 2 of
 * binomial(n, ½) below it. It assumes the values are independent draws (rounds on a shared
 * host), not that they are normal, so a few rounds slowed by another job cannot stretch it the
 * way they stretch a mean's. With too few values for the confidence asked, the interval is
 * their whole range and `coverage` says how much less it covers (5 values: 0.94).
 *
 * @example medianInterval([1, 2, ..., 24]) → { low: 7, high: 18, coverage: 0.977 }
 */
export function medianInterval(values: readonly number[], confidence = 0.95): Interval {
  if (values.length === 0) throw new RangeError("medianInterval needs at least one value");
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let below = 0; // P(X ≤ rank − 1), X ~ binomial(n, ½): the chance the median lies under sorted[rank − 1]
  let rank = 0;
  while (rank < Math.floor(n / 2)) {
    const next = below + Math.exp(logChoose(n, rank) - n * Math.LN2);
    if (next > (1 - confidence) / 2) break;
    below = next;
    rank++;
  }
  const k = Math.max(rank, 1);
  return { low: sorted[k - 1]!, high: sorted[n - k]!, coverage: 1 - 2 * (rank === 0 ? Math.pow(2, -n) : below) };
}

/** ln(n choose k), through sums of logarithms: exact enough for coverage figures, no overflow. */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

/**
 * A target's verdict from an interval: "met" when even its low bound reaches the target, "NOT
 * met" when even its high bound falls short, otherwise "undecided" (more rounds, or a quieter
 * host, would narrow it). An interval covering less than `confidence` (too few rounds) decides
 * nothing.
 */
export function intervalVerdict(
  interval: Interval,
  target: number,
  confidence = 0.95,
): "met" | "NOT met" | "undecided" {
  if (interval.coverage < confidence) return "undecided";
  if (interval.low >= target) return "met";
  return interval.high < target ? "NOT met" : "undecided";
}

/** An interval as the reports print it: "97.7% interval 0.69-0.75". */
export function formatInterval(interval: Interval): string {
  return `${(interval.coverage * 100).toFixed(1)}% interval ${interval.low.toFixed(2)}-${interval.high.toFixed(2)}`;
}

/** Per-round ratios of `server` against `base` (the run just before it in the same round). */
export function roundRatios(server: readonly number[], base: readonly number[]): number[] {
  return server.map((value, i) => value / base[i]!);
}

/**
 * The summary table in Markdown, as it goes into docs/benchmarks.md: medians of each server,
 * and the median per-round ratio against the first server. `targets` adds a target note to
 * the named rows.
 */
export function summaryTable(
  servers: readonly Pick<Contender, "name" | "rates" | "costs">[],
  targets: Record<string, number> = {},
): string[] {
  const base = servers[0]!;
  const lines = [
    "| server | req/s | server CPU µs/req | req/s vs bare (per round) | CPU vs bare |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const server of servers) {
    const rate = Math.round(median(server.rates)).toLocaleString("en-US");
    const rateRatio = median(roundRatios(server.rates, base.rates));
    const costRatio = median(roundRatios(server.costs, base.costs));
    const target = targets[server.name] === undefined ? "" : ` (target ≥ ${targets[server.name]!.toFixed(2)})`;
    lines.push(
      `| ${server.name} | ${rate} | ${median(server.costs).toFixed(1)} | ${rateRatio.toFixed(2)}${target} | ${
        costRatio.toFixed(2)
      } |`,
    );
  }
  return lines;
}

/** The 1-minute load average, to print next to figures measured on a shared machine. */
export function loadAverage(): string {
  return loadavg()[0]!.toFixed(2);
}
