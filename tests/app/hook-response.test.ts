/** Hooks shape the successful response (headers, a 2xx status), and force deletes have their own hooks. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { string } from "superstruct";
import { type App, createApp, defineModel, type ModelHooks } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Job = defineModel({ name: "Job", fields: { name: string() }, softDelete: true });

const calls: string[] = [];
const record = (name: string) => () => void calls.push(name);

const jobHooks: ModelHooks = {
  onBeforeInsert(ctx) {
    ctx.headers.set("x-queued-by", "before-hook");
  },
  onAfterInsert(ctx) {
    ctx.status = 202;
    ctx.headers.set("location", `/api/v1/jobs/${ctx.item!.id}`);
  },
  onAfterShow(ctx) {
    if (ctx.request.headers.get("x-want") === "no-content") ctx.status = 204;
    if (ctx.request.headers.get("x-want") === "error-status") ctx.status = 500;
    if (ctx.request.headers.get("x-want") === "length") ctx.headers.set("content-length", "1");
    ctx.headers.set("x-shown", String(ctx.id));
  },
  onAfterPaginate(ctx) {
    ctx.headers.set("x-total", String(ctx.result!.pagination.total));
  },
  onAfterPatch(ctx) {
    ctx.headers.set("etag", '"from-hook"');
  },
  onBeforeDelete: record("onBeforeDelete"),
  onAfterDelete(ctx) {
    calls.push("onAfterDelete");
    ctx.status = 200;
    ctx.headers.set("x-deleted", String(ctx.id));
  },
  onBeforeForceDelete: record("onBeforeForceDelete"),
  onAfterForceDelete: record("onAfterForceDelete"),
};

let app: App;
before(async () => {
  app = await createApp({ models: [Job], hooks: { Job: jobHooks } });
});
after(async () => await app.close());

test("an after-hook sets the status and headers of a created record; a before-hook's header stays", async () => {
  const res = await call(app, "POST", "/api/v1/jobs", { name: "build" });
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("location"), "/api/v1/jobs/1");
  assert.equal(res.headers.get("x-queued-by"), "before-hook");
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal((await res.json()).name, "build");
});

test("reads carry hook headers next to the framework's, and a 204 from a hook sends no body", async () => {
  const list = await call(app, "GET", "/api/v1/jobs");
  assert.equal(list.status, 200);
  assert.equal(list.headers.get("x-total"), "1");
  const show = await call(app, "GET", "/api/v1/jobs/1");
  assert.equal(show.headers.get("x-shown"), "1");
  assert.ok(show.headers.get("etag"));
  const empty = await call(app, "GET", "/api/v1/jobs/1", undefined, { "x-want": "no-content" });
  assert.equal(empty.status, 204);
  assert.equal(await empty.text(), "");
  assert.equal(empty.headers.get("content-type"), null);
});

test("a header the framework also sets is replaced by the hook's", async () => {
  const res = await call(app, "PATCH", "/api/v1/jobs/1", { name: "rebuild" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("etag"), '"from-hook"');
});

test("a status outside 2xx or a framework-only header is a programming error, not a response", async () => {
  await assert.rejects(call(app, "GET", "/api/v1/jobs/1", undefined, { "x-want": "error-status" }), {
    name: "TypeError",
    message: "Hook of model Job set status 500; a successful response needs a 2xx (throw ApiError for an error)",
  });
  await assert.rejects(call(app, "GET", "/api/v1/jobs/1", undefined, { "x-want": "length" }), {
    name: "TypeError",
    message: "Hook of model Job set content-length, which only the framework sets",
  });
});

test("DELETE runs the delete hooks only; DELETE …/force runs the force-delete hooks only", async () => {
  calls.length = 0;
  const soft = await call(app, "DELETE", "/api/v1/jobs/1");
  assert.equal(soft.status, 200, "the after-hook's status");
  assert.equal(soft.headers.get("x-deleted"), "1");
  assert.deepEqual(calls, ["onBeforeDelete", "onAfterDelete"]);
  calls.length = 0;
  const force = await call(app, "DELETE", "/api/v1/jobs/1/force");
  assert.equal(force.status, 204);
  assert.equal(force.headers.get("x-deleted"), null);
  assert.deepEqual(calls, ["onBeforeForceDelete", "onAfterForceDelete"]);
  assert.equal((await jsonOf(await call(app, "GET", "/api/v1/jobs/1?trashed=true"))).status, 404);
});
