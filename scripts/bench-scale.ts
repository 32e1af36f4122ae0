/**
 * What a list page costs as the collection grows, in process (`app.fetch`, response cache off):
 *
 *   npx tsx scripts/bench-scale.ts [--users 10000] [--reps 15]
 *   npx tsx scripts/bench-scale.ts --users 1000000 --reps 5      # the 1M row (minutes, ~1 GiB)
 *
 * For each sort (id, name, -created_at,name) it times page 1, the middle page and the last page
 * by offset, and the same positions reached by cursor (the cursor taken from the page before),
 * reporting the median time per request and its ratio to id-order page 1 measured in the same
 * run. Then the count strategies on an unindexed filter and exact on an indexed one. Where the
 * engine answers `explain`, documents examined are shown too. Ratios, not absolute times, are
 * the result: they compare work done on the same machine at the same moment.
 */
import { fileURLToPath } from "node:url";
import { createApp, type App } from "../src/mod.ts";
import { loadHooks, loadModels } from "../src/loader.ts";
import { syncCounter } from "../src/store/ids.ts";
import { flag, loadAverage, median } from "./lib/report.ts";

const USERS = flag("users", 10_000);
const REPS = flag("reps", 15);
const PER_PAGE = 10;

async function seededApp(count: number): Promise<App> {
  const dir = (name: string): string => fileURLToPath(new URL(`../${name}`, import.meta.url));
  const app = await createApp({ models: await loadModels(dir("models")), hooks: await loadHooks(dir("hooks")), responseCache: false });
  const users = app.db.collection("users");
  for (let from = 1; from <= count; from += 1000) {
    const docs = [];
    for (let id = from; id <= Math.min(count, from + 999); id++) {
      // Few distinct creation times and names, so sorts have ties to break.
      const at = new Date(Date.UTC(2026, 0, 1) + (id % 1000) * 60_000);
      docs.push({ _id: id, email: `user${id}@example.com`, name: `Name${(id * 7919) % count}`, surname: `Surname${id % 500}`, created_at: at, updated_at: at, _rev: 1 });
    }
    await users.insertMany(docs as never[]);
  }
  await syncCounter(app.db, "users");
  return app;
}

// deno-lint-ignore no-explicit-any -- the response is parsed JSON the benchmark reads freely
async function get(app: App, path: string): Promise<any> {
  const response = await app.fetch(new Request(`http://localhost${path}`));
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return await response.json();
}

/** Median milliseconds of `path` over REPS runs, after two warm-ups; `prepare` runs untimed before each. */
async function time(app: App, path: string, prepare: () => Promise<unknown> = async () => {}): Promise<number> {
  for (let i = 0; i < 2; i++) await get(app, path);
  const samples: number[] = [];
  for (let i = 0; i < REPS; i++) {
    await prepare();
    const start = performance.now();
    await get(app, path);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Documents the engine reads for a page, if it answers explain. */
async function docsExamined(app: App, filter: object, sort: Record<string, 1 | -1>, skip: number): Promise<string> {
  try {
    const plan = await app.db.collection("users").find(filter, { sort, skip, limit: PER_PAGE + 1 }).explain("executionStats");
    return String(plan.executionStats?.totalDocsExamined ?? "n/a");
  } catch {
    return "n/a";
  }
}

const SORTS: [string, Record<string, 1 | -1>][] = [["id", { _id: 1 }], ["name", { name: 1, _id: 1 }], ["-created_at,name", { created_at: -1, name: 1, _id: 1 }]];

async function scaleRows(app: App): Promise<string[]> {
  const lastPage = Math.ceil(USERS / PER_PAGE);
  const pages: [string, number][] = [["page 1", 1], ["middle", Math.ceil(lastPage / 2)], ["last", lastPage]];
  const rows: string[] = [];
  const base = await time(app, `/api/v1/users?per_page=${PER_PAGE}`);
  for (const [sort, spec] of SORTS) {
    for (const [label, page] of pages) {
      const offset = `/api/v1/users?per_page=${PER_PAGE}&sort=${sort}&page=${page}&count=none`;
      const offsetMs = await time(app, offset);
      let cursorCell = "–";
      if (page > 1) {
        const before = await get(app, `/api/v1/users?per_page=${PER_PAGE}&sort=${sort}&page=${page - 1}&count=none`);
        const ms = await time(app, `/api/v1/users?cursor=${encodeURIComponent(before.pagination.next)}&count=none`);
        cursorCell = `${ms.toFixed(2)} ms (${(ms / base).toFixed(2)}×)`;
      }
      const examined = await docsExamined(app, {}, spec, (page - 1) * PER_PAGE);
      rows.push(`| ${sort} | ${label} | ${offsetMs.toFixed(2)} ms (${(offsetMs / base).toFixed(2)}×) | ${cursorCell} | ${examined} |`);
    }
  }
  return [`baseline: id order page 1 with the exact count = ${base.toFixed(2)} ms`, "", "| sort | page | offset | cursor | docs examined (offset, explain) |", "| --- | --- | ---: | ---: | ---: |", ...rows];
}

async function countRows(app: App): Promise<string[]> {
  const unindexed = encodeURIComponent(JSON.stringify({ "updated_at.$gte": "2026-01-01" }));
  const indexed = encodeURIComponent(JSON.stringify({ surname: "Surname7" }));
  // A write to users (matching nothing) before each request, so no count is reused from the last one.
  const write = () => app.db.collection("users").updateOne({ _id: -1 as never }, { $set: { touched: true } });
  const cells: [string, string, string][] = [["none", unindexed, "unindexed"], ["exact", unindexed, "unindexed"], ["estimated", unindexed, "unindexed"], ["exact", indexed, "indexed (surname)"]];
  const timed: number[] = [];
  for (const [count, q] of cells) timed.push(await time(app, `/api/v1/users?q=${q}&count=${count}`, write));
  const rows = ["| count | filter | ms | vs count=none |", "| --- | --- | ---: | ---: |"];
  cells.forEach(([count, , label], i) => rows.push(`| ${count} | ${label} | ${timed[i].toFixed(2)} | ${(timed[i] / timed[0]).toFixed(2)} |`));
  const reused = await time(app, `/api/v1/users?q=${unindexed}&count=exact`);
  const none = await time(app, `/api/v1/users?q=${unindexed}&count=none`);
  rows.push("", `count reuse, no write between requests: exact ${reused.toFixed(2)} ms vs none ${none.toFixed(2)} ms (${(reused / none).toFixed(2)}×)`);
  return rows;
}

const app = await seededApp(USERS);
try {
  console.log(`# bench-scale: ${USERS} users, ${REPS} reps per cell, load ${loadAverage()}`);
  console.log((await scaleRows(app)).join("\n"));
  console.log();
  console.log((await countRows(app)).join("\n"));
} finally {
  await app.close();
}
