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

/** Per-round ratios of `server` against `base` (the run just before it in the same round). */
export function roundRatios(server: readonly number[], base: readonly number[]): number[] {
  return server.map((value, i) => value / base[i]!);
}

/**
 * The summary table in Markdown, as it goes into docs/benchmarks.md: medians of each server,
 * and the median per-round ratio against the first server. `targets` adds a target note to
 * the named rows.
 */
export function summaryTable(servers: readonly Contender[], targets: Record<string, number> = {}): string[] {
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
