/**
 * Throughput of the Node adapter against bare node:http, in one run:
 *
 *   npx tsx scripts/bench-http.ts [--seconds 1.5] [--rounds 8] [--connections 32] [--all]
 *
 * Both servers answer the same 1 KB JSON body with the same headers, on loopback. Each server
 * runs in a process of its own, as it would in production (sharing one V8 heap and its
 * inline caches would tax whichever runs second), and so does the load generator: keep-alive
 * connections, one request in flight on each, as wrk and autocannon do by default. All are
 * this same file, started with `--server NAME` or `--client`. Servers are loaded in turn
 * (bare, adapter, bare, adapter...) so that drift on a shared machine hits both alike. The
 * ratio is taken within each round (against the bare run just before), and the median of
 * those is reported, next to the server's CPU time per request, which stolen time on a busy
 * machine distorts less. `--all` adds the adapter given real `new Response()` objects, and a
 * naive conversion.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createResponse } from "../src/http/fast-response.ts";
import { serveNode } from "../src/http/node-adapter.ts";

const TARGET_RATIO = 0.85;

/** A JSON document of exactly 1024 bytes. */
function oneKilobyteJson(): string {
  const skeleton = JSON.stringify({ items: [], note: "" });
  return JSON.stringify({ items: [], note: "x".repeat(1024 - skeleton.length) });
}

const BODY = oneKilobyteJson();
const BODY_LENGTH = Buffer.byteLength(BODY);

/** Command-line flag `--name value` as a positive number, or the default. */
function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? NaN : Number(process.argv[at + 1]);
  return value > 0 ? value : fallback;
}

// ---- servers -------------------------------------------------------------------------------

/** A server under test, listening on loopback. */
interface Running {
  url: string;
  close(): Promise<void>;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "content-language": "en" };

/** Routes on method, URL and a header, as the framework would, then answers the 1 KB body. */
function handler(respond: (body: string) => Response): (request: Request) => Response {
  return (request) => {
    if (request.method !== "GET" || !request.url.endsWith("/") || request.headers.get("accept") === "text/html") {
      return createResponse(null, 404, {});
    }
    return respond(BODY);
  };
}

async function listenNode(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Bare node:http: the ceiling the adapter is measured against. */
function startBare(): Promise<Running> {
  const headers = { ...JSON_HEADERS, "content-length": BODY_LENGTH };
  return listenNode(createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(BODY);
  }));
}

/** The adapter serving what the framework's core makes: responses from createResponse. */
function startAdapter(): Promise<Running> {
  return serveNode(handler((body) => createResponse(body, 200, { ...JSON_HEADERS })), { port: 0, host: "127.0.0.1" });
}

/** The adapter given a real `new Response()`: what createResponse saves (`--all`). */
function startAdapterRealResponse(): Promise<Running> {
  return serveNode(handler((body) => new Response(body, { status: 200, headers: { ...JSON_HEADERS } })), { port: 0, host: "127.0.0.1" });
}

/** The naive conversion: a full Request in, a full Response read back as a stream (`--all`). */
function startNaive(): Promise<Running> {
  const fetch = handler((body) => new Response(body, { status: 200, headers: { ...JSON_HEADERS } }));
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

// ---- load generator (child process) --------------------------------------------------------

interface LoadOrder {
  url: string;
  seconds: number;
  connections: number;
}

interface LoadResult {
  responses: number;
  errors: number;
  seconds: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const LENGTH_FIELD = /content-length: *(\d+)/i;

const CHUNKED_END = Buffer.from("\r\n0\r\n\r\n");

/**
 * Bytes the response at the start of `pending` takes (head ends at `end`), or -1 if not all
 * there yet. Content-Length framing, or chunked framing for streamed responses (found by its
 * terminating empty chunk: good enough for the JSON bodies measured here).
 */
function responseLength(head: string, pending: Buffer, end: number): number {
  const length = LENGTH_FIELD.exec(head)?.[1];
  if (length !== undefined) return end + 4 + Number(length);
  const last = pending.indexOf(CHUNKED_END, end + 2);
  return last === -1 ? -1 : last + CHUNKED_END.length;
}

/**
 * Keeps one request in flight on each of `connections` keep-alive sockets for `seconds` and
 * counts complete 200 responses. Parses only what framing needs, so it stays well ahead of
 * the server it loads.
 */
function load({ url, seconds, connections }: LoadOrder): Promise<LoadResult> {
  const { hostname, port } = new URL(url);
  const request = Buffer.from(`GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: application/json\r\n\r\n`);
  let responses = 0;
  let errors = 0;
  let running = true;
  const sockets = Array.from({ length: connections }, () => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let pending: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf(HEADER_END);
        if (end === -1) return;
        const head = pending.toString("latin1", 0, end);
        const total = responseLength(head, pending, end);
        if (total === -1 || pending.length < total) return;
        if (head.startsWith("HTTP/1.1 200")) responses++;
        else errors++;
        pending = pending.subarray(total);
        if (running) socket.write(request);
      }
    });
    socket.on("error", () => errors++);
    return socket;
  });
  const started = performance.now();
  return new Promise((resolve) => {
    setTimeout(() => {
      running = false;
      const elapsed = (performance.now() - started) / 1000;
      for (const socket of sockets) socket.destroy();
      resolve({ responses, errors, seconds: elapsed });
    }, seconds * 1000);
  });
}

