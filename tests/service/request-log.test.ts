import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type LogRecord, reset } from "@logtape/logtape";
import { configureLogging } from "../../src/mod.ts";
import { lineFormatter } from "../../src/service/logging.ts";
import { durationText, type RequestFields, RequestLog } from "../../src/service/request-log.ts";
import { call, exampleApp } from "../helpers/app.ts";

/** The record LogTape itself would have made for a request line written at `timestamp`. */
function logTapeRecord(fields: RequestFields, timestamp: number, level: "info" | "debug" = "info"): LogRecord {
  const line = `${fields.method} ${fields.path} ${fields.status} ${fields.durationMs} ms ${fields.requestId}`;
  return {
    category: ["mongorest", "request"],
    level,
    message: [line],
    rawMessage: line,
    timestamp,
    properties: { ...fields },
  };
}

describe("request lines: batched, in LogTape's shapes", async () => {
  const app = await exampleApp();
  const failing = await exampleApp({
    hooks: {
      User: {
        onBeforeShow: () => {
          throw new TypeError("boom");
        },
      },
    },
  });
  failing.onError(() => new Response(JSON.stringify({ message: "An error occurred!" }), { status: 500 }));
  after(async () => {
    await reset();
    await failing.close();
  });

  it("writes nothing on the request path, then every line, in order, when the app closes", async () => {
    const batches: string[] = [];
    await configureLogging({ level: "info", json: true, write: (text) => batches.push(text) });
    await call(app, "GET", "/api/v1/users?page=1", undefined, { "x-request-id": "req-1" });
    await call(app, "GET", "/api/v1/users/999", undefined, { "x-request-id": "req-2" });
    await call(failing, "GET", "/api/v1/users/1", undefined, { "x-request-id": "req-3" });
    assert.equal(batches.length, 0, "lines wait for their batch");
    await app.close();
    assert.equal(batches.length, 1, "one write for the batch");
    const lines = batches[0]!.split("\n");
    assert.equal(lines.pop(), "", "every line ends in a newline");
    const parsed = lines.map((line) => JSON.parse(line));
    assert.deepEqual(parsed.map((line) => [line.properties.requestId, line.properties.path, line.properties.status]), [
      ["req-1", "/api/v1/users", 200],
      ["req-2", "/api/v1/users/999", 404],
      ["req-3", "/api/v1/users/1", 500],
    ]);
    for (const line of parsed) {
      const record = logTapeRecord(line.properties, Date.parse(line["@timestamp"]));
      assert.deepEqual(line, JSON.parse(lineFormatter(true)(record)), "the same line LogTape's JSON formatter writes");
    }
  });

  it("writes the same text line as LogTape's text formatter, and probes at debug", () => {
    const batches: string[] = [];
    const log = new RequestLog();
    log.configure({ level: "debug", json: false, write: (text) => batches.push(text) });
    const fields = { method: "GET", path: "/healthz", status: 200, durationMs: 0.25, requestId: "probe-1" };
    log.log("debug", fields);
    log.flush();
    const line = batches[0]!;
    const stamp = line.slice(0, 23).replace(" ", "T") + "Z";
    assert.equal(line, lineFormatter(false)(logTapeRecord(fields, Date.parse(stamp), "debug")));
    assert.match(line, /\[DBG\] mongorest·request: GET \/healthz 200 0\.25 ms probe-1\n$/);
  });

  it("stamps each line with its own millisecond and escapes each path, however lines alternate", () => {
    const batches: string[] = [];
    const log = new RequestLog();
    log.configure({ level: "info", json: true, write: (text) => batches.push(text) });
    const times = [0, 7, 999, 1000, 1001, 1_700_000_000_123, 1_700_000_000_999, 1_700_000_001_000, 1_700_000_000_999];
    const paths = ["/a", '/q"uote', "/a", "/b", "/b", '/q"uote', "/a"];
    const realNow = Date.now;
    try {
      times.forEach((ms, i) => {
        Date.now = () => ms;
        log.log("info", { method: "GET", path: paths[i % paths.length]!, status: 200, durationMs: 1, requestId: "r" });
      });
    } finally {
      Date.now = realNow;
    }
    log.flush();
    const lines = batches.join("").trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line["@timestamp"]), times.map((ms) => new Date(ms).toISOString()));
    assert.deepEqual(lines.map((line) => line.properties.path), times.map((_, i) => paths[i % paths.length]));
  });

  it("writes a duration as String() does, for every hundredth and for any other number", () => {
    for (let hundredths = 0; hundredths < 300_000; hundredths++) {
      const ms = Math.round(hundredths) / 100;
      if (durationText(ms) !== String(ms)) assert.equal(durationText(ms), String(ms));
    }
    for (const ms of [0.001, 1.234, 1e-7, 123456789.5, 1e21, -0, -1.5, NaN, Infinity, 0.1 + 0.2, 9_999_999.99]) {
      assert.equal(durationText(ms), String(ms), String(ms));
    }
  });

  it("writes each line's own method, however methods alternate", () => {
    const batches: string[] = [];
    const log = new RequestLog();
    log.configure({ level: "info", json: true, write: (text) => batches.push(text) });
    const methods = ["GET", "GET", 'X"Y', "POST", 'X"Y', "GET", "DELETE", "DELETE", "GET"];
    for (const method of methods) log.log("info", { method, path: "/p", status: 200, durationMs: 1, requestId: "r" });
    log.flush();
    const lines = batches.join("").trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line.properties.method), methods);
    assert.deepEqual(lines.map((line) => line.message.split(" ")[0]), methods);
  });

  it("escapes quotes and control characters, so a path cannot break or forge a line", () => {
    for (const json of [true, false]) {
      const batches: string[] = [];
      const log = new RequestLog();
      log.configure({ level: "info", json, write: (text) => batches.push(text) });
      log.log("info", {
        method: "GET",
        path: '/a"b\\c\n{"level":"FATAL"}',
        status: 404,
        durationMs: 1,
        requestId: "x",
      });
      log.flush();
      assert.equal(batches[0]!.split("\n").length, 2, batches[0]);
      if (json) assert.equal(JSON.parse(batches[0]!).properties.path, '/a"b\\c\n{"level":"FATAL"}');
    }
  });

  it("writes a full batch at once, without waiting for the timer, and respects the level", () => {
    const batches: string[] = [];
    const log = new RequestLog();
    log.configure({ level: "info", json: true, write: (text) => batches.push(text) });
    assert.equal(log.enabled("debug"), false);
    const lines = 1_000;
    for (let i = 0; i < lines; i++) {
      log.log("info", { method: "GET", path: "/p", status: 200, durationMs: 1, requestId: `r${i}` });
    }
    // Batches stop at 32 KiB of text (a line more at most): larger ones are far dearer to join (request-log.ts).
    assert.ok(batches.length >= 2, `${batches.length} batches`);
    for (const batch of batches) {
      const longestLine = Math.max(...batch.split("\n").map((line) => line.length + 1));
      assert.ok(batch.length >= 32 * 1024 && batch.length < 32 * 1024 + longestLine, `batch of ${batch.length}`);
    }
    log.log("info", { method: "GET", path: "/p", status: 200, durationMs: 1, requestId: "late" });
    log.configure(undefined); // a new setup writes what the old one held, then logs nothing
    const ids = batches.join("").trimEnd().split("\n").map((line) => JSON.parse(line).properties.requestId);
    assert.deepEqual(ids, [...Array.from({ length: lines }, (_, i) => `r${i}`), "late"]);
    assert.equal(log.enabled("info"), false);
  });
});
