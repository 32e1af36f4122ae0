/**
 * Memory and start-up of the example app on a large embedded DATA_DIR.
 *
 *   npx tsx scripts/bench-memory.ts [--docs 1000000] [--dir /tmp/mongorest-bench-memory] [--rebuild]
 *                                   [--journal-updates 200000]
 *
 * 1. Builds (once; `--rebuild` forces it) a DATA_DIR of `--docs` users shaped like the example
 *    User model, through the app itself (so its indexes exist) with insertMany in batches, and
 *    beside it the same users as one JSON file. Then compacts the folder into one snapshot
 *    (unless `--no-compact`), so start-up is measured reading a snapshot, as a folder that has
 *    been compacted is read in production.
 * 2. Starts the example app (`node --import tsx main.ts`, what `npm start` runs) on that folder,
 *    timing spawn → "Listening", reads its RSS, runs the example's sorted and filtered lists,
 *    and reads its RSS then and its peak RSS (VmHWM, which includes start-up's own peak).
 * 3. Baselines from the same run: the same app on an empty folder (the process's fixed cost),
 *    the BSON size of the users, and a plain process that reads the JSON file and `JSON.parse`s
 *    it (time and RSS). Ratios relate the app to them.
 * With `--journal-updates N`, also (once; `--rebuild` redoes it) a copy of the folder with N
 *    updates of users journaled on top of its snapshot, as the app's PATCH writes them, and the
 *    app's start-up on that copy: the "snapshot plus journal" folder.
 * 4. `bench-memory-phases.ts` on the same folder (and on the journaled one): recovery's decode, apply and index build in
 *    CPU time, and where the heap goes. Then the targets, met or not, and the load
 *    average at the start and end of the run (the machine may be shared).
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { BSON } from "bson";
import { MongoClient } from "mongodb";
import { createApp } from "../src/mod.ts";
import { startEmbeddedEngine } from "../src/embedded/mod.ts";
import { openDurableStore } from "../src/embedded/durability/mod.ts";
import { Catalog } from "../src/embedded/store/catalog.ts";
import { loadModels } from "../src/loader.ts";
import { loadAverage } from "./lib/report.ts";
import { user } from "./lib/memory-users.ts";

const { values: args } = parseArgs({
  options: {
    docs: { type: "string", default: "1000000" },
    dir: { type: "string", default: "/tmp/mongorest-bench-memory" },
    rebuild: { type: "boolean", default: false },
    "no-compact": { type: "boolean", default: false },
    "journal-updates": { type: "string", default: "0" },
  },
});
const DOCS = Number(args.docs);
const ROOT = args.dir;
const DATA = join(ROOT, `data-${DOCS}`);
const JSON_FILE = join(ROOT, `users-${DOCS}.json`);
const EMPTY = join(ROOT, "empty");
const BATCH = 10_000;
/** The database the app uses on the embedded engine (its URI names none). */
const DB_NAME = "app";
/** Idle time after "Listening" before the second RSS reading (V8's memory reducer runs by then). */
const SETTLE_MS = 15_000;
const QUERIES = [
  "/api/v1/users?sort=name&page=5000",
  "/api/v1/users?sort=-created_at,name&page=5000",
  `/api/v1/users?q=${encodeURIComponent('{"surname":"x"}')}`,
  `/api/v1/users?q=${encodeURIComponent('{"surname":"Knuth"}')}&page=100`,
  "/api/v1/users?page=50000",
];

