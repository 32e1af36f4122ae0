/**
 * API keys kept in a collection, over HTTP: a key grants its roles, a wrong one is a 401, and
 * a revoked one stops working once the app's short cache of it runs out (an injected clock,
 * no sleeping). Keys are stored by SHA-256, never in plain text.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type App, createApp, defineHooks, defineModel } from "../../src/mod.ts";
import { keyHash } from "../../src/service/api-keys.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Report = defineModel({
  name: "Report",
  fields: { title: string() },
  access: { service: { read: true }, admin: { all: true } },
});

const KEY = "k-0123456789abcdef0123456789abcdef";
let now = Date.UTC(2026, 0, 1);
let app: App;
const subjects: (string | null)[] = [];

before(async () => {
  app = await createApp({
    models: [Report],
    hooks: { Report: defineHooks({ onBeforePaginate: (ctx) => void subjects.push(ctx.principal.subject) }) },
    auth: { roles: ["service", "admin"], apiKeys: { collection: "api_keys", cacheMs: 5_000 }, now: () => now },
  });
  await app.db.collection("reports").insertOne({ _id: 1, title: "r" } as never);
  const keys = app.db.collection<{ _id: string; name: string; roles: string[] }>("api_keys");
  await keys.insertOne({ _id: keyHash(KEY), name: "billing", roles: ["service"] });
});
after(async () => await app?.close());

test("a stored key grants its roles, and hooks see its name as the subject", async () => {
  const res = await jsonOf(await call(app, "GET", "/api/v1/reports", undefined, { "x-api-key": KEY }));
  assert.equal(res.status, 200);
  assert.deepEqual(subjects, ["billing"]);
  const viaAuthorization = await call(app, "GET", "/api/v1/reports", undefined, { authorization: `ApiKey ${KEY}` });
  assert.equal(viaAuthorization.status, 200);
  await viaAuthorization.body?.cancel();
  const stored = await app.db.collection("api_keys").findOne({});
  assert.equal(JSON.stringify(stored).includes(KEY), false, "only the key's hash is stored");
});

test("a wrong key is a 401 naming the scheme; no key at all is a 401 for a closed model", async () => {
  const wrong = await call(app, "GET", "/api/v1/reports", undefined, { "x-api-key": `${KEY}x` });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate")!, /^ApiKey/);
  assert.equal(typeof (await wrong.json()).error, "string");
  const none = await call(app, "GET", "/api/v1/reports");
  assert.equal(none.status, 401);
  await none.body?.cancel();
});

test("a revoked key works until its cache entry runs out, then is a 401", async () => {
  await app.db.collection<{ _id: string }>("api_keys").updateOne({ _id: keyHash(KEY) }, { $set: { revoked: true } });
  const cached = await call(app, "GET", "/api/v1/reports", undefined, { "x-api-key": KEY });
  assert.equal(cached.status, 200, "within cacheMs of the last lookup");
  await cached.body?.cancel();
  now += 5_001;
  const revoked = await call(app, "GET", "/api/v1/reports", undefined, { "x-api-key": KEY });
  assert.equal(revoked.status, 401);
  await revoked.body?.cancel();
});

test("made-up keys still count against the rate limit: a flood of them meets a 429, not a lookup each", async () => {
  const limited = await createApp({
    models: [Report],
    auth: { roles: ["service", "admin"], apiKeys: { collection: "api_keys" }, now: () => now },
    rateLimit: { windowMs: 60_000, max: 2, now: () => now },
  });
  try {
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await call(limited, "GET", "/api/v1/reports", undefined, { "x-api-key": `made-up-${i}` });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [401, 401, 429, 429]);
  } finally {
    await limited.close();
  }
});
