/**
 * A `null` for an optional field reaches every before-hook and the write, as without hooks:
 * PATCH with `{"body": null}` removes the value whether or not the model has a hook.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { optional, string } from "superstruct";
import { createApp, defineHooks, defineModel, type ModelHooks } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Note = defineModel({ name: "Note", fields: { title: string(), body: optional(string()) } });

for (const hooked of [false, true]) {
  test(`PATCH null removes the value ${hooked ? "with" : "without"} before-hooks, which see the null`, async () => {
    const seen: Record<string, unknown>[] = [];
    const record = (ctx: { body: Record<string, unknown> }) => void seen.push({ ...ctx.body });
    const hooks: Record<string, ModelHooks> = hooked
      ? { Note: defineHooks({ onBeforePatch: record, onBeforeUpdate: record }) }
      : {};
    const app = await createApp({ models: [Note], hooks });
    try {
      await call(app, "POST", "/api/v1/notes", { title: "t", body: "b" });
      const patched = await jsonOf(await call(app, "PATCH", "/api/v1/notes/1", { body: null }));
      assert.equal(patched.status, 200);
      assert.equal(patched.body.body, null);
      const put = await jsonOf(await call(app, "PUT", "/api/v1/notes/1", { title: "u", body: null }));
      assert.deepEqual([put.status, put.body.title, put.body.body], [200, "u", null]);
      const stored = await app.db.collection("notes").findOne({});
      assert.equal(stored?.body, undefined, "removed from the stored record");
      if (hooked) assert.deepEqual(seen, [{ body: null }, { title: "u", body: null }]);
    } finally {
      await app.close();
    }
  });
}

test("GET → PUT: read-only fields sent back unchanged are accepted; a changed one is a 400 naming it", async () => {
  const app = await createApp({ models: [Note] });
  try {
    await call(app, "POST", "/api/v1/notes", { title: "t", body: "b" });
    const shown = await jsonOf(await call(app, "GET", "/api/v1/notes/1"));
    const put = await jsonOf(await call(app, "PUT", "/api/v1/notes/1", { ...shown.body, title: "u" }));
    assert.deepEqual([put.status, put.body.title, put.body.id], [200, "u", 1]);
    const patched = await jsonOf(await call(app, "PATCH", "/api/v1/notes/1", { ...put.body, body: "c" }));
    assert.deepEqual([patched.status, patched.body.body], [200, "c"]);
    const moved = await jsonOf(await call(app, "PUT", "/api/v1/notes/1", { ...patched.body, id: 2 }));
    assert.equal(moved.status, 400);
    assert.deepEqual(Object.keys(moved.body.errors), ["id"]);
    assert.deepEqual(moved.body.errors.id, ["The id field is read-only."]);
    const stamped = { ...patched.body, created_at: "2020-01-01T00:00:00.000Z" };
    assert.equal((await call(app, "PATCH", "/api/v1/notes/1", stamped)).status, 400);
  } finally {
    await app.close();
  }
});
