/**
 * What authentication and a row filter cost: the varied-read mix with a verified JWT and a
 * tenant rule against the same mix without auth, in one run:
 *
 *   npx tsx scripts/bench-auth.ts [--records 100000] [--seconds 2] [--rounds 12] [--connections 16]
 *
 * Two app processes serve the same model (a tenant's notes, indexed for the mix's sorts with
 * and without the tenant first) on an in-memory engine holding `--records` notes of one tenant.
 * One has no `auth`; the other verifies an HS256 bearer token on every request (kept per token
 * until it expires, as the app does) and restricts every read to `tenant = claims.tenant`, so
 * both return the same pages. The load generator (scripts/lib/varied-load.ts) asks each for
 * pages it has never asked that server for (random page and size 5-50, sort id, -id or
 * title), so no response cache answers. A bare node:http process answers the bytes of one
 * page. Servers are loaded in turn, round after round; the verdict is the median of the
 * per-round ratio of the authenticated app to the open one (target ≥ 0.90: at most 10% slower).
 *
 * `--instructions [--records 10000] [--warmup 3000] [--requests 1000]` counts instead of timing
 * (needs valgrind; see scripts/lib/count-servers.ts): both apps, each under callgrind, answer
 * the same seeded sequence of distinct pages; the verdict is open / authenticated instructions.
 */
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { SignJWT } from "jose";
import { string } from "superstruct";
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
import { createApp, defaultErrorHandler, defineModel, type ModelDefinition, principal } from "../src/mod.ts";
import { serveNode } from "../src/adapters/node/node-adapter.ts";

const TARGET = 0.9;
const BARE = "bare node:http";
const OPEN = "no auth, varied reads";
const AUTHED = "JWT + tenant rule, varied reads";
const SAMPLE = "/api/v1/notes?page=2&per_page=20&sort=title";
const SECRET = "the benchmark's HS256 secret, thirty-two characters or more";

interface ServerSetup {
  records: number;
  captured?: RawResponse;
}

function noteModel(withRules: boolean) {
  const definition: ModelDefinition = {
    name: "Note",
    fields: { tenant: string(), title: string() },
    indexes: [{ keys: { title: 1, _id: 1 } }, { keys: { tenant: 1, _id: 1 } }, {
      keys: { tenant: 1, title: 1, _id: 1 },
    }],
  };
  if (withRules) definition.access = { authenticated: { read: { where: { tenant: principal("claims.tenant") } } } };
  return defineModel(definition);
}

async function startApp(setup: ServerSetup, withRules: boolean): Promise<Running> {
  const app = await createApp({
    models: [noteModel(withRules)],
    ...(withRules ? { auth: { jwt: { secret: SECRET } } } : {}),
  });
  app.onError(defaultErrorHandler);
  const notes = app.db.collection("notes");
  const now = new Date();
  for (let from = 1; from <= setup.records; from += 10_000) {
    const batch = [];
    for (let id = from; id < Math.min(from + 10_000, setup.records + 1); id++) {
      batch.push({
        _id: id,
        tenant: "t1",
        title: `note ${(id * 7919) % setup.records}`,
        created_at: now,
        updated_at: now,
      });
    }
    await notes.insertMany(batch as never[]);
  }
  await app.db.collection("_counters").updateOne({ _id: "notes" } as never, { $set: { seq: setup.records } }, {
    upsert: true,
  });
  const server = await serveNode(app, { port: 0, host: "127.0.0.1" });
  return { url: server.url, close: async () => (await server.close(), await app.close()) };
}

function startBare({ captured }: ServerSetup): Promise<Running> {
  return bareServer(captured!);
}

async function token(): Promise<string> {
  return await new SignJWT({ tenant: "t1" }).setProtectedHeader({ alg: "HS256" }).setSubject("1")
    .setExpirationTime("2h").sign(new TextEncoder().encode(SECRET));
}

function mixOf(records: number): ListMix {
  return { list: "/api/v1/notes", records, sorts: ["id", "-id", "title"], minPerPage: 5, maxPerPage: 50 };
}

function orderFor(server: Contender, records: number, seconds: number, connections: number, bearer: string) {
  const mix = mixOf(records);
  const base = { url: server.url, writePath: "/api/v1/notes", seconds, connections, writeEvery: 0 };
  if (server.name === BARE) return { ...base, path: SAMPLE } satisfies VariedOrder;
  const headers = server.name === AUTHED ? [`Authorization: Bearer ${bearer}`] : [];
  return { ...base, mix, headers } satisfies VariedOrder;
}

