/**
 * Varied list traffic over HTTP against bare node:http, in one run:
 *
 *   npx tsx scripts/bench-traffic.ts [--users 100000] [--seconds 2] [--rounds 6] [--connections 16]
 *
 * Two app processes each start the example app (models/, hooks/, default options: the response
 * cache on) on an in-memory engine holding `--users` users, and serve it with serveNode. The
 * load generator (a process of its own, scripts/lib/varied-load.ts) asks each for pages it has
 * never asked that server for: a random page of a random size (5-50) in a random sort among id,
 * -id, name and -created_at,name, so no response is served from the cache. The second app gets
 * the same mix with every tenth request a write (a new user, which also invalidates the cached
 * counts and pages). A fourth app gets the read mix with `engineThread: false` (the engine in the
 * app's thread, as before it had a thread of its own), to compare the two in one run. A bare
 * node:http process answers the bytes of one of those pages. Servers
 * are loaded in turn, round after round, and each app's rate is reported as the median of its
 * per-round ratio to the bare run of the same round, with the server CPU time per request.
 */
import { cpus } from "node:os";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import type { ChildProcess } from "node:child_process";
import { createApp, defaultErrorHandler } from "../src/mod.ts";
import { loadHooks, loadModels } from "../src/loader.ts";
import { serveNode } from "../src/adapters/node/node-adapter.ts";
import { insertExampleUsers } from "./lib/example-users.ts";
import { fetchRaw, type RawResponse } from "./lib/capture.ts";
import {
  type Contender,
  cpuTimesOf,
  listenNode,
  type Running,
  runServerProcess,
  serverRole,
  startServerProcess,
} from "./lib/processes.ts";
import { flag, loadAverage, median, roundRatios, summaryTable } from "./lib/report.ts";
import { type ListMix, measureVaried, startVariedClient, type VariedOrder } from "./lib/varied-load.ts";

const TARGET_RATIO = 0.04;
const BARE = "bare node:http";
const READS = "app, varied reads";
const WRITES = "app, varied + 10% writes";
/** The read mix again with the engine in the app's thread (engineThread: false), the default before issue 8's (c). */
const READS_IN_THREAD = "app, reads, engine in-thread";
const SAMPLE = "/api/v1/users?page=2&per_page=20&sort=name";

interface ServerSetup {
  users: number;
  engineThread?: boolean;
  captured?: RawResponse;
}

/** The example app, as main.ts builds it, on an in-memory engine holding `count` users. */
async function startApp({ users, engineThread }: ServerSetup): Promise<Running> {
  const dir = (name: string): string => fileURLToPath(new URL(`../${name}`, import.meta.url));
  const app = await createApp({
    models: await loadModels(dir("models")),
    hooks: await loadHooks(dir("hooks")),
    ...(engineThread === false ? { engineThread } : {}),
  });
  app.onError(defaultErrorHandler);
  await insertExampleUsers(app.db, users, { password: "secret" });
  const server = await serveNode(app, { port: 0, host: "127.0.0.1" });
  return { url: server.url, close: async () => (await server.close(), await app.close()) };
}

/** Bare node:http answering the captured page, byte for byte. */
function startBare({ captured }: ServerSetup): Promise<Running> {
  const body = Buffer.from(captured!.body, "base64");
  return listenNode(createServer((_req, res) => {
    res.writeHead(captured!.status, captured!.headers);
    res.end(body);
  }));
}

function orderFor(server: Contender, users: number, seconds: number, connections: number): VariedOrder {
  const mix: ListMix = {
    list: "/api/v1/users",
    records: users,
    sorts: ["id", "-id", "name", "-created_at,name"],
    minPerPage: 5,
    maxPerPage: 50,
  };
  const base = { url: server.url, writePath: "/api/v1/users", seconds, connections };
  if (server.name === BARE) return { ...base, path: SAMPLE, writeEvery: 0 };
  return { ...base, mix, writeEvery: server.name === WRITES ? 10 : 0 };
}

/** Per server: the main thread's CPU µs per request in each round (Linux only). */
const mainThreadCosts = new Map<string, number[]>();

