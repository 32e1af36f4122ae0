/**
 * Memory and start-up with a large data folder:
 *
 *   npx tsx scripts/bench-startup.ts [--users 1000000] [--dir .bench/data-1m]
 *
 * 1. Builds the data folder once (kept for later runs): the embedded engine on that folder,
 *    users inserted through the driver in batches of 10,000, in the shape the framework stores
 *    them, then closed (journal and snapshot on disk).
 * 2. Runs `npm start` on it twice (DATA_DIR=that folder, a free PORT) and reports the time from
 *    spawning npm to the first answered `GET /api/v1/users`, the CPU time the processes used by
 *    then (what a busy machine does not inflate), and the resident memory (RSS) of the server
 *    process then. On a new folder the first start creates the example models' indexes; every
 *    later start recovers them from the journal like any restart.
 * 3. In a process of its own, the engine alone on that folder: RSS with no secondary index on
 *    users, then after adding each of the User model's indexes in turn, as a share of the
 *    first figure (the target is at most +25% per index). It leaves the indexes as it found them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { MongoClient } from "mongodb";
import { startEmbeddedEngine } from "../src/embedded/mod.ts";
import { insertExampleUsers } from "./lib/example-users.ts";
import { loadAverage } from "./lib/report.ts";
import User from "../models/User.ts";

const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
};
const USERS = Number(argument("users") ?? 1_000_000);
const DIR = argument("dir") ?? `.bench/data-${USERS >= 1e6 ? `${USERS / 1e6}m` : `${USERS / 1e3}k`}`;
const MIB = 1024 * 1024;
/** The User model's indexes, in the order they are added: unique email first, then those models/User.ts declares. */
const USER_INDEXES: [Record<string, 1 | -1>, boolean][] = [
  [{ email: 1 }, true],
  ...User.indexes.map((index): [Record<string, 1 | -1>, boolean] => [index.keys, index.unique === true]),
];

async function buildFolder(): Promise<void> {
  if (existsSync(DIR) && readdirSync(DIR).length > 0) return console.log(`data folder ${DIR} exists: kept`);
  const started = performance.now();
  const engine = await startEmbeddedEngine({ dataDir: DIR });
  const client = await new MongoClient(engine.uri).connect();
  const db = client.db("app");
  await insertExampleUsers(db, USERS, { batch: 10_000, password: "secret" });
  await client.close();
  await engine.close();
  console.log(
    `built ${DIR}: ${USERS.toLocaleString("en-US")} users in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process, in MiB (Linux /proc). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** CPU seconds (user + system) a process has used so far (Linux /proc; clock ticks of 1/100 s). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process and its descendants (npm → sh → tsx → node), from /proc. */
function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, parent] of parents) if (parent === out[i]) out.push(pid);
  return out;
}

async function answered(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

/** Spawns `npm start` on the folder; resolves with the time to the first answered list and the server's RSS. */
async function npmStart(): Promise<{ seconds: number; cpu: number; rss: number; total: number }> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn("npm", ["start"], {
    env: { ...process.env, DATA_DIR: DIR, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("Listening on") && resolve());
      child.once("exit", (code) => reject(new Error(`npm start exited (${code})`)));
    });
    while (!(await answered(`http://127.0.0.1:${port}/api/v1/users`))) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - started) / 1000;
    const pids = tree(child.pid!);
    const sizes = pids.map(rssOf);
    const cpu = pids.map(cpuOf).reduce((a, b) => a + b, 0);
    return { seconds, cpu, rss: Math.max(...sizes), total: sizes.reduce((a, b) => a + b, 0) };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGTERM"); // the group this script started: npm, sh, tsx, node
      await exited;
    }
  }
}

/** Runs this script's `--indexes` role in a process of its own (so its RSS is the engine's alone). */
function indexRole(...flags: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      "--expose-gc",
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      "--indexes",
      ...flags,
      "--dir",
      DIR,
    ], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`index role exited ${code}`))));
  });
}

/** Settled resident memory of this process, in MiB. */
function settledRss(): number {
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / MIB;
}

/** The indexes on users (but `_id`'s) as JSON, dropped, when this process runs with `--drop`. */
async function dropIndexes(): Promise<void> {
  const engine = await startEmbeddedEngine({ dataDir: DIR });
  const client = await new MongoClient(engine.uri).connect();
  const users = client.db("app").collection("users");
  const existing = (await users.indexes()).filter((index) => index.name !== "_id_");
  for (const index of existing) await users.dropIndex(index.name!);
  await client.close();
  await engine.close();
  console.log(JSON.stringify(existing));
}

/**
 * RSS of a fresh engine on the folder (which then holds no secondary index on users, see
 * {@link dropIndexes}), then after adding each index; finally the folder's indexes as before.
 */
async function indexesRun(existing: { key: Record<string, 1 | -1>; name: string; unique?: boolean }[]): Promise<void> {
  const engine = await startEmbeddedEngine({ dataDir: DIR });
  const client = await new MongoClient(engine.uri).connect();
  const users = client.db("app").collection("users");
  const base = settledRss();
  const rows = [
    "| users indexes | RSS MiB | vs no index | this index adds |",
    "| --- | ---: | ---: | ---: |",
    `| none (\`_id\` only) | ${base.toFixed(0)} | 1.00 | – |`,
  ];
  let previous = base;
  for (const [key, unique] of USER_INDEXES) {
    await users.createIndex(key, { unique });
    const rss = settledRss();
    rows.push(
      `| + ${JSON.stringify(key)}${unique ? " unique" : ""} | ${rss.toFixed(0)} | ${(rss / base).toFixed(2)} | +${
        (((rss - previous) / base) * 100).toFixed(1)
      }% |`,
    );
    previous = rss;
  }
  // Leave the folder with the indexes it had (the app creates the same ones at start anyway).
  for (const index of await users.indexes()) if (index.name !== "_id_") await users.dropIndex(index.name!);
  for (const index of existing) await users.createIndex(index.key, { name: index.name, unique: index.unique });
  await client.close();
  await engine.close();
  console.log(rows.join("\n"));
}

if (process.argv.includes("--drop")) await dropIndexes();
else if (process.argv.includes("--indexes")) await indexesRun(JSON.parse(argument("existing")!));
else {
  console.log(`# bench-startup: ${USERS.toLocaleString("en-US")} users in ${DIR}, load ${loadAverage()}`);
  await buildFolder();
  const first = await npmStart();
  const second = await npmStart();
  console.log(
    "\n| npm start | to first answered list (wall) | CPU used by then (npm, sh, tsx, node) | server RSS MiB | whole tree RSS MiB |\n| --- | ---: | ---: | ---: | ---: |",
  );
  console.log(
    `| first start | ${first.seconds.toFixed(1)} s | ${first.cpu.toFixed(1)} s | ${first.rss.toFixed(0)} | ${
      first.total.toFixed(0)
    } |`,
  );
  console.log(
    `| second start | ${second.seconds.toFixed(1)} s | ${second.cpu.toFixed(1)} s | ${second.rss.toFixed(0)} | ${
      second.total.toFixed(0)
    } |`,
  );
  const existing = (await indexRole("--drop")).trim();
  console.log(`\n${await indexRole("--existing", existing)}`);
  console.log(`load ${loadAverage()} after`);
}
