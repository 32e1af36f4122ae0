/**
 * What the request budgets cost: the varied-read mix against this tree and against a baseline
 * commit built before them, in one run:
 *
 *   npx tsx scripts/bench-budgets.ts [--baseline 942e782] [--users 100000] [--seconds 2] [--rounds 12] [--connections 16]
 *
 * The baseline is checked out once into a git worktree under the system's temporary folder
 * (sharing this tree's node_modules). Each server is a process of its own running the example's
 * User model as both trees define it (see exampleUser; default options, an in-memory engine
 * holding `--users` users) under serveNode; a bare node:http process answers the bytes of one page.
 * The load generator (scripts/lib/varied-load.ts) asks each for pages it has never asked that
 * server for (random page and size 5-50, sort id, -id, name or -created_at,name), so every
 * request reaches the engine, its maxTimeMS and its time checks, the parameter check, and the
 * bounded body writer. Servers are loaded in turn, round after round; the verdict is the median
 * of the per-round ratio of this tree to the baseline, with its distribution-free interval.
 *
 * `--instructions [--users 10000] [--warmup 3000] [--requests 1000]` counts instead of timing
 * (needs valgrind): both apps, each under callgrind, answer the same seeded sequence of distinct
 * pages, and the instructions of all their threads (HTTP, engine, compiler, collector) are
 * summed per request. Host noise moves the timed ratio by more than the target's margin; the
 * counts it does not move.
 */
import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fetchRaw, type RawResponse } from "./lib/capture.ts";
import {
  type Contender,
  type Running,
  runServerProcess,
  serverRole,
  startServerProcess,
  type Wrapper,
} from "./lib/processes.ts";
import {
  flag,
  formatInterval,
  intervalVerdict,
  loadAverage,
  median,
  medianInterval,
  roundRatios,
  summaryTable,
} from "./lib/report.ts";
import { type ListMix, startVariedClient, type VariedOrder } from "./lib/varied-load.ts";
import { bareServer, measureVariedOnce } from "./lib/bench-servers.ts";
import { countServers, distinctPaths, reportCounts } from "./lib/count-servers.ts";

/** The commit before the first budget (issue 36): every budget and time limit is missing there. */
const DEFAULT_BASELINE = "942e782";
/** The target: the budgets cost under 3%. */
const TARGET = 0.97;
const BARE = "bare node:http";
const BASELINE = "baseline, varied reads";
const CURRENT = "this tree, varied reads";
const SAMPLE = "/api/v1/users?page=2&per_page=20&sort=name";

interface ServerSetup {
  users: number;
  /** The tree whose app this server runs. */
  root: string;
  captured?: RawResponse;
}

const HERE = fileURLToPath(new URL("../", import.meta.url));

/** Flag `--name value` as text. */
function textFlag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1]!;
}

/** A worktree of `ref` beside this one, made once, sharing this tree's node_modules. */
function baselineTree(ref: string): string {
  const sha = execFileSync("git", ["rev-parse", "--short", ref], { cwd: HERE, encoding: "utf8" }).trim();
  const dir = join(tmpdir(), `mongorest-baseline-${sha}`);
  if (!existsSync(dir)) {
    execFileSync("git", ["worktree", "add", "--detach", dir, sha], { cwd: HERE, stdio: "ignore" });
    symlinkSync(join(HERE, "node_modules"), join(dir, "node_modules"));
  }
  return dir;
}

/**
 * The example's User as both trees define it (fields, hidden password, unique email, the
 * indexes the mix's sorts use), made with each tree's own `defineModel`: the example's model
 * files gained access rules after the baseline, which would compare two different apps.
 */
async function exampleUser(load: (path: string) => Promise<Record<string, never>>) {
  const { defineModel, email } = await load("src/mod.ts") as Record<string, (...args: unknown[]) => unknown>;
  const { optional, string } = await import("superstruct");
  return defineModel({
    name: "User",
    fields: { email: email(), name: string(), surname: string(), password: optional(string()) },
    hidden: ["password"],
    unique: ["email"],
    indexes: [
      { keys: { name: 1, _id: 1 } },
      { keys: { created_at: -1, name: 1, _id: 1 } },
      { keys: { surname: 1, name: 1, _id: 1 } },
    ],
  });
}

/** The example app of the tree at `root`, as its main.ts builds it, on an in-memory engine holding `users` users. */
async function startApp({ users, root }: ServerSetup): Promise<Running> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { createApp, defaultErrorHandler } = await load("src/mod.ts");
  const { serveNode } = await load("src/adapters/node/node-adapter.ts");
  const { insertExampleUsers } = await load("scripts/lib/example-users.ts");
  const app = await createApp({ models: [await exampleUser(load)] });
  app.onError(defaultErrorHandler);
  await insertExampleUsers(app.db, users, { password: "secret" });
  // A tree whose App offers the adapter contract (answer, refuse) is served through it, as
  // main.ts serves it; an older one by its fetch, which its adapter then took its fast path from.
  const server = await serveNode("answer" in app ? app : app.fetch, { port: 0, host: "127.0.0.1" });
  return { url: server.url, close: async () => (await server.close(), await app.close()) };
}

function startBare({ captured }: ServerSetup): Promise<Running> {
  return bareServer(captured!);
}

