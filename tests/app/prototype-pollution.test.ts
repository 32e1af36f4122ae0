import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { BSON } from "bson";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";

/**
 * A client of the database (here the app's own driver) sending an upsert filtered on
 * `{"__proto__.q": 1}` once polluted `Object.prototype` in the engine: with the engine in the
 * app's thread, every later response of the app, `/healthz` included, was a 500. MongoDB
 * stores a literal `__proto__` field; so does the engine, and the app goes on serving.
 */
let app: App;
before(async () => {
  app = await exampleApp({ responseCache: false, engineThread: false });
});
after(async () => await app?.close());

test("the attacker's upsert stores a literal field and the app keeps serving", async () => {
  const filter = BSON.EJSON.parse('{"__proto__.q": 1}');
  await app.db.collection("users").updateOne(filter, { $setOnInsert: { z: 1 } }, { upsert: true });
  assert.equal(({} as Record<string, unknown>).q, undefined, "Object.prototype gained no field");
  const stored = await app.db.collection("users").findOne({ z: 1 }, { projection: { _id: 0 } });
  assert.equal(BSON.EJSON.stringify(stored!), '{"__proto__":{"q":1},"z":1}');

  const created = await call(app, "POST", "/api/v1/users", {
    email: "after@example.com",
    name: "After",
    surname: "Attack",
    password: "secret",
  });
  assert.equal(created.status, 201, await created.clone().text());
  const health = await jsonOf(await call(app, "GET", "/healthz"));
  assert.deepEqual(health, { status: 200, body: { status: "ok" } });
  const listed = await call(app, "GET", "/api/v1/users?per_page=5");
  assert.equal(listed.status, 200);
});
