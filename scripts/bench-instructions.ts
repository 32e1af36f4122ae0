/**
 * Instructions per cached request, counted by callgrind: a measure that host noise does not
 * move, beside bench-paginate's times, which it does.
 *
 *   npx tsx scripts/bench-instructions.ts [--requests 20000] [--warmup 30000]
 *
 * Needs valgrind (`apt-get install valgrind`). Each configuration runs in a process of its own
 * under `valgrind --tool=callgrind` (scripts/lib/cache-hit-loop.ts): the example app answers
 * page 2 of its users from the response cache, without sockets, and only the counted requests
 * are instrumented. Reported per request: the main thread's instructions, and of those the
 * ones outside V8's garbage collector (which depend on when scavenges fall). The default app
 * is the baseline; the service row (logs, CORS, rate limit) and each feature alone are given
 * against it. Counts move by a few hundred between runs, as V8's optimising compiler works on
 * a thread of its own and finishes at different points; compare differences larger than that.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { callgrindArgs, type Count, mainThreadDump, perRequest, requireValgrind } from "./lib/callgrind.ts";
import { flag } from "./lib/report.ts";

const CHILD = fileURLToPath(new URL("./lib/cache-hit-loop.ts", import.meta.url));
const ROWS = [
  { name: "default app", features: "" },
  { name: "+ JSON request log", features: "logs" },
  { name: "+ CORS", features: "cors" },
  { name: "+ rate limit", features: "ratelimit" },
  { name: "+ logs, CORS, rate limit", features: "logs,cors,ratelimit" },
];

/** Runs one configuration under callgrind; resolves to its main thread's counts per request. */
async function countOne(features: string, requests: number, warmup: number): Promise<Count> {
  const dir = mkdtempSync(join(tmpdir(), "bench-instructions-"));
  const args = [...callgrindArgs(join(dir, "callgrind.out"), true), "--import", "tsx", CHILD];
  const env = { ...process.env, FEATURES: features, REQUESTS: String(requests), WARMUP: String(warmup) };
  const child = spawn("valgrind", args, { env, stdio: ["ignore", "ignore", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`the callgrind run of "${features}" failed (${code}):\n${errors.slice(-2000)}`);
  try {
    // The dump asked for after the counted requests.
    const dump = mainThreadDump(dir);
    if (dump === undefined) throw new Error(`callgrind wrote no dump for "${features}"`);
    return perRequest(dump, requests);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  requireValgrind("bench-instructions");
  const requests = flag("requests", 20_000);
  const warmup = flag("warmup", 30_000);
  console.log(`# bench-instructions: ${requests} cached requests after ${warmup}, main thread, per request\n`);
  const counts: Count[] = [];
  // Two at a time: the machine has two cores, and counts do not depend on time.
  for (let i = 0; i < ROWS.length; i += 2) {
    counts.push(...await Promise.all(ROWS.slice(i, i + 2).map((row) => countOne(row.features, requests, warmup))));
  }
  const base = counts[0]!;
  console.log("| configuration | instructions | outside the collector | over the default app |");
  console.log("| --- | ---: | ---: | ---: |");
  ROWS.forEach((row, i) => {
    const { total, outsideCollector } = counts[i]!;
    const over = i === 0 ? "" : `+${Math.round(outsideCollector - base.outsideCollector).toLocaleString("en-US")}`;
    const cells = [total, outsideCollector].map((value) => Math.round(value).toLocaleString("en-US"));
    console.log(`| ${row.name} | ${cells[0]} | ${cells[1]} | ${over} |`);
  });
}

await main();