function orderFor(server: Contender, users: number, seconds: number, connections: number): VariedOrder {
  const mix: ListMix = {
    list: "/api/v1/users",
    records: users,
    sorts: ["id", "-id", "name", "-created_at,name"],
    minPerPage: 5,
    maxPerPage: 50,
  };
  const base = { url: server.url, writePath: "/api/v1/users", seconds, connections, writeEvery: 0 };
  return server.name === BARE ? { ...base, path: SAMPLE } : { ...base, mix };
}

const measureOne = measureVariedOnce;

async function runBenchmark(): Promise<void> {
  const users = flag("users", 100_000);
  const seconds = flag("seconds", 2);
  const rounds = flag("rounds", 12);
  const connections = flag("connections", 16);
  const ref = textFlag("baseline", DEFAULT_BASELINE);
  const loadBefore = loadAverage();
  const script = fileURLToPath(import.meta.url);
  const servers: Contender[] = [];
  const client = startVariedClient();
  try {
    const current = await startServerProcess(script, CURRENT, { users, root: HERE } satisfies ServerSetup);
    const captured = await fetchRaw(current.url + SAMPLE);
    if (captured.status !== 200) throw new Error(`app answered ${captured.status}`);
    servers.push(await startServerProcess(script, BARE, { users, root: HERE, captured } satisfies ServerSetup));
    servers.push(await startServerProcess(script, BASELINE, { users, root: baselineTree(ref) } satisfies ServerSetup));
    servers.push(current);
    // Round 0 warms each server up and is not counted; the two apps swap places every round.
    for (let round = 0; round <= rounds; round++) {
      const order = round % 2 === 0 ? servers : [servers[0]!, servers[2]!, servers[1]!];
      for (const server of order) {
        await measureOne(client, server, orderFor(server, users, round === 0 ? 1 : seconds, connections));
      }
      if (round === 0) { for (const server of servers) (server.rates.length = 0), (server.costs.length = 0); }
    }
    report({ users, rounds, seconds, connections, ref, captured, loadBefore }, servers);
  } finally {
    client.kill();
    for (const server of servers) server.process.kill();
  }
}

function report(
  run: {
    users: number;
    rounds: number;
    seconds: number;
    connections: number;
    ref: string;
    captured: RawResponse;
    loadBefore: string;
  },
  servers: Contender[],
): void {
  const [, baseline, current] = servers as [Contender, Contender, Contender];
  console.log(
    `\nNode ${process.version}, ${
      run.users.toLocaleString("en-US")
    } users, embedded engine in memory, ${run.connections} keep-alive connections, ${run.rounds} rounds × ${run.seconds} s per server; baseline ${run.ref}; bare answers the ${
      Buffer.from(run.captured.body, "base64").length
    }-byte body of GET ${SAMPLE}. Medians:\n`,
  );
  for (const line of summaryTable(servers)) console.log(line);
  const ratios = roundRatios(current.rates, baseline.rates);
  const interval = medianInterval(ratios);
  const costs = roundRatios(current.costs, baseline.costs);
  console.log(
    `\nthis tree / baseline, req/s per round: median ${median(ratios).toFixed(3)} (${
      formatInterval(interval)
    }); target ≥ ${TARGET}: ${intervalVerdict(interval, TARGET)}. CPU per request: ${
      median(costs).toFixed(3)
    } of the baseline's.`,
  );
  console.log(`Load average ${run.loadBefore} before, ${loadAverage()} after, on ${cpus().length} cores.`);
}

const CONTENDERS: Record<string, (setup: ServerSetup) => Promise<Running>> = {
  [BARE]: startBare,
  [BASELINE]: startApp,
  [CURRENT]: startApp,
};

// ---- --instructions ------------------------------------------------------------------------

async function runInstructions(): Promise<void> {
  const users = flag("users", 10_000);
  const warmup = flag("warmup", 3_000);
  const requests = flag("requests", 1_000);
  const connections = flag("connections", 16);
  const seed = flag("seed", 36);
  const ref = textFlag("baseline", DEFAULT_BASELINE);
  const mix = {
    list: "/api/v1/users",
    records: users,
    sorts: ["id", "-id", "name", "-created_at,name"],
    minPerPage: 5,
    maxPerPage: 50,
  };
  const script = fileURLToPath(import.meta.url);
  const startIn = (name: string, root: string) => (wrapper: Wrapper) =>
    startServerProcess(script, name, { users, root } satisfies ServerSetup, wrapper);
  const counts = await countServers(
    "bench-budgets --instructions",
    [{ name: BASELINE, start: startIn(BASELINE, baselineTree(ref)) }, { name: CURRENT, start: startIn(CURRENT, HERE) }],
    distinctPaths(seed, warmup + requests, mix),
    warmup,
    connections,
  );
  console.log(
    `\nNode ${process.version}, ${
      users.toLocaleString("en-US")
    } users, baseline ${ref}, ${requests} distinct pages (seed ${seed}) after ${warmup} per server, ${connections} keep-alive connections, each server under callgrind; all threads:\n`,
  );
  for (const line of reportCounts(counts, BASELINE, CURRENT, TARGET)) console.log(line);
}

const serverName = serverRole();
if (serverName !== undefined) runServerProcess(CONTENDERS[serverName]!);
else if (process.argv.includes("--instructions")) await runInstructions();
else await runBenchmark();
