/**
 * Two or more app servers counted under callgrind on the same seeded sequence of distinct list
 * pages (bench-budgets and bench-auth `--instructions`): the instructions of all their threads
 * (HTTP, engine, compiler, collector) per request. Host noise moves the timed ratios by more
 * than their targets' margins; these counts it does not move.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { mulberry32 } from "../../tests/helpers/random.ts";
import { callgrindArgs, callgrindControl, requireValgrind, threadsPerRequest } from "./callgrind.ts";
import type { Contender, Wrapper } from "./processes.ts";
import type { ListMix } from "./varied-load.ts";

/** Instructions per request: in all threads, the main (HTTP) thread, the busiest other one (the engine's), the rest (compilers). */
export interface ThreadCounts {
  total: number;
  main: number;
  engine: number;
  rest: number;
}

function split(threads: number[]): ThreadCounts {
  const [main = 0, ...others] = threads;
  const engine = Math.max(0, ...others);
  const total = threads.reduce((sum, count) => sum + count, 0);
  return { total, main, engine, rest: total - main - engine };
}

/** One server to count: how to start it under `wrapper`, and the headers its requests carry. */
export interface CountedServer {
  name: string;
  start: (wrapper: Wrapper) => Promise<Contender>;
  headers?: Record<string, string>;
}

/** `count` distinct pages of the mix, drawn from `seed`: the same for every server. */
export function distinctPaths(seed: number, count: number, mix: ListMix): string[] {
  const random = mulberry32(seed);
  const seen = new Set<string>();
  while (seen.size < count) {
    const perPage = mix.minPerPage + Math.floor(random() * (mix.maxPerPage - mix.minPerPage + 1));
    const page = 1 + Math.floor(random() * Math.ceil(mix.records / perPage));
    const sort = mix.sorts[Math.floor(random() * mix.sorts.length)]!;
    seen.add(`${mix.list}?page=${page}&per_page=${perPage}${sort === "id" ? "" : `&sort=${sort}`}`);
  }
  return [...seen];
}

/** Sends every path once, `connections` at a time, each read to its end; any but a 200 throws. */
export async function sendPaths(url: string, paths: string[], connections: number, headers = {}): Promise<void> {
  const pool = new Pool(url, { connections, pipelining: 1 });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const { statusCode, body } = await pool.request({ path, method: "GET", headers });
      await body.text();
      if (statusCode !== 200) throw new Error(`${url}${path} answered ${statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    await pool.close();
  }
}

/** Kills a server process and resolves once it has exited. */
export function exited(server: Contender): Promise<void> {
  const child = server.process;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => (child.once("exit", () => resolve()), child.kill()));
}

/**
 * Each server in turn, under callgrind: `warmup` paths uncounted, then the rest counted.
 * Resolves to instructions per counted request, all threads summed, by server name.
 */
export async function countServers(
  benchmark: string,
  servers: CountedServer[],
  paths: string[],
  warmup: number,
  connections: number,
): Promise<Map<string, ThreadCounts>> {
  requireValgrind(benchmark);
  const root = mkdtempSync(join(tmpdir(), "bench-count-"));
  const counts = new Map<string, ThreadCounts>();
  try {
    for (const counted of servers) {
      const dir = join(root, String(counts.size));
      mkdirSync(dir);
      const server = await counted.start({
        execPath: "valgrind",
        args: callgrindArgs(join(dir, "callgrind.out"), false),
      });
      try {
        await sendPaths(server.url, paths.slice(0, warmup), connections, counted.headers);
        callgrindControl(server.process.pid!, "-i", "on");
        await sendPaths(server.url, paths.slice(warmup), connections, counted.headers);
        callgrindControl(server.process.pid!, "-i", "off");
        callgrindControl(server.process.pid!, "-d");
        counts.set(counted.name, split(threadsPerRequest(dir, paths.length - warmup)));
      } finally {
        await exited(server);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return counts;
}

/** The counts as a table, and the ratio `of` / `to` in all threads against `target` (and per thread, for the reader). */
export function reportCounts(counts: Map<string, ThreadCounts>, of: string, to: string, target: number): string[] {
  const cell = (value: number) => Math.round(value).toLocaleString("en-US");
  const lines = [
    "| server | all threads | main (HTTP) | engine | other (compilers) |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const [name, count] of counts) {
    lines.push(
      `| ${name} | ${cell(count.total)} | ${cell(count.main)} | ${cell(count.engine)} | ${cell(count.rest)} |`,
    );
  }
  const a = counts.get(of)!;
  const b = counts.get(to)!;
  const ratio = a.total / b.total;
  lines.push(
    "",
    `${of} / ${to} in instructions: ${ratio.toFixed(3)} (main thread ${(a.main / b.main).toFixed(3)}, engine ${
      (a.engine / b.engine).toFixed(3)
    }, other ${(a.rest / b.rest).toFixed(3)}); target ≥ ${target}: ${ratio >= target ? "met" : "NOT met"}.`,
  );
  return lines;
}
