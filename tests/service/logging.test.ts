import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LogRecord, reset } from "@logtape/logtape";
import { configureLogging, loggingFromEnv } from "../../src/mod.ts";
import { lineFormatter, parseLevel } from "../../src/service/logging.ts";
import { call, exampleApp } from "../helpers/app.ts";

describe("one log line per request", async () => {
  const records: LogRecord[] = [];
  const app = await exampleApp();
  const failing = await exampleApp({
    hooks: {
      User: {
        onBeforeShow: () => {
          throw new TypeError("boom: the hook broke");
        },
      },
    },
  });
  failing.onError(() => new Response(JSON.stringify({ message: "An error occurred!" }), { status: 500 }));
  before(() => configureLogging({ level: "info", sink: (record) => records.push(record) }));
  after(async () => {
    await reset();
    await Promise.all([app.close(), failing.close()]);
  });

  it("logs method, path without the query, status, duration and request id", async () => {
    records.length = 0;
    const res = await call(
      app,
      "GET",
      `/api/v1/users?q=${encodeURIComponent('{"password":"hunter2"}')}&page=1`,
      undefined,
      { "x-request-id": "req-42" },
    );
    assert.equal(res.status, 400); // password is hidden, so the q is refused; its value must not be logged either
    assert.equal(res.headers.get("x-request-id"), "req-42");
    assert.equal(records.length, 1);
    const [record] = records;
    assert.equal(record!.level, "info");
    assert.deepEqual(record!.category, ["mongorest", "request"]);
    const { durationMs, ...rest } = record!.properties as Record<string, unknown>;
    assert.deepEqual(rest, { method: "GET", path: "/api/v1/users", status: 400, requestId: "req-42" });
    assert.ok(typeof durationMs === "number" && durationMs >= 0);
    for (const json of [true, false]) {
      const line = lineFormatter(json)(record!);
      assert.ok(!line.includes("hunter2") && !line.includes("q="), line);
      assert.match(line, /GET \/api\/v1\/users 400 [\d.]+ ms req-42/);
      if (json) assert.equal(JSON.parse(line).properties.requestId, "req-42");
    }
  });

  it("never logs bodies", async () => {
    records.length = 0;
    await call(app, "POST", "/api/v1/users", {
      email: "x@example.com",
      name: "N",
      surname: "S",
      password: "s3cret-pass",
    });
    assert.equal(records.length, 1);
    for (const json of [true, false]) assert.ok(!lineFormatter(json)(records[0]!).includes("s3cret"));
  });

  it("accepts a sane X-Request-Id and replaces any other with a UUID", async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const given of ["has space", "x".repeat(129), "a,b", "<script>", ""]) {
      const res = await call(app, "GET", "/api/v1/users", undefined, given === "" ? {} : { "x-request-id": given });
      assert.match(res.headers.get("x-request-id") ?? "", uuid, JSON.stringify(given));
    }
    const a = (await call(app, "GET", "/healthz")).headers.get("x-request-id");
    const b = (await call(app, "GET", "/healthz")).headers.get("x-request-id");
    assert.notEqual(a, b);
    assert.equal(
      (await call(app, "GET", "/api/v1/users", undefined, { "x-request-id": "01HZX.trace:9@edge-1" })).headers.get(
        "x-request-id",
      ),
      "01HZX.trace:9@edge-1",
    );
  });

  it("logs an unexpected error once, with the request id", async () => {
    records.length = 0;
    const res = await call(failing, "GET", "/api/v1/users/1", undefined, { "x-request-id": "req-err" });
    assert.equal(res.status, 500);
    const errors = records.filter((r) => r.level === "error");
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.properties.requestId, "req-err");
    assert.match(String(errors[0]!.properties.error), /boom: the hook broke/);
    assert.equal(records.filter((r) => r.level === "info").length, 1);
  });

  it("LOG_LEVEL sets the level; probes log at debug", async () => {
    await configureLogging({ level: "warn", sink: (record) => records.push(record) });
    records.length = 0;
    await call(app, "GET", "/api/v1/users");
    assert.equal(records.length, 0);
    await configureLogging({ level: "debug", sink: (record) => records.push(record) });
    await call(app, "GET", "/healthz");
    assert.equal(records.length, 1);
    assert.equal(records[0]!.level, "debug");
    await configureLogging({ level: "info", sink: (record) => records.push(record) });
    await call(app, "GET", "/healthz");
    assert.equal(records.length, 1);
  });

  it("reads NODE_ENV and LOG_LEVEL; a bad level is one clear line", () => {
    assert.deepEqual(loggingFromEnv({ NODE_ENV: "production", LOG_LEVEL: "debug" }), { json: true, level: "debug" });
    assert.deepEqual(loggingFromEnv({}), { json: false, level: undefined });
    assert.equal(parseLevel("WARN"), "warning");
    assert.throws(
      () => parseLevel("verbose"),
      /^TypeError: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal; got "verbose"$/,
    );
  });
});
