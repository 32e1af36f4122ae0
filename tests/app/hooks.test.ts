import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { optional, string } from "superstruct";
import { type App, createApp, defineModel, type HookContext } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

describe("example Post hooks", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 2);
  });
  after(() => app.close());

  test("a post can only be written as yourself", async () => {
    const anonymous = await jsonOf(await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Hi" }));
    assert.equal(anonymous.status, 403);
    assert.deepEqual(anonymous.body, { error: "You can only write posts as yourself." });
    const other = await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Hi" }, { "x-user-id": "2" });
    assert.equal(other.status, 403);
    const own = await jsonOf(
      await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Hi" }, { "x-user-id": "1" }),
    );
    assert.equal(own.status, 201);
    assert.equal(own.body.user_id, 1);
  });
});

describe("hook contexts", () => {
  const Note = defineModel({ name: "Note", fields: { text: string(), tag: optional(string()) }, hidden: ["tag"] });
  const seen: Record<string, HookContext & Record<string, unknown>> = {};
  const record = (name: string) => async (ctx: HookContext) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    seen[name] = { ...ctx } as never;
  };
  let app: App;
  before(async () => {
    app = await createApp({
      models: [Note],
      hooks: {
        Note: {
          onBeforeInsert: async (ctx) => {
            await record("onBeforeInsert")(ctx);
            ctx.body.text = String(ctx.body.text).trim();
          },
          onAfterInsert: record("onAfterInsert"),
          onBeforePaginate: record("onBeforePaginate"),
          onAfterPaginate: record("onAfterPaginate"),
          onBeforeShow: record("onBeforeShow"),
          onAfterShow: async (ctx) => {
            await record("onAfterShow")(ctx);
            ctx.result = { ...ctx.result, ...ctx.item, shown: true };
          },
        },
      },
    });
  });
  after(() => app.close());

  test("insert hooks get request, model and body, may be async and may change the body", async () => {
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/notes", { text: "  hello  ", tag: "secret" }, { "x-test": "1" }),
    );
    assert.equal(res.status, 201);
    assert.equal(res.body.text, "hello");
    assert.equal(seen.onBeforeInsert.request.headers.get("x-test"), "1");
    assert.equal(seen.onBeforeInsert.model, Note);
    assert.deepEqual(seen.onAfterInsert.result, res.body);
    assert.equal((seen.onAfterInsert.item as { tag: string }).tag, "secret");
  });

  test("paginate hooks see the planned query, then the result", async () => {
    const res = await jsonOf(await call(app, "GET", "/api/v1/notes?per_page=5"));
    assert.equal((seen.onBeforePaginate.query as { perPage: number }).perPage, 5);
    assert.deepEqual(seen.onAfterPaginate.result, res.body);
  });

  test("show hooks get params and id; an after-hook's result is sent without hidden fields", async () => {
    const res = await jsonOf(await call(app, "GET", "/api/v1/notes/1"));
    assert.deepEqual(seen.onBeforeShow.params, { id: "1" });
    assert.equal(seen.onBeforeShow.id, 1);
    assert.equal(res.body.shown, true);
    assert.ok(!("tag" in res.body), "hidden field put back by a hook is removed");
  });

  test("unknown hook names and models are refused at start-up", async () => {
    await assert.rejects(
      createApp({ models: [Note], hooks: { Note: { onBeforeSave() {} } as never } }),
      /Hooks of model Note: unknown key "onBeforeSave"; allowed keys: onBeforePaginate, /,
    );
    await assert.rejects(createApp({ models: [Note], hooks: { Nope: {} } }), /unknown model Nope/);
  });
});

describe("switching handlers off", () => {
  test("a disabled handler's route is a 404; a method no handler serves is a 405", async () => {
    const Log = defineModel({ name: "AuditLog", fields: { line: string() }, handlers: { insert: false, show: false } });
    const app = await createApp({ models: [Log] });
    try {
      assert.equal((await call(app, "GET", "/api/v1/audit-logs")).status, 200);
      const post = await call(app, "POST", "/api/v1/audit-logs", { line: "x" });
      assert.equal(post.status, 404);
      assert.equal(typeof (await post.json()).error, "string");
      assert.equal((await call(app, "GET", "/api/v1/audit-logs/1")).status, 404);
      const put = await call(app, "PUT", "/api/v1/audit-logs", { line: "x" });
      assert.equal(put.status, 405);
      assert.equal(put.headers.get("allow"), "OPTIONS, GET, HEAD");
      assert.match((await put.json()).error, /PUT method is not allowed/);
      const Hidden = defineModel({
        name: "Secret",
        fields: { x: string() },
        handlers: { paginate: false, insert: false, show: false, update: false, patch: false, delete: false },
      });
      const other = await createApp({ models: [Hidden] });
      try {
        const res = await call(other, "GET", "/api/v1/secrets");
        assert.equal(res.status, 404);
        assert.equal(typeof (await res.json()).error, "string");
      } finally {
        await other.close();
      }
    } finally {
      await app.close();
    }
  });

  test("Content-Language follows the app's setting", async () => {
    const Tag = defineModel({ name: "Tag", fields: { label: string() } });
    const app = await createApp({ models: [Tag], language: "de" });
    try {
      assert.equal((await call(app, "GET", "/api/v1/tags")).headers.get("content-language"), "de");
      assert.equal((await call(app, "GET", "/api/v1/tags/9")).headers.get("content-language"), "de");
    } finally {
      await app.close();
    }
  });
});

describe("start-up checks", () => {
  test("a bad query limit is refused before anything starts", async () => {
    const Tag = defineModel({ name: "Tag", fields: { label: string() } });
    await assert.rejects(createApp({ models: [Tag], limits: { maxDepth: 0 } }), /maxDepth must be a positive integer/);
  });

  test("a hidden foreign key still attaches its relation", async () => {
    const Owner = defineModel({ name: "Owner", fields: { name: string() } });
    const Pet = defineModel({
      name: "Pet",
      fields: { owner_id: optional(string()), name: string() },
      hidden: ["owner_id"],
      relations: { owner: { type: "belongsTo", model: "Owner", foreignKey: "owner_id" } },
    });
    const app = await createApp({ models: [Owner, Pet] });
    try {
      await call(app, "POST", "/api/v1/owners", { name: "Ann" });
      await app.db.collection("pets").insertOne({ _id: 1 as never, name: "Rex", owner_id: 1 });
      const { body } = await jsonOf(await call(app, "GET", "/api/v1/pets?with=owner"));
      assert.equal(body.data[0].owner?.name, "Ann");
      assert.ok(!("owner_id" in body.data[0]), "the hidden key is still not sent");
    } finally {
      await app.close();
    }
  });
});