async function build(): Promise<void> {
  rmSync(DATA, { recursive: true, force: true });
  mkdirSync(DATA, { recursive: true });
  const app = await createApp({ models: await loadModels("models"), dataDir: DATA });
  const users = app.db.collection("users");
  const json: string[] = [];
  const started = performance.now();
  for (let first = 1; first <= DOCS; first += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, DOCS - first + 1) }, (_, i) => user(first + i));
    await users.insertMany(docs as never[], { ordered: true });
    for (const doc of docs) json.push(JSON.stringify(doc));
    if ((first - 1) % 100_000 === 0) process.stderr.write(`built ${first - 1 + docs.length} users\n`);
  }
  await app.close();
  writeFileSync(JSON_FILE, `[${json.join(",")}]`);
  console.log(`built ${DOCS} users in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Folds the folder's journals into one snapshot, as the engine's compaction does. */
async function compactFolder(dir: string): Promise<void> {
  const started = performance.now();
  const catalog = new Catalog();
  const store = await openDurableStore(dir, () => catalog.dumpEncoded());
  await store.recover((change) => catalog.applyChange(change));
  catalog.finishRecovery(); // as the engine does: the snapshot saves the built indexes' orders
  // recover() starts a compaction by itself when the journal is large; compact() only if not.
  await store.idle();
  await store.compact();
  await store.close();
  console.log(`compacted ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * A copy of the data folder with `count` user updates journaled on top of its snapshot (made
 * once per count): renames spread over the collection, with `updated_at` and `_rev` as the
 * app's PATCH sets them. Written through the engine with its compaction held off, so the
 * journal stays for the next start however large: the folder a crash leaves (up to the
 * compaction bar), or one that an earlier version, whose bar was the snapshot's size, left.
 */
async function journaledFolder(count: number): Promise<string> {
  const dir = `${DATA}-journal-${count}`;
  if (existsSync(dir) && !args.rebuild) return dir;
  rmSync(dir, { recursive: true, force: true });
  cpSync(DATA, dir, { recursive: true });
  const never = 2 ** 50;
  const engine = await startEmbeddedEngine({
    dataDir: dir,
    compaction: { compactThreshold: never, closeCompactThreshold: never },
  });
  const client = await new MongoClient(engine.uri).connect();
  const users = client.db(DB_NAME).collection<{ _id: number }>("users");
  for (let first = 0; first < count; first += 1000) {
    const ops = Array.from({ length: Math.min(1000, count - first) }, (_, i) => {
      const id = 1 + ((first + i) * 4999) % DOCS; // 4999 is prime to 10^6: every id before any twice
      return {
        updateOne: {
          filter: { _id: id },
          update: { $set: { name: `Renamed${id % 5000}`, updated_at: new Date() }, $inc: { _rev: 1 } },
        },
      };
    });
    await users.bulkWrite(ops, { ordered: false });
  }
  await client.close();
  await engine.close();
  console.log(`journaled ${count} updates on a copy of ${DATA}`);
  return dir;
}

/**
 * The app's start on a copy of `dir`: the app compacts a large journal, in the background once
 * started and at its stop, which would leave the folder without the journal the next run measures.
 */
async function runOnCopy(dir: string): Promise<Awaited<ReturnType<typeof runApp>>> {
  const copy = `${dir}-run`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(dir, copy, { recursive: true });
  try {
    return await runApp(copy, []);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Kernel figures of a process: current and peak resident set, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) =>
    Number(/(\d+) kB/.exec(status.split("\n").find((l) => l.startsWith(field)) ?? "")?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS:"), peak: kb("VmHWM:") };
}

interface AppRun {
  startMs: number;
  rss: number;
  /** RSS after {@link SETTLE_MS} idle after start. */
  rssSettled: number;
  /** RSS once the queries have run. */
  rssAfter: number;
  /** Highest RSS of the process's life (VmHWM), start-up included. */
  peak: number;
  queries: { path: string; ms: number; status: number }[];
}

/** Starts the example app on `dataDir`, measures it, stops it. */
async function runApp(dataDir: string, queries: string[]): Promise<AppRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "main.ts"], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`app exited with ${code} before listening`)));
  });
  const startMs = performance.now() - started;
  const { rss } = memoryOf(child.pid!);
  // RSS right at "Listening" still holds recovery's garbage, as much as the last GC left: it
  // varied 0.8-1.1 GiB between runs of the same code. V8's memory reducer collects it once
  // the process is idle for a few seconds; this second reading is the stable one.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const { rss: rssSettled } = memoryOf(child.pid!);
  const ran: AppRun["queries"] = [];
  for (const path of queries) {
    const t = performance.now();
    const response = await fetch(url + path);
    await response.arrayBuffer();
    ran.push({ path, ms: performance.now() - t, status: response.status });
  }
  const { rss: rssAfter, peak } = memoryOf(child.pid!);
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  return { startMs, rss, rssSettled, rssAfter, peak, queries: ran };
}

/** A plain node process that reads the JSON file and parses it: the baseline's time and RSS. */
async function runJsonBaseline(): Promise<{ ms: number; rss: number }> {
  const code =
    `const t=performance.now();const d=JSON.parse(require("fs").readFileSync(${JSON.stringify(JSON_FILE)},"utf8"));` +
    `const ms=performance.now()-t;globalThis.gc?.();console.log(JSON.stringify({ms,rss:process.memoryUsage().rss,n:d.length}))`;
  const child = spawn(process.execPath, ["--expose-gc", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once("exit", resolve));
  return JSON.parse(out);
}

/** `bench-memory-phases.ts` on `dir` in a process of its own: its report. */
async function runPhases(dir: string): Promise<string> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "scripts/bench-memory-phases.ts", dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once("exit", resolve));
  return out.split("\n").filter((line) => !line.startsWith("{")).join("\n");
}

function folderBytes(dir: string): { snapshot: number; journal: number } {
  let snapshot = 0;
  let journal = 0;
  for (const name of readdirSync(dir)) {
    const size = statSync(join(dir, name)).size;
    if (name.startsWith("snapshot")) snapshot += size;
    else if (name.startsWith("journal")) journal += size;
  }
  return { snapshot, journal };
}

function bsonBytes(): number {
  let total = 0;
  for (let id = 1; id <= DOCS; id++) total += BSON.calculateObjectSize(user(id));
  return total;
}

const MiB = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

