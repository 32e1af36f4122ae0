import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const valid = { email: "karl@example.com", name: "Karl", surname: "Popper", password: "hunter2" };

describe("INSERT", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
  });
  after(() => app.close());

  test("answers 201 with the stored record as SHOW returns it", async () => {
    const created = await jsonOf(await call(app, "POST", "/api/v1/users", valid));
    assert.equal(created.status, 201);
    assert.equal(created.body.id, 1);
    assert.match(created.body.created_at, ISO_MS);
    assert.equal(created.body.created_at, created.body.updated_at);
    assert.ok(!("password" in created.body) && !("_id" in created.body));
    const shown = await jsonOf(await call(app, "GET", "/api/v1/users/1"));
    assert.deepEqual(shown.body, created.body);
  });

  test("the hidden field is stored", async () => {
    const doc = await app.db.collection("users").findOne({ _id: 1 as never });
    assert.equal(doc?.password, "hunter2");
  });

  test("ids count up per model and are unique under concurrent inserts", async () => {
    const responses = await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) => call(app, "POST", "/api/v1/users", { ...valid, email: `c${i}@example.com` }),
      ),
    );
    const ids = await Promise.all(responses.map(async (r) => (await r.json()).id as number));
    assert.equal(new Set(ids).size, 30);
    assert.deepEqual([...ids].sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i + 2));
  });

  test("every missing required field is reported at once", async () => {
    const { status, body } = await jsonOf(await call(app, "POST", "/api/v1/users", {}));
    assert.equal(status, 400);
    assert.deepEqual(body, {
      errors: {
        email: ["The email field is required."],
        name: ["The name field is required."],
        surname: ["The surname field is required."],
      },
    });
  });

  test("type, format, unknown and read-only problems come back together", async () => {
    const { status, body } = await jsonOf(
      await call(app, "POST", "/api/v1/users", {
        email: "nope",
        name: 5,
        surname: "S",
        colour: "red",
        id: 9,
        created_at: "x",
      }),
    );
    assert.equal(status, 400);
    assert.deepEqual(body.errors, {
      email: ["The email field must be a valid email address."],
      name: ["The name field must be a string."],
      colour: ["The colour field is not allowed."],
      id: ["The id field is read-only."],
      created_at: ["The created_at field is read-only."],
    });
  });

  test("an integer field refuses strings and fractions", async () => {
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/posts", { user_id: "1", title: "t" }, { "x-user-id": "1" }),
    );
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, { user_id: ["The user_id field must be an integer."] });
  });

  test("no record is stored when validation fails", async () => {
    const before = await app.db.collection("users").countDocuments();
    await call(app, "POST", "/api/v1/users", { email: "bad" });
    assert.equal(await app.db.collection("users").countDocuments(), before);
  });
});