async function measureOne(client: ChildProcess, server: Contender, order: VariedOrder, round: number): Promise<void> {
  const before = await cpuTimesOf(server);
  const result = await measureVaried(client, order);
  const after = await cpuTimesOf(server);
  if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} failed responses`);
  server.rates.push(result.responses / result.seconds);
  server.costs.push((after.cpu - before.cpu) / result.responses);
  const mainThread = after.mainThread === undefined || before.mainThread === undefined
    ? undefined
    : (after.mainThread - before.mainThread) / result.responses;
  if (round > 0 && mainThread !== undefined) {
    mainThreadCosts.set(server.name, [...(mainThreadCosts.get(server.name) ?? []), mainThread]);
  }
  if (round > 0) {
    console.log(
      `round ${round}  ${server.name.padEnd(26)} ${
        Math.round(result.responses / result.seconds).toLocaleString("en-US").padStart(7)
      } req/s  ${((after.cpu - before.cpu) / result.responses).toFixed(1)} µs CPU/req${
        mainThread === undefined ? "" : ` (main thread ${mainThread.toFixed(0)})`
      }`,
    );
  }
}

/**
 * The main thread's CPU per request, per server (median of the rounds): with the engine in a
 * thread of its own, the app's thread is what bounds the rate once a core is free for the rest.
 */
function mainThreadLines(): string[] {
  return [...mainThreadCosts].map(([name, costs]) => {
    const cost = median(costs);
    return `${name}: main thread ${cost.toFixed(0)} µs CPU per request (median; at most ${
      Math.round(1e6 / cost).toLocaleString("en-US")
    } req/s on a core of its own).`;
  });
}

async function runBenchmark(): Promise<void> {
  const users = flag("users", 100_000);
  const seconds = flag("seconds", 2);
  const rounds = flag("rounds", 6);
  const connections = flag("connections", 16);
  const loadBefore = loadAverage();
  const script = fileURLToPath(import.meta.url);
  const servers: Contender[] = [];
  const client = startVariedClient();
  try {
    const reads = await startServerProcess(script, READS, { users } satisfies ServerSetup);
    const captured = await fetchRaw(reads.url + SAMPLE);
    if (captured.status !== 200) throw new Error(`app answered ${captured.status}`);
    servers.push(await startServerProcess(script, BARE, { users, captured } satisfies ServerSetup), reads);
    servers.push(await startServerProcess(script, WRITES, { users } satisfies ServerSetup));
    servers.push(
      await startServerProcess(script, READS_IN_THREAD, { users, engineThread: false } satisfies ServerSetup),
    );
    // Round 0 warms each server up; it is not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const server of servers) {
        await measureOne(client, server, orderFor(server, users, round === 0 ? 1 : seconds, connections), round);
      }
      if (round === 0) { for (const server of servers) (server.rates.length = 0), (server.costs.length = 0); }
    }
    console.log(
      `\nNode ${process.version}, ${
        users.toLocaleString("en-US")
      } users, embedded engine in memory, ${connections} keep-alive connections, ${rounds} rounds × ${seconds} s per server; bare answers the ${
        Buffer.from(captured.body, "base64").length
      }-byte body of GET ${SAMPLE}. Medians:\n`,
    );
    for (const line of summaryTable(servers, { [READS]: TARGET_RATIO })) console.log(line);
    const ratio = median(roundRatios(reads.rates, servers[0]!.rates));
    console.log(
      `\nvaried reads/bare ${ratio.toFixed(3)} per round (median): target ≥ ${TARGET_RATIO} ${
        ratio >= TARGET_RATIO ? "met" : "NOT met"
      }.`,
    );
    for (const line of mainThreadLines()) console.log(line);
    console.log(
      `Load average ${loadBefore} before, ${loadAverage()} after, on ${cpus().length} cores shared with other jobs.`,
    );
  } finally {
    client.kill();
    for (const server of servers) server.process.kill();
  }
}

const CONTENDERS: Record<string, (setup: ServerSetup) => Promise<Running>> = {
  [BARE]: startBare,
  [READS]: startApp,
  [WRITES]: startApp,
  [READS_IN_THREAD]: startApp,
};

const serverName = serverRole();
if (serverName !== undefined) runServerProcess(CONTENDERS[serverName]!);
else await runBenchmark();
