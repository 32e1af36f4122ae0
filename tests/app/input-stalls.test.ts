import { after, before, describe, test } from "node:test";
import process from "node:process";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";
import { longestStall, STALL_BOUND_MS } from "../helpers/stall.ts";

// Each input once took seconds of synchronous work (quadratic regexes), during which no other
// client was served. Every one must now be answered with a 4xx (or a 200) while a concurrent
// request is served and the event loop never stalls for long.
describe("pathological input does not stall other clients", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 1);
  });
  after(() => app?.close());

  /** Sends the hostile request beside an ordinary one; returns the hostile response. */
  async function alongside(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const { result, stallMs } = await longestStall(() =>
      Promise.all([
        call(app, method, path, body, headers).then(jsonOf),
        call(app, "GET", "/api/v1/users/1").then(jsonOf),
      ])
    );
    const [hostile, ordinary] = result;
    assert.equal(ordinary.status, 200, "the concurrent request is answered");
    assert.ok(
      stallMs < STALL_BOUND_MS,
      `${method} ${path.slice(0, 40)}…: the event loop stalled for ${Math.round(stallMs)} ms`,
    );
    return hostile;
  }

  const dots = "a@" + ".".repeat(60_000) + " ";

  test("an email of many dots and a trailing space (POST)", async () => {
    const res = await alongside("POST", "/api/v1/users", { email: dots, name: "A", surname: "B" });
    assert.deepEqual(res, {
      status: 400,
      body: { errors: { email: ["The email field must be a valid email address."] } },
    });
  });

  test("the same email on PUT and PATCH", async () => {
    for (const method of ["PUT", "PATCH"]) {
      const res = await alongside(method, "/api/v1/users/1", { email: dots, name: "A", surname: "B" });
      assert.equal(res.status, 400, method);
      assert.deepEqual(res.body.errors.email, ["The email field must be a valid email address."]);
    }
  });

  test("a string past the model's length limit is refused before any check runs on it", async () => {
    const res = await alongside("POST", "/api/v1/users", {
      email: "a@" + ".".repeat(300_000) + " ",
      name: "A",
      surname: "B",
    });
    assert.deepEqual(res, {
      status: 400,
      body: { errors: { email: ["The email field must be at most 65536 characters long."] } },
    });
  });

  test("a path of many slashes that matches no route", async () => {
    const res = await alongside("GET", "/" + "/".repeat(64_000) + "x");
    assert.equal(res.status, 404);
    assert.equal(typeof res.body.error, "string");
  });

  test("a like-pattern of many wildcards against a long stored value", async () => {
    const long = "a".repeat(60_000);
    const created = await jsonOf(
      await call(app, "POST", "/api/v1/users", { email: "long@example.com", name: long, surname: "L" }),
    );
    assert.equal(created.status, 201);
    const q = JSON.stringify({ "name.$like": "*a".repeat(20) + "b" });
    const res = await alongside("GET", `/api/v1/users?q=${encodeURIComponent(q)}`);
    assert.deepEqual([res.status, res.body.data], [200, []]);
  });

  test("a long If-None-Match list", async () => {
    const res = await alongside("GET", "/api/v1/users/1", undefined, { "if-none-match": '"x",'.repeat(20_000) + "W/" });
    assert.equal(res.status, 200);
  });
});

test("the stall measure sees a synchronous stretch of CPU work", async () => {
  const { stallMs } = await longestStall(async () => {
    await Promise.resolve();
    const start = process.cpuUsage();
    let spin = 0;
    // 200 ms of CPU without yielding: what a quadratic regex does to other clients.
    for (let used = 0; used < 200_000; used = process.cpuUsage(start).user + process.cpuUsage(start).system) {
      for (let i = 0; i < 100_000; i++) spin += i;
    }
    return spin;
  });
  assert.ok(stallMs >= 190, `measured ${stallMs} ms`);
});
