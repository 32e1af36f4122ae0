/**
 * The fixed cost of an uncached list page, page 1 against a cursor page, in one thread:
 *
 *   npx tsx scripts/bench-list-cost.ts [--users 100000] [--rounds 30] [--batch 20]
 *
 * The app runs with the engine in its own thread off (`engineThread: false`) and no response
 * cache, so this process's CPU time and heap hold the whole request: app, driver and engine.
 * For each sort (id, -created_at,name) it alternates batches of page 1 and of a middle cursor
 * page and reports, per request, the median CPU µs and the bytes allocated (growth of the
 * used heap over a batch in which no garbage collection ran; batches with one are not counted
 * for allocation). Then a fingerprint of every response (status, headers, body), so a change
 * meant only to be faster can show it answers the same bytes.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { type App, createApp } from "../src/mod.ts";
import { loadHooks, loadModels } from "../src/loader.ts";
import { insertExampleUsers } from "./lib/example-users.ts";
import { flag, loadAverage, median } from "./lib/report.ts";

const USERS = flag("users", 100_000);
const ROUNDS = flag("rounds", 30);
const BATCH = flag("batch", 20);
const PER_PAGE = 10;

let collections = 0;
new PerformanceObserver((list) => void (collections += list.getEntries().length)).observe({ entryTypes: ["gc"] });

async function seededApp(count: number): Promise<App> {
  const dir = (name: string): string => fileURLToPath(new URL(`../${name}`, import.meta.url));
  const app = await createApp({
    models: await loadModels(dir("models")),
    hooks: await loadHooks(dir("hooks")),
    responseCache: false,
    engineThread: false,
    cursorSecret: "bench-list-cost-secret",
  });
  await insertExampleUsers(app.db, count);
  return app;
}

async function get(app: App, path: string): Promise<Response> {
  const response = await app.fetch(new Request(`http://localhost${path}`));
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response;
}

/** Status, headers (but the random x-request-id) and body of a response, hashed. */
async function fingerprint(response: Response): Promise<string> {
  const headers = [...response.headers].filter(([k]) => k !== "x-request-id").map(([k, v]) => `${k}: ${v}`).sort()
    .join("\n");
  const body = await response.text();
  return createHash("sha256").update(`${response.status}\n${headers}\n\n${body}`).digest("hex").slice(0, 16);
}

interface Samples {
  cpu: number[];
  bytes: number[];
}

async function batch(app: App, path: string, into: Samples): Promise<void> {
  const gcBefore = collections;
  const heapBefore = getHeapStatistics().used_heap_size;
  const used = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) await (await get(app, path)).arrayBuffer();
  const { user, system } = process.cpuUsage(used);
  const heapAfter = getHeapStatistics().used_heap_size;
  into.cpu.push((user + system) / BATCH);
  // The observer runs later: a collection during the batch shows as a smaller heap, or in the count.
  if (collections === gcBefore && heapAfter > heapBefore) into.bytes.push((heapAfter - heapBefore) / BATCH);
}

const app = await seededApp(USERS);
const middle = Math.ceil(USERS / PER_PAGE / 2);
const lines: string[] = [];
const prints: string[] = [];
for (const sort of ["id", "-created_at,name"]) {
  const first = `/api/v1/users?per_page=${PER_PAGE}&sort=${sort}`;
  const before = await (await get(app, `${first}&page=${middle - 1}`)).json();
  const cursor = `/api/v1/users?cursor=${encodeURIComponent(before.pagination.next)}`;
  const samples = new Map([[first, { cpu: [], bytes: [] }], [cursor, { cpu: [], bytes: [] }]]) as Map<string, Samples>;
  for (let round = -3; round < ROUNDS; round++) {
    for (const [path, into] of round % 2 === 0 ? [...samples] : [...samples].reverse()) {
      await batch(app, path, round < 0 ? { cpu: [], bytes: [] } : into);
    }
  }
  const [a, b] = [...samples.values()];
  const kb = (s: Samples) => s.bytes.length > 0 ? `${(median(s.bytes) / 1024).toFixed(1)} KB` : "n/a";
  lines.push(
    `| ${sort} | ${median(a.cpu).toFixed(0)} µs, ${kb(a)} | ${median(b.cpu).toFixed(0)} µs, ${kb(b)} | ${
      (median(b.cpu) - median(a.cpu)).toFixed(0)
    } µs | ${(median(b.cpu) / median(a.cpu)).toFixed(2)}× |`,
  );
  for (const path of [first, `${first}&page=${middle}`, cursor]) {
    prints.push(`${await fingerprint(await get(app, path))} ${path.slice(0, 60)}`);
  }
  const explicitCursor = (await (await get(app, cursor)).json()).pagination;
  prints.push(
    `${
      createHash("sha256").update(JSON.stringify(explicitCursor)).digest("hex").slice(0, 16)
    } pagination of the cursor page`,
  );
}
console.log(
  `bench-list-cost: ${USERS} users, engine in the app's thread, ${ROUNDS} rounds × ${BATCH} requests per path; load ${loadAverage()}\n`,
);
console.log(
  "| sort | page 1: CPU/req, allocated/req | middle cursor page: CPU/req, allocated/req | cursor − page 1 | ratio |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const line of lines) console.log(line);
console.log("\nresponse fingerprints (status, headers, body):");
for (const line of prints) console.log(line);
await app.close();
