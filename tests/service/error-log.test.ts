import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type LogRecord, reset } from "@logtape/logtape";
import { configureLogging, defaultErrorHandler } from "../../src/mod.ts";
import { call, exampleApp } from "../helpers/app.ts";

/** Runs `body` with NODE_ENV=production and console.error counted, restoring both after. */
async function inProduction(body: (consoleErrors: unknown[][]) => Promise<void>): Promise<void> {
  const env = process.env.NODE_ENV;
  const original = console.error;
  const consoleErrors: unknown[][] = [];
  process.env.NODE_ENV = "production";
  console.error = (...args: unknown[]) => void consoleErrors.push(args);
  try {
    await body(consoleErrors);
  } finally {
    console.error = original;
    if (env === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = env;
  }
}

describe("the default error handler in production: an unexpected error is logged once", async () => {
  const app = await exampleApp({
    hooks: {
      User: {
        onBeforeShow: () => {
          throw new TypeError("boom: the hook broke");
        },
      },
    },
  });
  app.onError(defaultErrorHandler);
  after(async () => {
    await reset();
    await app.close();
  });

  it("with logging configured: one error record with the request id, no console.error, the spec's 500", async () => {
    const records: LogRecord[] = [];
    await configureLogging({ level: "info", sink: (record) => records.push(record) });
    await inProduction(async (consoleErrors) => {
      const res = await call(app, "GET", "/api/v1/users/1", undefined, { "x-request-id": "req-once" });
      assert.equal(res.status, 500);
      assert.deepEqual(await res.json(), { message: "An error occurred!" });
      assert.equal(consoleErrors.length, 0, "not logged a second time through console.error");
    });
    const errors = records.filter((record) => record.level === "error");
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.properties.requestId, "req-once");
    assert.match(String(errors[0]!.properties.error), /boom: the hook broke/);
  });

  it("with logging not set up: the default handler still logs it, once", async () => {
    await reset();
    await inProduction(async (consoleErrors) => {
      const res = await call(app, "GET", "/api/v1/users/1");
      assert.equal(res.status, 500);
      assert.equal(consoleErrors.length, 1);
      assert.match(String(consoleErrors[0]![0]), /boom: the hook broke/);
    });
  });
});

describe("a failure of the service's own stages goes through the app's error handler", async () => {
  const failingStore = { hit: () => Promise.reject(new Error("rate-limit store unreachable")) };
  const throwingKey = () => {
    throw new TypeError("the key function broke");
  };
  const app = await exampleApp({
    rateLimit: { windowMs: 60_000, max: 5, store: failingStore },
    cors: { origin: ["https://app.example"] },
  });
  const keyed = await exampleApp({ rateLimit: { windowMs: 60_000, max: 5, key: throwingKey } });
  app.onError(defaultErrorHandler);
  keyed.onError(defaultErrorHandler);
  after(async () => {
    await reset();
    await Promise.all([app.close(), keyed.close()]);
  });

  it("in production: the spec's 500 with the request id and CORS headers, one error record, one request line", async () => {
    const records: LogRecord[] = [];
    const lines: string[] = [];
    await configureLogging({
      level: "info",
      json: true,
      sink: (record) => records.push(record),
      write: (text) => lines.push(text),
    });
    await inProduction(async (consoleErrors) => {
      const headers = { "x-request-id": "req-store", origin: "https://app.example" };
      const res = await call(app, "GET", "/api/v1/users", undefined, headers);
      assert.equal(res.status, 500);
      assert.deepEqual(await res.json(), { message: "An error occurred!" });
      assert.equal(res.headers.get("x-request-id"), "req-store");
      assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
      const thrown = await call(keyed, "GET", "/api/v1/users", undefined, { "x-request-id": "req-key" });
      assert.equal(thrown.status, 500);
      assert.equal(thrown.headers.get("x-request-id"), "req-key");
      assert.equal(consoleErrors.length, 0, "not logged a second time through console.error");
    });
    await app.close();
    await keyed.close();
    const errors = records.filter((record) => record.level === "error");
    assert.deepEqual(errors.map((record) => record.properties.requestId), ["req-store", "req-key"]);
    assert.match(String(errors[0]!.properties.error), /rate-limit store unreachable/);
    const logged = lines.join("").trim().split("\n").map((line) => JSON.parse(line).properties);
    assert.deepEqual(logged.map(({ status, requestId }) => [status, requestId]), [[500, "req-store"], [
      500,
      "req-key",
    ]]);
  });
});

describe("a request whose error the handler rethrows is still logged, as the 500 the runtime answers", async () => {
  const app = await exampleApp({
    hooks: { User: { onBeforeShow: () => Promise.reject(new TypeError("boom in development")) } },
  });
  app.onError(defaultErrorHandler);
  after(async () => {
    await reset();
    await app.close();
  });

  it("app.fetch rejects with the error, and the request line says 500", async () => {
    const lines: string[] = [];
    await configureLogging({ level: "info", json: true, sink: () => {}, write: (text) => lines.push(text) });
    const request = new Request("http://localhost/api/v1/users/1", { headers: { "x-request-id": "req-dev" } });
    await assert.rejects(Promise.resolve(app.fetch(request)), /boom in development/);
    await app.close();
    const logged = lines.join("").trim().split("\n").map((line) => JSON.parse(line).properties);
    assert.deepEqual(logged.map(({ status, requestId }) => [status, requestId]), [[500, "req-dev"]]);
  });
});
