/**
 * Throughput of the Node adapter against bare node:http, in one run:
 *
 *   npx tsx scripts/bench-http.ts [--seconds 3] [--rounds 3] [--connections 32]
 *
 * Both servers answer the same 1 KB JSON body with the same headers, on loopback. The load
 * generator runs in a child process (this same file, started with `--client`) so that it has
 * a core of its own: keep-alive connections, one request in flight on each, as wrk and
 * autocannon do by default. Servers are loaded in turn (bare, adapter, bare, adapter...) so
 * that drift on a shared machine hits both alike; the ratio is adapter / bare.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createResponse } from "../src/http/fast-response.ts";
import { serveNode, type NodeServer } from "../src/http/node-adapter.ts";

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

/** Bare node:http: the ceiling the adapter is measured against. */
async function startBare(): Promise<{ url: string; close(): Promise<void> }> {
  const headers = {
    "content-type": "application/json; charset=utf-8",
    "content-language": "en",
    "content-length": BODY_LENGTH,
  };
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(BODY);
  });
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

/** The adapter, with a handler that looks at method, URL and a header, as the framework would. */
function startAdapter(): Promise<NodeServer> {
  return serveNode(
    (request) => {
      if (request.method !== "GET" || !request.url.endsWith("/") || request.headers.get("accept") === "text/html") {
        return createResponse(null, 404, {});
      }
      return createResponse(BODY, 200, { "content-type": "application/json; charset=utf-8", "content-language": "en" });
    },
    { port: 0, host: "127.0.0.1" },
  );
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

/**
 * Keeps one request in flight on each of `connections` keep-alive sockets for `seconds` and
 * counts complete 200 responses. Parses only what framing needs (Content-Length), so it
 * stays well ahead of the server it loads.
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
        const length = Number(LENGTH_FIELD.exec(head)?.[1] ?? NaN);
        if (Number.isNaN(length)) throw new Error(`response without Content-Length: ${head}`);
        const total = end + 4 + length;
        if (pending.length < total) return;
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

async function runBenchmark(): Promise<void> {
  const seconds = flag("seconds", 3);
  const rounds = flag("rounds", 3);
  const connections = flag("connections", 32);
  const bare = await startBare();
  const adapter = await startAdapter();
  const client = fork(fileURLToPath(import.meta.url), ["--client"], { stdio: "inherit" });
  const servers = [
    { name: "bare node:http", url: bare.url, rates: [] as number[], costs: [] as number[] },
    { name: "serveNode + createResponse", url: adapter.url, rates: [] as number[], costs: [] as number[] },
  ];
  try {
    for (const server of servers) await measure(client, { url: server.url, seconds: 1, connections }); // JIT warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const server of servers) {
        const cpuBefore = process.cpuUsage();
        const result = await measure(client, { url: server.url, seconds, connections });
        const cpu = process.cpuUsage(cpuBefore);
        if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} failed responses`);
        const rate = result.responses / result.seconds;
        const cost = (cpu.user + cpu.system) / result.responses;
        server.rates.push(rate);
        server.costs.push(cost);
        console.log(`round ${round}  ${server.name.padEnd(28)} ${Math.round(rate).toLocaleString("en-US").padStart(7)} req/s  ${cost.toFixed(1)} µs CPU/req`);
      }
    }
  } finally {
    client.kill();
    await Promise.all([bare.close(), adapter.close()]);
  }
  report(servers, { seconds, rounds, connections });
}

interface Measured {
  name: string;
  rates: number[];
  costs: number[];
}

/** The summary table (Markdown, as it goes into docs/benchmarks.md). */
function report(servers: Measured[], setup: { seconds: number; rounds: number; connections: number }): void {
  const [bare, adapter] = servers.map((server) => median(server.rates)) as [number, number];
  const [bareCost, adapterCost] = servers.map((server) => median(server.costs)) as [number, number];
  console.log(`\nNode ${process.version}, 1 KB JSON, ${setup.connections} keep-alive connections, ${setup.rounds} × ${setup.seconds} s per server, medians:\n`);
  console.log("| server | req/s | server CPU µs/req |");
  console.log("| --- | ---: | ---: |");
  for (const server of servers) {
    const rate = Math.round(median(server.rates)).toLocaleString("en-US");
    console.log(`| ${server.name} | ${rate} | ${median(server.costs).toFixed(1)} |`);
  }
  console.log(`| **adapter / bare** | **${(adapter / bare).toFixed(2)}** (target ≥ ${TARGET_RATIO}) | ${(adapterCost / bareCost).toFixed(2)} |`);
}

if (process.argv.includes("--client")) runClient();
else await runBenchmark();
