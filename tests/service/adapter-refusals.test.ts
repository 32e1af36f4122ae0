import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { reset } from "@logtape/logtape";
import { request } from "undici";
import { type NodeServer, serveNode } from "../../src/adapters/node/node-adapter.ts";
import { type App, configureLogging } from "../../src/mod.ts";
import { requestLog } from "../../src/service/request-log.ts";
import { exampleApp } from "../helpers/app.ts";

const ORIGIN = "https://app.example";
const TOO_LARGE_DE = { error: "Der Request-Body ist größer als das Limit von 64 Bytes." };

/** The request lines written so far, as their JSON properties. */
function loggedOf(batches: string[]): { status: number; requestId: string; path: string }[] {
  return batches.join("").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line).properties);
}

// A body the Node adapter refuses (declared over its limit, or streamed past it) is answered
// by the app as its own errors are: with CORS, the request id, Content-Language, and a log line.
describe("the Node adapter's 413s, answered by the app", () => {
  let app: App;
  let server: NodeServer;
  const batches: string[] = [];

  before(async () => {
    await configureLogging({ level: "info", json: true, sink: () => {}, write: (text) => batches.push(text) });
    app = await exampleApp({ cors: { origin: [ORIGIN] } });
    server = await serveNode(app, { port: 0, host: "127.0.0.1", bodyLimit: 64, languages: app.languages });
  });
  after(async () => {
    await server.close();
    await app.close();
    await reset();
  });

  const headers = (requestId: string) => ({
    origin: ORIGIN,
    "x-request-id": requestId,
    "accept-language": "de-CH",
    "content-type": "application/json",
  });

  test("a declared Content-Length over the limit: 413 with the app's headers, logged once", async () => {
    const response = await request(`${server.url}/api/v1/users`, {
      method: "POST",
      body: JSON.stringify({ name: "x".repeat(100) }),
      headers: headers("req-declared"),
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(await response.body.json(), TOO_LARGE_DE);
    assert.equal(response.headers["access-control-allow-origin"], ORIGIN);
    assert.equal(response.headers["x-request-id"], "req-declared");
    assert.equal(response.headers["content-language"], "de");
    assert.equal(response.headers.connection, "close");
    requestLog.flush();
    const lines = loggedOf(batches).filter((line) => line.requestId === "req-declared");
    assert.deepEqual(lines.map(({ status, path }) => [status, path]), [[413, "/api/v1/users"]]);
  });

  test("a streamed body that outgrows the limit: the app's own 413, logged once", async () => {
    const response = await request(`${server.url}/api/v1/users`, {
      method: "POST",
      body: Readable.from(['{"name":"', "x".repeat(40), "y".repeat(40), '"}']),
      headers: headers("req-streamed"),
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(await response.body.json(), TOO_LARGE_DE);
    assert.equal(response.headers["access-control-allow-origin"], ORIGIN);
    assert.equal(response.headers["x-request-id"], "req-streamed");
    assert.equal(response.headers.connection, "close");
    requestLog.flush();
    const lines = loggedOf(batches).filter((line) => line.requestId === "req-streamed");
    assert.deepEqual(lines.map(({ status }) => status), [413]);
    const healthy = await request(`${server.url}/api/v1/users?per_page=1`);
    assert.equal(healthy.statusCode, 200);
    await healthy.body.dump();
  });
});
