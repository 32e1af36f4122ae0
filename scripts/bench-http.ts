/**
 * Throughput of the Node adapter against bare node:http, in one run:
 *
 *   npx tsx scripts/bench-http.ts [--seconds 1.5] [--rounds 8] [--connections 32] [--all]
 *
 * Both servers answer the same 1 KB JSON body with the same headers, on loopback. Each server
 * runs in a process of its own, as it would in production (sharing one V8 heap and its
 * inline caches would tax whichever runs second), and so does the load generator: keep-alive
 * connections, one request in flight on each, as wrk and autocannon do by default. Servers
 * are this same file started with `--server NAME`; the plumbing, the load generator and the
 * summary are shared with bench-paginate.ts (scripts/lib/). Servers are loaded in turn
 * (bare, adapter, bare, adapter...) so that drift on a shared machine hits both alike. The
 * ratio is taken within each round (against the bare run just before), and the median of
 * those is reported, next to the server's CPU time per request, which stolen time on a busy
 * machine distorts less. The adapter serves a reply handler, as it serves an app (`answer`
 * returning replies, see src/http/reply.ts). `--all` adds the adapter given a plain fetch
 * handler's real `new Response()` objects, and a naive conversion.
 */
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { reply } from "../src/http/reply.ts";
import { serveNode } from "../src/adapters/node/node-adapter.ts";
import { startLoadClient } from "./lib/load.ts";
import { listenNode, type Running, runServerProcess, serverRole, startServerProcess } from "./lib/processes.ts";
import { flag, summaryTable } from "./lib/report.ts";
import { runRounds } from "./lib/rounds.ts";

const TARGET_RATIO = 0.85;

/** A JSON document of exactly 1024 bytes. */
function oneKilobyteJson(): string {
  const skeleton = JSON.stringify({ items: [], note: "" });
  return JSON.stringify({ items: [], note: "x".repeat(1024 - skeleton.length) });
}

const BODY = oneKilobyteJson();
const BODY_LENGTH = Buffer.byteLength(BODY);

// ---- servers -------------------------------------------------------------------------------

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "content-language": "en" };

/** Routes on method, URL and a header, as the framework would: whether to answer the 1 KB body. */
function isServed(request: Request): boolean {
  return request.method === "GET" && request.url.endsWith("/") && request.headers.get("accept") !== "text/html";
}

/** A fetch handler answering the 1 KB body with a real Response. */
function responding(request: Request): Response {
  if (!isServed(request)) return new Response(null, { status: 404 });
  return new Response(BODY, { status: 200, headers: { ...JSON_HEADERS } });
}

/** Bare node:http: the ceiling the adapter is measured against. */
function startBare(): Promise<Running> {
  const headers = { ...JSON_HEADERS, "content-length": BODY_LENGTH };
  return listenNode(createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(BODY);
  }));
}

/** The adapter serving what the framework's core makes: replies, through an app's contract. */
function startAdapter(): Promise<Running> {
  const answering = {
    answer: (request: Request) => isServed(request) ? reply(BODY, 200, { ...JSON_HEADERS }) : reply(null, 404, {}),
    refuse: () => reply(null, 413, {}),
  };
  return serveNode(answering, { port: 0, host: "127.0.0.1" });
}

/** The adapter given a fetch handler's real `new Response()`: what replies save (`--all`). */
function startAdapterRealResponse(): Promise<Running> {
  return serveNode(responding, { port: 0, host: "127.0.0.1" });
}

/** The naive conversion: a full Request in, a full Response read back as a stream (`--all`). */
function startNaive(): Promise<Running> {
  const fetch = responding;
  return listenNode(createServer(async (req, res) => {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const response = fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    const reader = response.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) res.write(next.value);
    res.end();
  }));
}

// ---- orchestration ------------------------------------------------------------------------

/** Servers by name, each started in its own process with `--server NAME`. */
const CONTENDERS: Record<string, () => Promise<Running>> = {
  "bare node:http": startBare,
  "serveNode + replies": startAdapter,
  "serveNode + new Response()": startAdapterRealResponse,
  "naive Request/Response": startNaive,
};

async function runBenchmark(): Promise<void> {
  const setup = {
    path: "/",
    seconds: flag("seconds", 1.5),
    rounds: flag("rounds", 8),
    connections: flag("connections", 32),
  };
  const names = Object.keys(CONTENDERS).slice(0, process.argv.includes("--all") ? undefined : 2);
  const script = fileURLToPath(import.meta.url);
  const servers = await Promise.all(names.map((name) => startServerProcess(script, name)));
  const client = startLoadClient();
  try {
    await runRounds(client, servers, setup);
  } finally {
    client.kill();
    for (const server of servers) server.process.kill();
  }
  console.log(
    `\nNode ${process.version}, 1 KB JSON, ${setup.connections} keep-alive connections, ${setup.rounds} rounds × ${setup.seconds} s per server, medians:\n`,
  );
  for (const line of summaryTable(servers, { "serveNode + replies": TARGET_RATIO })) console.log(line);
}

const serverName = serverRole();
if (serverName !== undefined) runServerProcess(() => CONTENDERS[serverName]!());
else await runBenchmark();
