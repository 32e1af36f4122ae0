/**
 * The child of bench-instructions.ts: the example app answering page 2 of its users from the
 * response cache, in one process, with no socket, so that what is counted is the framework's
 * own work on a cached request and the instructions of node:http are left out. The request
 * goes in as the Node adapter builds it (createNodeRequest), is answered through the app's
 * adapter contract (`app.answer`, as serveNode calls it), and the reply comes out through the
 * adapter's writer into a stand-in for node's ServerResponse.
 *
 * Under callgrind (valgrind) it switches instrumentation on (`callgrind_control -i on`) only
 * for the counted requests, after a warm-up long enough for V8 to optimise the path.
 *
 * Environment: FEATURES (comma list of logs, cors, ratelimit; empty for the default app),
 * WARMUP and REQUESTS (counts).
 */
import { spawn } from "node:child_process";
import { openSync, writeSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configureLogging, createApp, defaultErrorHandler } from "../../src/mod.ts";
import { loadHooks, loadModels } from "../../src/loader.ts";
import { createNodeRequest } from "../../src/adapters/node/node-request.ts";
import { writeReply } from "../../src/adapters/node/node-response.ts";
import { userDocs } from "./seed-users.ts";

const ORIGIN = "http://app.bench.example";
const URL_TEXT = "http://127.0.0.1:3000/api/v1/users?page=2";
const features = new Set((process.env.FEATURES ?? "").split(",").filter(Boolean));

if (features.has("logs")) {
  // As bench-paginate's service row: JSON lines, batched, written to /dev/null.
  const devNull = openSync("/dev/null", "w");
  await configureLogging({ level: "info", json: true, write: (lines) => void writeSync(devNull, lines) });
}
const dir = (name: string): string => fileURLToPath(new URL(`../../${name}`, import.meta.url));
const app = await createApp({
  models: await loadModels(dir("models")),
  hooks: await loadHooks(dir("hooks")),
  cursorSecret: "bench-instructions-cursor-secret",
  ...(features.has("cors") ? { cors: { origin: [ORIGIN] } } : {}),
  ...(features.has("ratelimit") ? { rateLimit: { windowMs: 60_000, max: 1_000_000_000 } } : {}),
});
app.onError(defaultErrorHandler);
await app.db.collection("users").insertMany(userDocs(1, 100));

const info = Object.freeze({ remoteAddr: Object.freeze({ hostname: "127.0.0.1", port: 50_000 }) });
const bodySource = { limit: 1 << 20, onFirstRead() {}, onOverflow() {}, onAbandon() {} };
let written = 0;
const res = {
  writeHead(_status: number, headers: string[]) {
    written += headers.length;
    return this;
  },
  end(body?: string) {
    written += body === undefined ? 0 : 1;
  },
};

/** A request as node's parser hands it over: a browser's header names, capitalised. */
function nodeRequest() {
  const rawHeaders = ["Host", "127.0.0.1:3000", "Accept", "application/json", "Origin", ORIGIN];
  return { method: "GET", url: "/api/v1/users?page=2", rawHeaders, headers: {} };
}

/** One cached request, answered in the same turn; throws if it was not a cache hit. */
function cachedRequest(): void {
  const answer = app.answer(createNodeRequest(nodeRequest() as never, URL_TEXT, bodySource as never), info);
  if (answer instanceof Promise) throw new Error("the page was not answered from the response cache");
  writeReply(res as never, answer, "GET");
}

function callgrind(...args: string[]): Promise<void> {
  return new Promise((resolve) => {
    spawn("callgrind_control", [...args, String(process.pid)], { stdio: "ignore" }).on("exit", () => resolve());
  });
}
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The first requests fill the response cache (they go to the engine).
for (let i = 0; i < 5; i++) {
  await app.answer(createNodeRequest(nodeRequest() as never, URL_TEXT, bodySource as never), info);
}
for (let i = 0; i < Number(process.env.WARMUP ?? 30_000); i++) cachedRequest();
await settle(100);
await callgrind("-i", "on");
await settle(300); // callgrind takes the command up at its next check
const requests = Number(process.env.REQUESTS ?? 20_000);
for (let i = 0; i < requests; i++) cachedRequest();
await callgrind("-i", "off");
await settle(300);
await callgrind("-d");
await settle(300);
if (written === 0) throw new Error("nothing was written");
await app.close();
