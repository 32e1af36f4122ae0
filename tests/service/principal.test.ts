/**
 * What the service does with a request's principal: a custom `authenticate` establishes it,
 * the request log records its subject (never the token), a rate limit can count by it, and
 * each way a bearer token can be wrong is a 401 with RFC 6750's `invalid_token`.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { SignJWT } from "jose";
import { string } from "superstruct";
import { ApiError, type App, configureLogging, createApp, defineModel } from "../../src/mod.ts";
import { requestLog } from "../../src/service/request-log.ts";
import { call } from "../helpers/app.ts";

const SECRET = "the principal test's secret: thirty-two characters at least";
const NOW = Date.UTC(2026, 5, 1) / 1000;
const Doc = defineModel({ name: "Doc", fields: { text: string() }, access: { authenticated: { read: true } } });

async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "HS256" }) {
  return await new SignJWT({ exp: NOW + 60, ...claims }).setProtectedHeader(header as { alg: string })
    .sign(new TextEncoder().encode(SECRET));
}

describe("a custom authenticate", async () => {
  const app = await createApp({
    models: [Doc],
    auth: {
      authenticate(request) {
        const session = request.headers.get("cookie")?.match(/session=(\w+)/)?.[1];
        if (session === undefined) return null;
        if (session !== "good") throw new ApiError("The session has ended.", 401);
        return { subject: "u7", roles: ["authenticated"], claims: {}, via: "custom" };
      },
    },
  });
  after(async () => await app.close());

  test("its principal is the request's; null is anonymous; its own 401 is answered as it threw it", async () => {
    assert.equal((await call(app, "GET", "/api/v1/docs", undefined, { cookie: "session=good" })).status, 200);
    assert.equal((await call(app, "GET", "/api/v1/docs")).status, 401, "anonymous may not read docs");
    const ended = await call(app, "GET", "/api/v1/docs", undefined, { cookie: "session=old" });
    assert.equal(ended.status, 401);
    assert.deepEqual(await ended.json(), { error: "The session has ended." });
  });
});

describe("the principal in the log and in rate limits", async () => {
  let now = NOW * 1000;
  const app: App = await createApp({
    models: [Doc],
    auth: { jwt: { secret: SECRET }, now: () => NOW * 1000 },
    rateLimit: {
      windowMs: 60_000,
      max: 2,
      key: (_request, client) => client.subject ?? client.address,
      now: () => now,
    },
  });
  after(async () => {
    await reset();
    await app.close();
  });

  test("the log line has the subject and never the token", async () => {
    const batches: string[] = [];
    await configureLogging({ level: "info", json: true, write: (text) => batches.push(text) });
    const token = await signed({ sub: "alice" });
    await call(app, "GET", "/api/v1/docs", undefined, { authorization: `Bearer ${token}` });
    await call(app, "GET", "/api/v1/docs");
    requestLog.flush(); // the batch, now rather than after its 20 ms

    const lines = batches.join("").trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line.properties.subject), ["alice", undefined]);
    assert.equal(batches.join("").includes(token), false);
    now += 60_000; // a fresh window for the next test
  });

  test("a key by subject gives each user a window of their own", async () => {
    const statuses = async (sub: string) => {
      const headers = { authorization: `Bearer ${await signed({ sub })}` };
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push((await call(app, "GET", "/api/v1/docs", undefined, headers)).status);
      return seen;
    };
    assert.deepEqual(await statuses("bob"), [200, 200, 429]);
    assert.deepEqual(await statuses("carol"), [200, 200, 429], "from the same address");
  });
});

describe("every way a bearer token can be wrong, over HTTP", async () => {
  const app = await createApp({
    models: [Doc],
    auth: { jwt: { secret: SECRET, issuer: "https://id.test", audience: "api" }, now: () => NOW * 1000 },
  });
  after(async () => await app.close());
  const good = { sub: "1", iss: "https://id.test", aud: "api" };

  test("expired, not yet valid, wrong issuer or audience, alg none, another key, malformed: each a 401", async () => {
    const none = `${btoa(JSON.stringify({ alg: "none" }))}.${btoa(JSON.stringify(good))}.`.replace(/=/g, "");
    const otherKey = await new SignJWT(good).setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode("another secret that is also thirty-two characters long"));
    const cases: [string, string][] = [
      ["expired", await signed({ ...good, exp: NOW - 3600 })],
      ["not yet valid", await signed({ ...good, nbf: NOW + 3600 })],
      ["wrong issuer", await signed({ ...good, iss: "https://evil.test" })],
      ["wrong audience", await signed({ ...good, aud: "other" })],
      ["alg none", none],
      ["another key", otherKey],
      ["malformed", "not-a-jwt"],
    ];
    assert.equal(
      (await call(app, "GET", "/api/v1/docs", undefined, { authorization: `Bearer ${await signed(good)}` })).status,
      200,
    );
    for (const [name, token] of cases) {
      const res = await call(app, "GET", "/api/v1/docs", undefined, { authorization: `Bearer ${token}` });
      assert.equal(res.status, 401, name);
      assert.match(
        res.headers.get("www-authenticate")!,
        /^Bearer realm="api", error="invalid_token", error_description="[^"]+"$/,
        name,
      );
      assert.equal(typeof (await res.json()).error, "string", name);
    }
  });
});