const measureOne = measureVariedOnce;

async function runBenchmark(): Promise<void> {
  const records = flag("records", 100_000);
  const seconds = flag("seconds", 2);
  const rounds = flag("rounds", 12);
  const connections = flag("connections", 16);
  const loadBefore = loadAverage();
  const script = fileURLToPath(import.meta.url);
  const bearer = await token();
  const servers: Contender[] = [];
  const client = startVariedClient();
  try {
    const open = await startServerProcess(script, OPEN, { records } satisfies ServerSetup);
    const captured = await fetchRaw(open.url + SAMPLE);
    if (captured.status !== 200) throw new Error(`app answered ${captured.status}`);
    servers.push(await startServerProcess(script, BARE, { records, captured } satisfies ServerSetup));
    servers.push(open);
    servers.push(await startServerProcess(script, AUTHED, { records } satisfies ServerSetup));
    for (let round = 0; round <= rounds; round++) {
      const order = round % 2 === 0 ? servers : [servers[0]!, servers[2]!, servers[1]!];
      for (const server of order) {
        await measureOne(client, server, orderFor(server, records, round === 0 ? 1 : seconds, connections, bearer));
      }
      if (round === 0) { for (const server of servers) (server.rates.length = 0), (server.costs.length = 0); }
    }
    const [, baseline, current] = servers as [Contender, Contender, Contender];
    console.log(
      `\nNode ${process.version}, ${
        records.toLocaleString("en-US")
      } notes of one tenant, embedded engine in memory, ${connections} keep-alive connections, ${rounds} rounds × ${seconds} s per server; bare answers the ${
        Buffer.from(captured.body, "base64").length
      }-byte body of GET ${SAMPLE}. Medians:\n`,
    );
    for (const line of summaryTable(servers)) console.log(line);
    const ratios = roundRatios(current.rates, baseline.rates);
    const interval = medianInterval(ratios);
    console.log(
      `\nJWT + rule / no auth, req/s per round: median ${median(ratios).toFixed(3)} (${
        formatInterval(interval)
      }); target ≥ ${TARGET}: ${intervalVerdict(interval, TARGET)}. CPU per request: ${
        median(roundRatios(current.costs, baseline.costs)).toFixed(3)
      } of the open app's.`,
    );
    console.log(`Load average ${loadBefore} before, ${loadAverage()} after, on ${cpus().length} cores.`);
  } finally {
    client.kill();
    for (const server of servers) server.process.kill();
  }
}

async function runInstructions(): Promise<void> {
  const records = flag("records", 10_000);
  const warmup = flag("warmup", 3_000);
  const requests = flag("requests", 1_000);
  const connections = flag("connections", 16);
  const seed = flag("seed", 38);
  const script = fileURLToPath(import.meta.url);
  const startAs = (name: string) => (wrapper: Wrapper) =>
    startServerProcess(script, name, { records } satisfies ServerSetup, wrapper);
  const authorization = `Bearer ${await token()}`;
  const counts = await countServers(
    "bench-auth --instructions",
    [{ name: OPEN, start: startAs(OPEN) }, { name: AUTHED, start: startAs(AUTHED), headers: { authorization } }],
    distinctPaths(seed, warmup + requests, mixOf(records)),
    warmup,
    connections,
  );
  console.log(
    `\nNode ${process.version}, ${
      records.toLocaleString("en-US")
    } notes of one tenant, ${requests} distinct pages (seed ${seed}) after ${warmup} per server, ${connections} keep-alive connections, each server under callgrind; all threads:\n`,
  );
  for (const line of reportCounts(counts, OPEN, AUTHED, TARGET)) console.log(line);
}

const CONTENDERS: Record<string, (setup: ServerSetup) => Promise<Running>> = {
  [BARE]: startBare,
  [OPEN]: (setup) => startApp(setup, false),
  [AUTHED]: (setup) => startApp(setup, true),
};

const serverName = serverRole();
if (serverName !== undefined) runServerProcess(CONTENDERS[serverName]!);
else if (process.argv.includes("--instructions")) await runInstructions();
else await runBenchmark();
