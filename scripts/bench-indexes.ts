/**
 * Ordered indexes of the embedded engine, through the driver, in one run:
 *
 *   node --expose-gc --import tsx scripts/bench-indexes.ts [--sizes 10000,100000,1000000] [--reps 5]
 *
 * For each size, one collection holds `name` (indexed) and `plain`, a copy of it with no index
 * (the baseline). Page 1, the middle page and the last page of 20, sorted on each, alternate
 * over the same pages, so drift on a shared machine hits both alike. Prints the median time
 * per page, the ratio, and the keys/docs examined from explain. At the largest size it also
 * reports the memory one index adds (RSS and heap, after a GC) against the data's own.
 */
import process from "node:process";
import { performance } from "node:perf_hooks";
import { type Collection, MongoClient } from "mongodb";

/** The rows this benchmark stores. */
type Person = { _id: number; name: string; plain: string; email: string; age: number };
import { startEmbeddedEngine } from "../src/embedded/mod.ts";

const PER_PAGE = 20;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const sizes = flag("sizes", "10000,100000,1000000").split(",").map(Number);
const reps = Number(flag("reps", "5"));
const gc = (globalThis as { gc?: () => void }).gc;

function memory(): { rss: number; heap: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** A deterministic name per row, so sorting on it shuffles the `_id` order. */
function nameOf(i: number, n: number): string {
  return `user ${String((i * 7919) % n).padStart(7, "0")}`;
}

async function load(c: Collection<Person>, n: number): Promise<void> {
  const batch = 10_000;
  for (let start = 0; start < n; start += batch) {
    const docs = [];
    for (let i = start; i < Math.min(n, start + batch); i++) {
      const name = nameOf(i, n);
      docs.push({ _id: i, name, plain: name, email: `u${i}@example.com`, age: i % 90 });
    }
    await c.insertMany(docs, { ordered: false });
  }
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up, not counted
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}

async function pageRow(c: Collection<Person>, n: number, label: string, skip: number): Promise<string> {
  const page = (field: string) => () => c.find({}, { sort: { [field]: 1 }, skip, limit: PER_PAGE }).toArray();
  const [indexed, plain] = [await median(page("name")), await median(page("plain"))];
  const work = async (field: string) => {
    const e = await c.find({}, { sort: { [field]: 1 }, skip, limit: PER_PAGE }).explain("executionStats");
    return `${e.executionStats.totalKeysExamined}/${e.executionStats.totalDocsExamined}`;
  };
  return `| ${n.toLocaleString("en")} | ${label} | ${indexed.toFixed(2)} ms | ${plain.toFixed(1)} ms | ${
    (plain / indexed).toFixed(0)
  }x | ${await work("name")} | ${await work("plain")} |`;
}

const engine = await startEmbeddedEngine({});
const client = await new MongoClient(engine.uri).connect();
const db = client.db("bench_indexes");
console.log(
  "| docs | page | sort=name (indexed) | sort=plain (no index) | ratio | keys/docs examined, indexed | keys/docs examined, no index |",
);
console.log("|---:|---|---:|---:|---:|---:|---:|");
let memoryLine = "";
for (const n of sizes) {
  const c = db.collection<Person>(`people_${n}`);
  const empty = memory();
  await load(c, n);
  const loaded = memory();
  await c.createIndex({ name: 1 });
  const indexed = memory();
  const last = Math.floor((n - 1) / PER_PAGE) * PER_PAGE;
  for (
    const [label, skip] of [["page 1", 0], ["middle", Math.floor(n / 2 / PER_PAGE) * PER_PAGE], ["last", last]] as const
  ) {
    console.log(await pageRow(c, n, label, skip));
  }
  if (n === Math.max(...sizes)) {
    const data = { rss: loaded.rss - empty.rss, heap: loaded.heap - empty.heap };
    const index = { rss: indexed.rss - loaded.rss, heap: indexed.heap - loaded.heap };
    memoryLine = `${n.toLocaleString("en")} docs: data +${mib(data.heap)} MiB heap / +${mib(data.rss)} MiB RSS; ` +
      `one index +${mib(index.heap)} MiB heap (${((100 * index.heap) / data.heap).toFixed(0)}% of the data's) / ` +
      `+${mib(index.rss)} MiB RSS (${((100 * index.rss) / data.rss).toFixed(0)}%)${
        gc ? "" : " (run with --expose-gc for exact heap figures)"
      }`;
  }
  await c.drop();
}
console.log(`\nMemory: ${memoryLine}`);
await client.close();
await engine.close();
