import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { any, date, defaulted, number, optional, string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { BodyLimitError } from "../../src/http/messages.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

/** JSON text of a string wrapped in `depth` arrays (built as text: JSON.stringify itself would overflow). */
function nested(depth: number): string {
  return "[".repeat(depth) + '"x"' + "]".repeat(depth);
}

describe("hostile bodies are 400s, never 500s", () => {
  const Thing = defineModel({
    name: "Thing",
    fields: { label: string(), meta: optional(any()), size: defaulted(number(), 5), due: optional(date()) },
    softDelete: true,
  });
  let app: App;
  before(async () => {
    app = await createApp({ models: [Thing] });
  });
  after(() => app.close());

  for (const key of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    test(`a body key named ${key} is "not allowed"`, async () => {
      const res = await jsonOf(await call(app, "POST", "/api/v1/things", `{"label":"a","${key}":1}`));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.errors[key], [`The ${key} field is not allowed.`]);
    });
  }

  const bad: [string, string, RegExp][] = [
    ["deeply nested arrays", nested(100_000), /nested more than 100 levels deep/],
    ["a $-key inside a free-form value", '{"$set":{"a":1}}', /key "\$set" that starts with "\$"/],
    ["a dotted key", '{"a.b":1}', /key "a\.b" that contains "\."/],
    ["a NUL in a key", '{"a\\u0000b":1}', /NUL character/],
    ["a lone surrogate in a nested string", '{"a":["x\\ud800y"]}', /lone UTF-16 surrogate/],
    ["a lone surrogate in a key", '{"\\udc00":1}', /lone UTF-16 surrogate/],
  ];
  for (const [what, meta, message] of bad) {
    test(`${what} is refused before it is stored`, async () => {
      const body = `{"label":"a","meta":${meta}}`;
      const res = await jsonOf(await call(app, "POST", "/api/v1/things", body));
      assert.equal(res.status, 400);
      assert.match(res.body.errors.meta[0], message);
      assert.equal(await app.db.collection("things").countDocuments({ label: "a" }), 0);
    });
  }

  test("a lone surrogate in a field is a 400, never stored as U+FFFD; a surrogate pair (an emoji) is kept", async () => {
    const res = await jsonOf(await call(app, "POST", "/api/v1/things", '{"label":"a\\ud800b"}'));
    assert.deepEqual(res, {
      status: 400,
      body: {
        errors: {
          label: [
            "The label field holds text that is not valid Unicode: a lone UTF-16 surrogate (\\ud800 to \\udfff) without its pair.",
          ],
        },
      },
    });
    const emoji = await jsonOf(await call(app, "POST", "/api/v1/things", '{"label":"a\\ud83d\\ude00b"}'));
    assert.equal(emoji.status, 201);
    const shown = await jsonOf(await call(app, "GET", `/api/v1/things/${emoji.body.id}`));
    assert.equal(shown.body.label, "a\u{1F600}b");
  });

  test("null means no value for an optional field, as responses show it: sending GET's body back works", async () => {
    const created = await jsonOf(await call(app, "POST", "/api/v1/things", { label: "n", due: null }));
    assert.deepEqual([created.status, created.body.due], [201, null]);
    const id = created.body.id;
    const things = app.db.collection("things");
    assert.equal("due" in (await things.findOne({ _id: id }))!, false, "nothing stored for null");
    await call(app, "PATCH", `/api/v1/things/${id}`, { due: "2030-01-02T00:00:00.000Z" });
    const cleared = await jsonOf(await call(app, "PATCH", `/api/v1/things/${id}`, { due: null }));
    assert.deepEqual([cleared.status, cleared.body.due], [200, null]);
    assert.equal("due" in (await things.findOne({ _id: id }))!, false, "PATCH with null removed the field");
    const { body } = await jsonOf(await call(app, "GET", `/api/v1/things/${id}`));
    const { id: _id, created_at: _c, updated_at: _u, deleted_at: _d, ...writable } = body;
    assert.equal((await call(app, "PUT", `/api/v1/things/${id}`, writable)).status, 200);
    const required = await jsonOf(await call(app, "PATCH", `/api/v1/things/${id}`, { label: null }));
    assert.deepEqual([required.status, required.body.errors.label], [400, ["The label field must be a string."]]);
  });

  test("a deeply nested value in a typed field is a 400 too", async () => {
    const res = await jsonOf(await call(app, "POST", "/api/v1/things", `{"label":${nested(100_000)}}`));
    assert.equal(res.status, 400);
    assert.match(res.body.errors.label[0], /nested more than 100 levels/);
  });

  test("numbers a record cannot hold exactly are refused", async () => {
    const huge = await jsonOf(await call(app, "POST", "/api/v1/things", '{"label":"a","size":1e400}'));
    assert.deepEqual(huge.body.errors.size, ["The size field holds a number that is too large."]);
    const unsafe = await jsonOf(await call(app, "POST", "/api/v1/things", '{"label":"a","size":9007199254740993}'));
    assert.match(unsafe.body.errors.size[0], /would lose precision/);
  });

  test("defaults fill missing fields and do not make them required", async () => {
    const res = await jsonOf(await call(app, "POST", "/api/v1/things", { label: "d" }));
    assert.equal(res.status, 201);
    assert.equal(res.body.size, 5);
  });

  test("date fields take ISO strings, are stored as dates and come back as ISO strings", async () => {
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/things", { label: "due", due: "2026-03-04T05:06:07.089Z" }),
    );
    assert.equal(res.status, 201);
    assert.equal(res.body.due, "2026-03-04T05:06:07.089Z");
    const stored = await app.db.collection("things").findOne({ _id: res.body.id });
    assert.ok(stored?.due instanceof Date);
    const bad = await jsonOf(await call(app, "POST", "/api/v1/things", { label: "x", due: "next tuesday" }));
    assert.match(bad.body.errors.due[0], /must be a date in ISO 8601 form/);
  });

  test("a body the client stops sending is a 400, not a server error", async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 0) controller.enqueue(new TextEncoder().encode('{"label":'));
        else controller.error(new Error("connection reset by peer"));
      },
    });
    const request = new Request(
      "http://localhost/api/v1/things",
      { method: "POST", body, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit,
    );
    const res = await jsonOf(await app.fetch(request));
    assert.deepEqual([res.status, res.body], [400, { error: "The request body could not be read to the end." }]);
  });

  test("a body an adapter cut off at its own limit is a 413, not a server error", async () => {
    const body = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new BodyLimitError(64)) });
    const request = new Request(
      "http://localhost/api/v1/things",
      { method: "POST", body, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit,
    );
    const res = await jsonOf(await app.fetch(request));
    assert.deepEqual([res.status, res.body], [413, {
      error: "The request body is larger than the limit of 64 bytes.",
    }]);
  });

  test("writes reach live records only: a second DELETE or a PATCH of a trashed record is a 404", async () => {
    const { body } = await jsonOf(await call(app, "POST", "/api/v1/things", { label: "t" }));
    assert.equal((await call(app, "DELETE", `/api/v1/things/${body.id}`)).status, 204);
    const deletedAt = (await app.db.collection("things").findOne({ _id: body.id }))?.deleted_at;
    assert.equal((await call(app, "DELETE", `/api/v1/things/${body.id}`)).status, 404);
    assert.equal((await call(app, "PATCH", `/api/v1/things/${body.id}`, { label: "u" })).status, 404);
    // trashed=true cannot reach it either: writes take no trashed parameter at all.
    assert.equal((await call(app, "DELETE", `/api/v1/things/${body.id}?trashed=true`)).status, 400);
    assert.equal((await call(app, "PATCH", `/api/v1/things/${body.id}?trashed=true`, { label: "u" })).status, 400);
    const after = await app.db.collection("things").findOne({ _id: body.id });
    assert.deepEqual([after?.deleted_at, after?.label], [deletedAt, "t"]);
  });

  test("trashed must be true or false, and every parameter but the list-valued ones may appear once", async () => {
    const maybe = await jsonOf(await call(app, "GET", "/api/v1/things?trashed=maybe"));
    assert.deepEqual([maybe.status, maybe.body], [400, {
      error: 'The trashed parameter must be true or false; received "maybe".',
    }]);
    for (const query of ["page=&page=2", "trashed=true&trashed=true", "per_page=1&per_page=1", "q={}&q={}"]) {
      const res = await jsonOf(await call(app, "GET", `/api/v1/things?${query}`));
      assert.equal(res.status, 400, query);
      assert.match(res.body.error, /may be given only once/);
    }
    // fields, with and sort are lists: a repeat adds to the list, as exploded form-style arrays send them.
    assert.equal((await call(app, "POST", "/api/v1/things", { label: "listed" })).status, 201);
    const repeated = await jsonOf(await call(app, "GET", "/api/v1/things?fields=id&fields=label&sort=-label&sort=id"));
    const joined = await jsonOf(await call(app, "GET", "/api/v1/things?fields=id,label&sort=-label,id"));
    assert.equal(repeated.status, 200);
    assert.deepEqual(repeated.body, joined.body);
    assert.deepEqual(Object.keys(repeated.body.data[0]), ["id", "label"]);
  });
});

