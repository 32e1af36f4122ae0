import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { ApiError, type App, createApp, defineModel, type ModelHooks } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

describe("all twelve hooks", () => {
  const Task = defineModel({ name: "Task", fields: { owner: string(), title: string() } });
  const calls: string[] = [];
  const hooks: ModelHooks = {
    onBeforePaginate(ctx) {
      calls.push("onBeforePaginate");
      const owner = ctx.request.headers.get("x-owner");
      if (owner) ctx.query.filters.push({ owner });
    },
    onAfterPaginate(ctx) {
      calls.push("onAfterPaginate");
      ctx.result!.data = ctx.result!.data.map((task) => ({ ...task, listed: true }));
    },
    onBeforeShow: () => void calls.push("onBeforeShow"),
    onAfterShow: () => void calls.push("onAfterShow"),
    onBeforeInsert(ctx) {
      calls.push("onBeforeInsert");
      ctx.body.owner ??= ctx.request.headers.get("x-owner") ?? undefined;
    },
    onAfterInsert: () => void calls.push("onAfterInsert"),
    onBeforeUpdate(ctx) {
      calls.push("onBeforeUpdate");
      ctx.body.title = String(ctx.body.title).toUpperCase();
    },
    onAfterUpdate(ctx) {
      calls.push("onAfterUpdate");
      ctx.result = { ...ctx.result, previous: "replaced" };
    },
    onBeforePatch: () => void calls.push("onBeforePatch"),
    onAfterPatch: () => void calls.push("onAfterPatch"),
    onBeforeDelete(ctx) {
      calls.push("onBeforeDelete");
      if (ctx.item.title === "KEEP") throw new ApiError("This task is protected.", 423);
    },
    onAfterDelete: () => void calls.push("onAfterDelete"),
  };
  let app: App;
  before(async () => {
    app = await createApp({ models: [Task], hooks: { Task: hooks } });
  });
  after(() => app.close());

  test("a before-insert hook can fill the body before validation", async () => {
    const res = await jsonOf(await call(app, "POST", "/api/v1/tasks", { title: "a" }, { "x-owner": "ann" }));
    assert.equal(res.status, 201);
    assert.equal(res.body.owner, "ann");
    await call(app, "POST", "/api/v1/tasks", { title: "b", owner: "bob" });
    assert.deepEqual(calls.splice(0), ["onBeforeInsert", "onAfterInsert", "onBeforeInsert", "onAfterInsert"]);
  });

  test("a before-paginate hook adds conditions; an after-paginate hook changes the result", async () => {
    const res = await jsonOf(await call(app, "GET", "/api/v1/tasks", undefined, { "x-owner": "bob" }));
    assert.deepEqual(res.body.data.map((t: { owner: string; listed: boolean }) => [t.owner, t.listed]), [[
      "bob",
      true,
    ]]);
    assert.equal(res.body.pagination.total, 1, "the count honours the hook's filter too");
    assert.deepEqual(calls.splice(0), ["onBeforePaginate", "onAfterPaginate"]);
  });

  test("show, update, patch and delete hooks run in order and can change the outcome", async () => {
    await call(app, "GET", "/api/v1/tasks/1");
    const put = await jsonOf(await call(app, "PUT", "/api/v1/tasks/1", { owner: "ann", title: "keep" }));
    assert.equal(put.body.title, "KEEP", "the before-update hook changed the body");
    assert.equal(put.body.previous, "replaced", "the after-update hook changed the result");
    await call(app, "PATCH", "/api/v1/tasks/2", { title: "c" });
    const refused = await jsonOf(await call(app, "DELETE", "/api/v1/tasks/1"));
    assert.deepEqual([refused.status, refused.body], [423, { error: "This task is protected." }]);
    assert.equal((await call(app, "GET", "/api/v1/tasks/1")).status, 200, "a cancelled delete deletes nothing");
    assert.equal((await call(app, "DELETE", "/api/v1/tasks/2")).status, 204);
    assert.deepEqual(calls.splice(0), [
      "onBeforeShow",
      "onAfterShow",
      "onBeforeUpdate",
      "onAfterUpdate",
      "onBeforePatch",
      "onAfterPatch",
      "onBeforeDelete",
      "onBeforeShow",
      "onAfterShow",
      "onBeforeDelete",
      "onAfterDelete",
    ]);
  });
});
