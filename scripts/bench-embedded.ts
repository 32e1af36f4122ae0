/**
 * Benchmark of the embedded engine against an in-process baseline.
 *
 *   npx tsx scripts/bench-embedded.ts
 *
 * For 1,000 and 100,000 documents it measures, through the real driver: insertMany
 * throughput, `_id` lookups per second, and the framework's paginated list (find with
 * skip/limit plus countDocuments, concurrently) for page 1 and a deep page. Beside each figure
 * sits a baseline from the same run: the same query run by mingo directly, in process, over a
 * plain array of the same documents (for inserts: appending copies to that array). Each
 * measurement runs for a bounded time, so the whole run stays well under a minute.
 */
import process from "node:process";
import { type Document, MongoClient } from "mongodb";
import { aggregate, find } from "mingo";
import { startEmbeddedEngine } from "../src/embedded/mod.ts";

const SIZES = [1_000, 100_000];
const PAGE = 20;
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 500);

interface Row {
  size: number;
  metric: string;
  engine: number;
  baseline: number;
}

function makeDocs(n: number): Document[] {
  return Array.from({ length: n }, (_, i) => ({
    _id: i + 1,
    name: `item ${i + 1}`,
    email: `user${i + 1}@example.com`,
    qty: i % 100,
    active: i % 3 !== 0,
    createdAt: new Date(1_700_000_000_000 + i * 1000),
    tags: ["a", "b", "c"].slice(0, (i % 3) + 1),
  }));
}

/** Runs `op` repeatedly for the time budget (at least `min` times); returns operations per second. */
async function rate(op: (i: number) => unknown, min = 3): Promise<number> {
  const start = performance.now();
  let n = 0;
  while (n < min || performance.now() - start < BUDGET_MS) await op(n++);
  return (n * 1000) / (performance.now() - start);
}

/** Like {@link rate}, with `concurrency` operations in flight (how a server is used). */
async function concurrentRate(op: (i: number) => Promise<unknown>, concurrency = 8): Promise<number> {
  const start = performance.now();
  let n = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() - start < BUDGET_MS || n < concurrency) await op(n++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (n * 1000) / (performance.now() - start);
}

const countPipeline = [{ $match: {} }, { $group: { _id: 1, n: { $sum: 1 } } }];

async function measure(client: MongoClient, size: number): Promise<Row[]> {
  const docs = makeDocs(size);
  const coll = client.db("bench").collection(`docs_${size}`);
  const rows: Row[] = [];

  // Small sizes are inserted repeatedly (into scratch collections) to fill the time budget.
  let round = 0;
  const engineInsert = size * (await rate(async () => {
    const target = round++ === 0 ? coll : client.db("bench").collection(`scratch_${size}_${round}`);
    await target.insertMany(docs.map((d) => ({ ...d })), { ordered: true });
  }, 1));
  let array: Document[] = [];
  const baselineInsert = size * (await rate(() => {
    array = [];
    for (const d of docs) array.push({ ...d });
  }, 1));
  await client.db("bench").dropDatabase();
  await coll.insertMany(docs.map((d) => ({ ...d })));
  rows.push({ size, metric: "insertMany (docs/s)", engine: engineInsert, baseline: baselineInsert });

  const randomId = (i: number): number => ((i * 7919) % size) + 1;
  rows.push({
    size,
    metric: "_id lookup (ops/s)",
    engine: await concurrentRate((i) => coll.findOne({ _id: randomId(i) } as Document)),
    baseline: await rate((i) => find(array, { _id: randomId(i) }).next()),
  });

  for (const [label, skip] of [["page 1", 0], ["deep page", size - 2 * PAGE]] as const) {
    rows.push({
      size,
      metric: `paginate ${label}, skip ${skip.toLocaleString("en-US")} (pages/s)`,
      engine: await concurrentRate(() =>
        Promise.all([coll.find({}, { sort: { _id: 1 }, skip, limit: PAGE }).toArray(), coll.countDocuments({})])
      ),
      baseline: await rate(() => [
        find(array, {}).sort({ _id: 1 }).skip(skip).limit(PAGE).all(),
        aggregate(array, countPipeline),
      ]),
    });
  }
  await client.db("bench").dropDatabase();
  return rows;
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1);
}

function ratio(r: number): string {
  return r >= 1 ? r.toFixed(2) : r.toPrecision(2);
}

function table(rows: Row[]): string {
  const lines = [
    "| docs | measure | engine (driver over TCP) | baseline (mingo in process) | engine ÷ baseline |",
    "|---:|---|---:|---:|---:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.size.toLocaleString("en-US")} | ${r.metric} | ${fmt(r.engine)} | ${fmt(r.baseline)} | ${
        ratio(r.engine / r.baseline)
      } |`,
    );
  }
  return lines.join("\n");
}

/** Opens the pool's connections and lets the JIT settle, so the first measure is not penalised. */
async function warmUp(client: MongoClient): Promise<void> {
  const coll = client.db("warmup").collection("docs");
  for (let i = 0; i < 8; i++) await client.db("warmup").collection(`w${i}`).insertMany(makeDocs(2000));
  await coll.insertMany(makeDocs(2000));
  await concurrentRate((i) => coll.findOne({ _id: (i % 2000) + 1 } as Document));
  await concurrentRate(() =>
    Promise.all([coll.find({}, { skip: 100, limit: PAGE }).toArray(), coll.countDocuments({})])
  );
  await client.db("warmup").dropDatabase();
}

const started = performance.now();
const engine = await startEmbeddedEngine();
const client = new MongoClient(engine.uri, { maxPoolSize: 8 });
try {
  await client.connect();
  await warmUp(client);
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(...(await measure(client, size)));
  console.log(table(rows));
  console.log(
    `\n(${process.version}, ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s; ratios are throughput ratios: above 1 the engine is faster)`,
  );
} finally {
  await client.close();
  await engine.close();
}