function runClient(): void {
  process.on("message", (order: LoadOrder) => {
    void load(order).then((result) => process.send!(result));
  });
}

/** Asks the client process for one measurement. */
function measure(client: ChildProcess, order: LoadOrder): Promise<LoadResult> {
  return new Promise((resolve) => {
    client.once("message", (result) => resolve(result as LoadResult));
    client.send(order);
  });
}

// ---- orchestration ------------------------------------------------------------------------

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Servers by name, each started in its own process with `--server NAME`. */
const CONTENDERS: Record<string, () => Promise<Running>> = {
  "bare node:http": startBare,
  "serveNode + createResponse": startAdapter,
  "serveNode + new Response()": startAdapterRealResponse,
  "naive Request/Response": startNaive,
};

/** What the orchestrator asks a server process, and what it answers. */
type ServerOrder = "cpu";
type ServerReport = { url: string } | { cpu: number };

/** Server process: start the named server, report its URL, then answer CPU-time queries. */
async function runServer(name: string): Promise<void> {
  const server = await CONTENDERS[name]!();
  process.on("message", (_order: ServerOrder) => {
    const { user, system } = process.cpuUsage();
    process.send!({ cpu: user + system } satisfies ServerReport);
  });
  process.send!({ url: server.url } satisfies ServerReport);
}

/** Sends one order to a child process and waits for its answer. */
function ask<T>(child: ChildProcess, order?: unknown): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (answer) => resolve(answer as T));
    if (order !== undefined) child.send(order as string);
  });
}

interface Measured {
  name: string;
  process: ChildProcess;
  url: string;
  rates: number[];
  costs: number[];
}

async function startServerProcess(name: string): Promise<Measured> {
  const child = fork(fileURLToPath(import.meta.url), ["--server", name], { stdio: "inherit" });
  const { url } = await ask<{ url: string }>(child);
  return { name, process: child, url, rates: [], costs: [] };
}

async function runBenchmark(): Promise<void> {
  const setup = { seconds: flag("seconds", 1.5), rounds: flag("rounds", 8), connections: flag("connections", 32) };
  const names = Object.keys(CONTENDERS).slice(0, process.argv.includes("--all") ? undefined : 2);
  const servers = await Promise.all(names.map(startServerProcess));
  const client = fork(fileURLToPath(import.meta.url), ["--client"], { stdio: "inherit" });
  try {
    for (const server of servers) await measure(client, { url: server.url, seconds: 1, connections: setup.connections }); // JIT warm-up
    for (let round = 1; round <= setup.rounds; round++) {
      for (const server of servers) await measureOne(client, server, round, setup);
    }
  } finally {
    client.kill();
    for (const server of servers) server.process.kill();
  }
  report(servers, setup);
}

/** One measurement of one server: throughput, and the server process's CPU time per response. */
async function measureOne(client: ChildProcess, server: Measured, round: number, setup: { seconds: number; connections: number }): Promise<void> {
  const before = await ask<{ cpu: number }>(server.process, "cpu");
  const result = await measure(client, { url: server.url, seconds: setup.seconds, connections: setup.connections });
  const after = await ask<{ cpu: number }>(server.process, "cpu");
  if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} failed responses`);
  const rate = result.responses / result.seconds;
  const cost = (after.cpu - before.cpu) / result.responses;
  server.rates.push(rate);
  server.costs.push(cost);
  console.log(`round ${round}  ${server.name.padEnd(28)} ${Math.round(rate).toLocaleString("en-US").padStart(7)} req/s  ${cost.toFixed(1)} µs CPU/req`);
}

/** The summary table (Markdown, as it goes into docs/benchmarks.md). */
function report(servers: Measured[], setup: { seconds: number; rounds: number; connections: number }): void {
  const bare = servers[0]!;
  console.log(`\nNode ${process.version}, 1 KB JSON, ${setup.connections} keep-alive connections, ${setup.rounds} rounds × ${setup.seconds} s per server, medians:\n`);
  console.log("| server | req/s | server CPU µs/req | req/s vs bare (per round) | CPU vs bare |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const server of servers) {
    const rate = Math.round(median(server.rates)).toLocaleString("en-US");
    const rateRatio = median(server.rates.map((value, i) => value / bare.rates[i]!));
    const costRatio = median(server.costs.map((value, i) => value / bare.costs[i]!));
    const target = server.name === "serveNode + createResponse" ? ` (target ≥ ${TARGET_RATIO})` : "";
    console.log(`| ${server.name} | ${rate} | ${median(server.costs).toFixed(1)} | ${rateRatio.toFixed(2)}${target} | ${costRatio.toFixed(2)} |`);
  }
}

const serverName = process.argv.indexOf("--server");
if (process.argv.includes("--client")) runClient();
else if (serverName !== -1) await runServer(process.argv[serverName + 1]!);
else await runBenchmark();