if (args.rebuild || !existsSync(DATA) || !existsSync(JSON_FILE)) await build();
if (!args["no-compact"] && folderBytes(DATA).journal > 1 << 20) await compactFolder(DATA);
const loadAtStart = loadAverage();
rmSync(EMPTY, { recursive: true, force: true });
mkdirSync(EMPTY, { recursive: true });
const files = folderBytes(DATA);
const bson = bsonBytes();
const empty = await runApp(EMPTY, []);
const json = await runJsonBaseline();
const full = await runApp(DATA, QUERIES);
const journalUpdates = Number(args["journal-updates"]);
const journaledDir = journalUpdates > 0 ? await journaledFolder(journalUpdates) : undefined;
const journaled = journaledDir === undefined ? undefined : await runOnCopy(journaledDir);
const phases = await runPhases(DATA);
const dataRss = full.rss - empty.rss;

console.log(
  `\n${DOCS.toLocaleString("en")} users: BSON ${MiB(bson)} (${(bson / DOCS).toFixed(0)} B/doc); DATA_DIR snapshot ${
    MiB(files.snapshot)
  } + journal ${MiB(files.journal)}`,
);
console.log(`\n| measure | app on the data | baseline | ratio |\n|---|---:|---:|---:|`);
console.log(
  `| start to "Listening" vs empty DATA_DIR | ${sec(full.startMs)} | ${sec(empty.startMs)} | ${
    (full.startMs / empty.startMs).toFixed(2)
  }x |`,
);
console.log(
  `| start vs JSON.parse of the same users | ${sec(full.startMs)} | ${sec(json.ms)} | ${
    (full.startMs / json.ms).toFixed(2)
  }x |`,
);
console.log(`| RSS after start vs BSON size | ${MiB(full.rss)} | ${MiB(bson)} | ${(full.rss / bson).toFixed(2)}x |`);
console.log(
  `| RSS after start minus empty app (${MiB(empty.rss)}) vs BSON size | ${MiB(dataRss)} | ${MiB(bson)} | ${
    (dataRss / bson).toFixed(2)
  }x |`,
);
console.log(
  `| RSS after start vs JSON.parse process RSS | ${MiB(full.rss)} | ${MiB(json.rss)} | ${
    (full.rss / json.rss).toFixed(2)
  }x |`,
);
console.log(
  `| RSS ${SETTLE_MS / 1000} s after start, idle, vs BSON size | ${MiB(full.rssSettled)} | ${MiB(bson)} | ${
    (full.rssSettled / bson).toFixed(2)
  }x |`,
);
console.log(
  `| RSS after the queries vs BSON size | ${MiB(full.rssAfter)} | ${MiB(bson)} | ${
    (full.rssAfter / bson).toFixed(2)
  }x |`,
);
console.log(
  `| peak RSS (VmHWM: start-up included) vs BSON size | ${MiB(full.peak)} | ${MiB(bson)} | ${
    (full.peak / bson).toFixed(2)
  }x |`,
);
if (journaled !== undefined) {
  const onTop = folderBytes(journaledDir!).journal;
  console.log(
    `| start with ${journalUpdates} updates journaled on top (${MiB(onTop)}) vs without | ${sec(journaled.startMs)} | ${
      sec(full.startMs)
    } | ${(journaled.startMs / full.startMs).toFixed(2)}x |`,
  );
  console.log(
    `| RSS after that start vs BSON size | ${MiB(journaled.rss)} | ${MiB(bson)} | ${
      (journaled.rss / bson).toFixed(2)
    }x |`,
  );
  console.log(
    `| RSS 15 s after that start, idle (the journal compacted meanwhile if past the bar) vs BSON size | ${
      MiB(journaled.rssSettled)
    } | ${MiB(bson)} | ${(journaled.rssSettled / bson).toFixed(2)}x |`,
  );
}
console.log(`\n| query | status | time |\n|---|---:|---:|`);
for (const q of full.queries) {
  console.log(`| \`${decodeURIComponent(q.path)}\` | ${q.status} | ${q.ms.toFixed(0)} ms |`);
}
console.log(`\nRecovery in a bare process, phase by phase (bench-memory-phases.ts):\n${phases}`);
if (journaledDir !== undefined) {
  console.log(`\nThe same on the journaled folder:\n${await runPhases(journaledDir)}`);
}
const verdict = (met: boolean) => (met ? "met" : "NOT met");
console.log(`target: start to "Listening" <= 3 s: ${sec(full.startMs)}, ${verdict(full.startMs <= 3000)}`);
console.log(
  `target: RSS after start <= 2.5x BSON: ${(full.rss / bson).toFixed(2)}x at "Listening", ${
    (full.rssSettled / bson).toFixed(2)
  }x settled, ${verdict(Math.min(full.rss, full.rssSettled) <= 2.5 * bson)}`,
);
console.log(`\nload average ${loadAtStart} at the start, ${loadAverage()} at the end (1 min; 2 cores)`);
console.log(`(${process.version}, ${process.platform}/${process.arch})`);
