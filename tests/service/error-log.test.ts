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