describe("hidden fields and ownership on writes", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 2);
  });
  after(() => app.close());

  test("PUT-ing back what GET returned keeps hidden fields", async () => {
    const { body } = await jsonOf(await call(app, "GET", "/api/v1/users/1"));
    const { id: _id, created_at: _c, updated_at: _u, ...writable } = body;
    assert.equal((await call(app, "PUT", "/api/v1/users/1", writable)).status, 200);
    assert.equal((await app.db.collection("users").findOne({ _id: 1 as never }))?.password, "secret");
  });

  test("PUT works on a model with a required hidden field, without the client sending or learning it", async () => {
    const Account = defineModel({
      name: "Account",
      fields: { name: string(), token_hash: string() },
      hidden: ["token_hash"],
    });
    const accounts = await createApp({ models: [Account] });
    try {
      await accounts.db.collection("accounts").insertOne({ _id: 1 as never, name: "A", token_hash: "h", _rev: 1 });
      const { body } = await jsonOf(await call(accounts, "GET", "/api/v1/accounts/1"));
      const put = await jsonOf(await call(accounts, "PUT", "/api/v1/accounts/1", { name: body.name }));
      assert.deepEqual([put.status, put.body.name, "token_hash" in put.body], [200, "A", false]);
      const stored = await accounts.db.collection("accounts").findOne({ _id: 1 as never });
      assert.equal(stored?.token_hash, "h");
    } finally {
      await accounts.close();
    }
  });

  test("an owner cannot hand a post to another user", async () => {
    const post = await jsonOf(
      await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Mine" }, { "x-user-id": "1" }),
    );
    for (const [method, body] of [["PATCH", { user_id: 2 }], ["PUT", { user_id: 2, title: "Yours" }]] as const) {
      const res = await jsonOf(await call(app, method, `/api/v1/posts/${post.body.id}`, body, { "x-user-id": "1" }));
      assert.deepEqual([res.status, res.body], [403, { error: "You can only change your own posts." }], method);
    }
    assert.equal((await jsonOf(await call(app, "GET", `/api/v1/posts/${post.body.id}`))).body.user_id, 1);
  });
});
