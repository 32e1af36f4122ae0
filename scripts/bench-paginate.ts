/**
 * The list's hot path against bare node:http, in one run:
 *
 *   npx tsx scripts/bench-paginate.ts [--seconds 1.5] [--rounds 8] [--sessions 1] [--connections 16] [--users 10000] [--floor]
 *   npx tsx scripts/bench-paginate.ts --instructions [--warmup 12000] [--requests 3000] [--users 10000]
 *
 * The app process starts the example app (models/, hooks/) on an in-memory embedded engine,
 * seeds 10,000 users through the driver in the shape the framework stores them, and serves
 * it with serveNode. `GET /api/v1/users?page=2` is fetched once to capture its exact status,
 * headers and body; a bare node:http server in a process of its own then answers those same
 * bytes, and the two are checked to answer identically. Then the load generator (another
 * process) loads bare and app in turn, on loopback, and the median per-round ratio app/bare
 * is reported against the product's target. `--floor` adds two reference servers that answer
 * the same bytes after only the driver's work: the same find and count (no framework), two
 * pings and one ping (the bare cost of round trips to the engine). The plumbing is shared with
 * bench-http.ts (scripts/lib/).
 *
 * The service row ("same + logs, CORS, rate limit") is the app configured as a production
 * service would be: one JSON log line per request (the request log's batches, written to
 * /dev/null so the benchmark's output stays readable, yet every line is formatted and written), CORS for the
 * origin every request of the run carries, and an app-wide rate limit high enough never to
 * refuse. Its ratio to bare is compared with the default app's (target ≥ 0.90 of it) and with
 * bare's own (target ≥ 0.71: within 10% of the 0.79 the cached app had when issue 11 was filed).
 * It answers seven headers more than the default app (CORS, RateLimit-*, Vary), so a second bare
 * server answers the service row's own bytes ("bare node:http, service bytes"): both targets are
 * also printed against it, the same-bytes comparison the default row gets.
 *
 * `--instructions` counts instead of timing (needs valgrind): see {@link runInstructions}.
 */
import { mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { type App, type AppOptions, configureLogging, createApp, defaultErrorHandler } from "../src/mod.ts";
import { type Reply, reply } from "../src/http/reply.ts";
import { loadHooks, loadModels } from "../src/loader.ts";
import { type Served, serveNode } from "../src/adapters/node/node-adapter.ts";
import { syncCounter } from "../src/store/ids.ts";
import {
  callgrindArgs,
  callgrindControl,
  type Count,
  mainThreadDump,
  perRequest,
  requireValgrind,
} from "./lib/callgrind.ts";
import { exited, sendPaths } from "./lib/count-servers.ts";
import { fetchRaw, type RawResponse, sameResponse } from "./lib/capture.ts";
import { startLoadClient } from "./lib/load.ts";
import {
  type Contender,
  listenNode,
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
import { runRounds } from "./lib/rounds.ts";
import { userDocs } from "./lib/seed-users.ts";

const TARGET_RATIO = 0.3;
const PATH = "/api/v1/users?page=2";
const BARE = "bare node:http";
const APP = "serveNode + createApp";
const APP_UNCACHED = "same, responseCache: false";
const APP_SERVICE = "same + logs, CORS, rate limit";
const BARE_SERVICE = "bare node:http, service bytes";
/** The service row must keep this share of the default app's ratio to bare. */
const SERVICE_TARGET = 0.9;
/**
 * Issue 11's cost point, absolute: the service row within 10% of the cached path's ratio to
 * bare when the issue was filed, 0.79 (docs/benchmarks.md, "Paginate hot path", "Current
 * figures": 37.9 µs of server CPU per request against bare's 29.3), so ≥ 0.79 − 10% ≈ 0.71.
 */
const SERVICE_TARGET_OF_BARE = 0.71;
/** Every request of the run comes from this browser origin (only the service row has CORS for it). */
const ORIGIN = "http://app.bench.example";
const FIND = "serveNode + find & count";
const PING = "serveNode + 2 pings";
const PING_ONE = "serveNode + 1 ping";

/** What a server process is started with: the users to seed, and the response to answer. */
interface ServerSetup {
  users: number;
  captured?: RawResponse;
}

// ---- servers -------------------------------------------------------------------------------

/** The example app, as main.ts builds it, on an in-memory engine holding `count` users. */
async function seededApp(count: number, responseCache = true, service: Partial<AppOptions> = {}): Promise<App> {
  const dir = (name: string): string => fileURLToPath(new URL(`../${name}`, import.meta.url));
  // One cursor secret for every server process, so their cursor links (and ETags) agree.
  const app = await createApp({
    models: await loadModels(dir("models")),
    hooks: await loadHooks(dir("hooks")),
    responseCache,
    cursorSecret: "bench-paginate-cursor-secret",
    ...service,
  });
  app.onError(defaultErrorHandler);
  const collection = app.db.collection("users");
  for (let from = 1; from <= count; from += 1000) {
    await collection.insertMany(userDocs(from, Math.min(count, from + 999)));
  }
  await syncCounter(app.db, "users"); // as a restart would: later inserts continue after the seeded ids
  return app;
}

async function serve(app: App, served: Served): Promise<Running> {
  const server = await serveNode(served, { port: 0, host: "127.0.0.1" });
  return { url: server.url, close: async () => (await server.close(), await app.close()) };
}

/** The app with its response cache switched off: every request goes through the driver. */
async function startUncachedApp({ users }: ServerSetup): Promise<Running> {
  const app = await seededApp(users, false);
  return await serve(app, app);
}

/** The app as a service: JSON request logs, CORS and a rate limit that never refuses. */
async function startServiceApp({ users }: ServerSetup): Promise<Running> {
  const devNull = openSync("/dev/null", "w");
  // As main.ts logs in production (JSON lines, batched), but to /dev/null instead of stdout.
  await configureLogging({ level: "info", json: true, write: (lines) => void writeSync(devNull, lines) });
  const app = await seededApp(users, true, {
    cors: { origin: [ORIGIN] },
    rateLimit: { windowMs: 60_000, max: 1_000_000_000 },
  });
  return await serve(app, app);
}

/** The app under test. */
async function startApp({ users }: ServerSetup): Promise<Running> {
  const app = await seededApp(users);
  return await serve(app, app);
}

/** The captured response as the framework hands it to serveNode (which adds the length). */
function capturedResponse(captured: RawResponse): () => Reply {
  const body = Buffer.from(captured.body, "base64").toString("utf8");
  const headers = Object.fromEntries(
    Object.entries(captured.headers).filter(([name]) => name.toLowerCase() !== "content-length"),
  );
  return () => reply(body, captured.status, headers); // serveNode copies it
}

/** Reference (`--floor`): the page's find and count through the driver, then the captured bytes. */
async function startFind({ users, captured }: ServerSetup): Promise<Running> {
  const app = await seededApp(users);
  const respond = capturedResponse(captured!);
  const collection = app.db.collection("users");
  const options = { sort: {}, skip: 10, limit: 10, projection: { password: 0 } };
  return await serve(app, {
    ...app,
    answer: async () => {
      await Promise.all([collection.find({}, options).toArray(), collection.countDocuments({})]);
      return respond();
    },
  });
}

/** Reference (`--floor`): `count` concurrent pings through the driver, then the captured bytes. */
async function startPings({ users, captured }: ServerSetup, count: number): Promise<Running> {
  const app = await seededApp(users);
  const respond = capturedResponse(captured!);
  const pings = Array.from({ length: count }, () => ({ ping: 1 }));
  return await serve(app, {
    ...app,
    answer: async () => {
      await Promise.all(pings.map((ping) => app.db.command(ping)));
      return respond();
    },
  });
}

/** Bare node:http answering the captured response, byte for byte. */
function startBare({ captured }: ServerSetup): Promise<Running> {
  const body = Buffer.from(captured!.body, "base64");
  return listenNode(createServer((_req, res) => {
    res.writeHead(captured!.status, captured!.headers);
    res.end(body);
  }));
}

// ---- orchestration ------------------------------------------------------------------------

function setupFromFlags() {
  return {
    path: PATH,
    seconds: flag("seconds", 1.5),
    rounds: flag("rounds", 8),
    connections: flag("connections", 16),
    users: flag("users", 10_000),
    sessions: flag("sessions", 1),
  };
}

/** Kills everything if a run outlives its budget (a hung server must not hang the caller). */
function watchdog(setup: ReturnType<typeof setupFromFlags>, children: () => Contender[]): NodeJS.Timeout {
  const budget = 30 * setup.sessions + 5 * (setup.sessions + setup.rounds * (setup.seconds + 0.5));
  const timer = setTimeout(() => {
    console.error(`bench-paginate: no result after ${budget} s, giving up`);
    for (const child of children()) child.process.kill();
    process.exit(1);
  }, budget * 1000);
  return timer.unref();
}

/**
 * Starts the app and captures its page, then the servers that answer those bytes (bare, and
 * with `--floor` the references), checking each answers exactly what the app does.
 */
async function startServers(
  script: string,
  users: number,
  servers: Contender[],
  wrapperFor: (name: string) => Wrapper | undefined = () => undefined,
): Promise<RawResponse> {
  const start = (name: string, setup: ServerSetup) => startServerProcess(script, name, setup, wrapperFor(name));
  const app = await start(APP, { users });
  servers.push(app);
  const captured = await fetchRaw(app.url + PATH);
  if (captured.status !== 200) {
    throw new Error(`app answered ${captured.status}: ${Buffer.from(captured.body, "base64")}`);
  }
  // The uncached app is always measured too: the cache's figure alone would hide the database path.
  const others = process.argv.includes("--floor") ? [BARE, APP_UNCACHED, FIND, PING, PING_ONE] : [BARE, APP_UNCACHED];
  for (const name of others) {
    const server = await start(name, { users, captured });
    servers.splice(name === BARE ? 0 : servers.length, 0, server);
    const difference = sameResponse(captured, await fetchRaw(server.url + PATH));
    if (difference) throw new Error(`${name} and app answer differently: ${difference}`);
  }
  // The service row answers the same body with more headers (CORS, RateLimit-*): check it does.
  const service = await start(APP_SERVICE, { users });
  servers.splice(2, 0, service);
  const served = await fetchRaw(service.url + PATH, ORIGIN);
  const names = Object.keys(served.headers).map((name) => name.toLowerCase());
  if (
    served.body !== captured.body || !names.includes("access-control-allow-origin") ||
    !names.includes("ratelimit-remaining")
  ) {
    throw new Error(`${APP_SERVICE} does not answer as configured: headers ${names.join(", ")}`);
  }
  // Bare node:http answering the service row's own bytes: the cost of its extra headers on the wire.
  const bareService = await start(BARE_SERVICE, { users, captured: served });
  servers.splice(3, 0, bareService);
  const difference = sameResponse(served, await fetchRaw(bareService.url + PATH, ORIGIN));
  if (difference) throw new Error(`${BARE_SERVICE} and ${APP_SERVICE} answer differently: ${difference}`);
  return captured;
}

/**
 * `--sessions N` splits the rounds over N sets of server processes, each started fresh: two
 * processes of the same server can differ by several percent for their whole life (where their
 * code and heap landed), which alternating rounds inside one process cannot average out.
 */
async function runBenchmark(): Promise<void> {
  const setup = setupFromFlags();
  const loadBefore = loadAverage();
  let servers: Contender[] = [];
  const timer = watchdog(setup, () => servers);
  const pooled = new Map<string, Measured>();
  let captured: RawResponse | undefined;
  for (let session = 1; session <= setup.sessions; session++) {
    const rounds = Math.ceil(setup.rounds / setup.sessions);
    if (setup.sessions > 1) {
      console.log(`session ${session} of ${setup.sessions}: fresh server processes, ${rounds} rounds`);
    }
    servers = [];
    captured = await runSession(setup, rounds, servers);
    for (const server of servers) {
      const entry = pooled.get(server.name) ?? { name: server.name, rates: [], costs: [] };
      entry.rates.push(...server.rates);
      entry.costs.push(...server.costs);
      pooled.set(server.name, entry);
    }
  }
  clearTimeout(timer);
  report([...pooled.values()], setup, captured!, loadBefore);
}

/** A server's measurements, pooled over sessions. */
type Measured = Pick<Contender, "name" | "rates" | "costs">;

/** One set of server processes: started, checked, measured for `rounds` rounds, stopped. */
async function runSession(
  setup: ReturnType<typeof setupFromFlags>,
  rounds: number,
  servers: Contender[],
): Promise<RawResponse> {
  const client = startLoadClient();
  try {
    const captured = await startServers(fileURLToPath(import.meta.url), setup.users, servers);
    console.log(
      `GET ${PATH}: ${Buffer.from(captured.body, "base64").length}-byte body, headers ${
        Object.keys(captured.headers).join(", ")
      }; bare answers the same bytes`,
    );
    await runRounds(client, servers, { ...setup, rounds, origin: ORIGIN });
    return captured;
  } finally {
    client.kill();
    for (const server of servers) server.process.kill();
  }
}

function report(
  servers: Measured[],
  setup: ReturnType<typeof setupFromFlags>,
  captured: RawResponse,
  loadBefore: string,
): void {
  const bytes = Buffer.from(captured.body, "base64").length;
  console.log(
    `\nNode ${process.version}, GET ${PATH} (page 2 of ${
      setup.users.toLocaleString("en-US")
    } users, ${bytes}-byte body), embedded engine in memory, ${setup.connections} keep-alive connections, ${
      servers[0]!.rates.length
    } rounds × ${setup.seconds} s per server${
      setup.sessions > 1 ? ` over ${setup.sessions} sets of fresh server processes` : ""
    }, medians:\n`,
  );
  for (const line of summaryTable(servers, { [APP]: TARGET_RATIO })) console.log(line);
  const ratio = median(roundRatios(servers[1]!.rates, servers[0]!.rates));
  console.log(
    `\napp/bare ${ratio.toFixed(2)} per round (median): target ≥ ${TARGET_RATIO.toFixed(2)} ${
      ratio >= TARGET_RATIO ? "met" : "NOT met"
    }.`,
  );
  const [bare, app] = [servers[0]!, servers[1]!];
  const service = servers.find((server) => server.name === APP_SERVICE)!;
  const bareService = servers.find((server) => server.name === BARE_SERVICE)!;
  console.log(`Issue 11's cost point, per-round medians with their distribution-free intervals:`);
  console.log(costLine("service/bare", roundRatios(service.rates, bare.rates), SERVICE_TARGET_OF_BARE));
  console.log(costLine("service/app (share of app/bare)", roundRatios(service.rates, app.rates), SERVICE_TARGET));
  const sameBytes = roundRatios(service.rates, bareService.rates);
  console.log(costLine("service/(bare, service bytes)", sameBytes, SERVICE_TARGET_OF_BARE));
  const listed = (ratios: number[]): string => ratios.map((value) => value.toFixed(3)).join(" ");
  console.log(`Per round (to pool runs): service/bare ${listed(roundRatios(service.rates, bare.rates))}`);
  console.log(`Per round (to pool runs): service/app ${listed(roundRatios(service.rates, app.rates))}`);
  console.log(
    `(The ${SERVICE_TARGET_OF_BARE} target is the 0.79 the cached app had when issue 11 was filed, less 10%; a verdict is "undecided" while the interval straddles it.)`,
  );
  console.log(
    `Load average ${loadBefore} before, ${loadAverage()} after, on ${cpus().length} cores shared with other jobs: req/s swing with it; the per-round ratio and CPU/req are what to compare.`,
  );
}

/** One cost-point line: the median of per-round ratios, its interval and the target's verdict. */
function costLine(label: string, ratios: readonly number[], target: number): string {
  const interval = medianInterval(ratios);
  return `- ${label} ${median(ratios).toFixed(2)} (${
    formatInterval(interval)
  } over ${ratios.length} rounds): target ≥ ${target.toFixed(2)} ${intervalVerdict(interval, target)}.`;
}

/** Servers by name, each started in its own process with `--server NAME`. */
const CONTENDERS: Record<string, (setup: ServerSetup) => Promise<Running>> = {
  [BARE]: startBare,
  [BARE_SERVICE]: startBare,
  [APP]: startApp,
  [APP_UNCACHED]: startUncachedApp,
  [APP_SERVICE]: startServiceApp,
  [FIND]: startFind,
  [PING]: (setup) => startPings(setup, 2),
  [PING_ONE]: (setup) => startPings(setup, 1),
};

// ---- --instructions ------------------------------------------------------------------------

/** The servers `--instructions` counts, in the order they are reported. */
const COUNTED = [BARE, APP, APP_SERVICE, BARE_SERVICE];

/** Exactly `count` requests for the page, `connections` at a time, each read to its end. */
function sendRequests(url: string, count: number, connections: number): Promise<void> {
  return sendPaths(url, Array.from({ length: count }, () => PATH), connections, { origin: ORIGIN });
}

/** A server's main-thread instructions per request over `requests` requests after `warmup`. */
async function countServer(server: Contender, dir: string, order: InstructionOrder): Promise<Count> {
  await sendRequests(server.url, order.warmup, order.connections);
  callgrindControl(server.process.pid!, "-i", "on");
  await sendRequests(server.url, order.requests, order.connections);
  callgrindControl(server.process.pid!, "-i", "off");
  callgrindControl(server.process.pid!, "-d");
  const dump = mainThreadDump(dir);
  if (dump === undefined) throw new Error(`callgrind wrote no dump for ${server.name}`);
  return perRequest(dump, order.requests);
}

interface InstructionOrder {
  warmup: number;
  requests: number;
  connections: number;
}

/**
 * `--instructions`: the same servers, each under callgrind, counted instead of timed. Host noise
 * moves bench-paginate's times by more than its targets' margins; instruction counts it does not
 * move. A ratio here is bare's instructions over the server's: what the throughput ratio would be
 * if time followed instructions (it does not quite: JavaScript runs fewer instructions a cycle
 * than node's C++ and the kernel's socket work is not counted, so the timed ratios come out lower).
 */
async function runInstructions(): Promise<void> {
  requireValgrind("bench-paginate --instructions");
  const order = {
    warmup: flag("warmup", 12_000),
    requests: flag("requests", 3_000),
    connections: flag("connections", 16),
  };
  const users = flag("users", 10_000);
  const root = mkdtempSync(join(tmpdir(), "bench-paginate-"));
  const dirs = new Map(COUNTED.map((name, i) => [name, join(root, String(i))]));
  const wrapperFor = (name: string): Wrapper | undefined => {
    const dir = dirs.get(name);
    if (dir === undefined) return undefined;
    mkdirSync(dir);
    return { execPath: "valgrind", args: callgrindArgs(join(dir, "callgrind.out"), false) };
  };
  const servers: Contender[] = [];
  const counts = new Map<string, Count>();
  try {
    await startServers(fileURLToPath(import.meta.url), users, servers, wrapperFor);
    for (const name of COUNTED) {
      counts.set(name, await countServer(servers.find((server) => server.name === name)!, dirs.get(name)!, order));
    }
  } finally {
    // Each valgrind writes its last dump as it exits: the folder goes once they all have.
    await Promise.all(servers.map(exited));
    rmSync(root, { recursive: true, force: true });
  }
  reportInstructions(counts, order, users);
}

function reportInstructions(counts: Map<string, Count>, order: InstructionOrder, users: number): void {
  console.log(
    `\nNode ${process.version}, GET ${PATH} (page 2 of ${
      users.toLocaleString("en-US")
    } users), ${order.requests} requests after ${order.warmup} per server, ${order.connections} keep-alive connections, each server under callgrind; main thread, per request:\n`,
  );
  const bare = counts.get(BARE)!.total;
  const ratioOf = (name: string): number => bare / counts.get(name)!.total;
  console.log("| server | instructions | outside the collector | bare/server |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, { total, outsideCollector }] of counts) {
    const cells = [total, outsideCollector].map((value) => Math.round(value).toLocaleString("en-US"));
    console.log(`| ${name} | ${cells[0]} | ${cells[1]} | ${ratioOf(name).toFixed(2)} |`);
  }
  const app = ratioOf(APP);
  const service = ratioOf(APP_SERVICE);
  const sameBytes = counts.get(BARE_SERVICE)!.total / counts.get(APP_SERVICE)!.total;
  const verdict = (value: number, target: number) =>
    `target ≥ ${target.toFixed(2)} ${value >= target ? "met" : "NOT met"}`;
  console.log(`\napp/bare ${app.toFixed(2)} in instructions: ${verdict(app, TARGET_RATIO)}.`);
  console.log(
    `service/bare ${service.toFixed(2)}: ${verdict(service, SERVICE_TARGET_OF_BARE)}; ${
      (service / app).toFixed(2)
    } of app/bare: ${verdict(service / app, SERVICE_TARGET)}.`,
  );
  console.log(
    `service/(bare, service bytes) ${sameBytes.toFixed(2)}: ${verdict(sameBytes, SERVICE_TARGET_OF_BARE)}; ${
      (sameBytes / app).toFixed(2)
    } of app/bare: ${verdict(sameBytes / app, SERVICE_TARGET)}.`,
  );
}

const serverName = serverRole();
if (serverName !== undefined) runServerProcess(CONTENDERS[serverName]!);
else if (process.argv.includes("--instructions")) await runInstructions();
else await runBenchmark();
