/**
 * Issue 12 from both sides at once: nested routes by relation (every level, item routes) with
 * the relation options `filter`, `sort` and `limit`; serializers on nested item routes; hook
 * headers and status next to Cache-Status.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { boolean, string } from "superstruct";
import { type App, createApp, defineModel, id } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Writer = defineModel({
  name: "Writer",
  fields: { name: string() },
  relations: {
    published: {
      type: "hasMany",
      model: "Story",
      foreignKey: "writer_id",
      filter: { status: "published" },
      sort: { title: 1 },
      limit: 2,
    },
    stories: { type: "hasMany", model: "Story", foreignKey: "writer_id" },
  },
});
const Story = defineModel({
  name: "Story",
  fields: { writer_id: id(), title: string(), status: string() },
  relations: {
    replies: {
      type: "hasMany",
      model: "Reply",
      foreignKey: "story_id",
      filter: { approved: true },
      sort: { text: -1 },
    },
  },
  serialize: (record) => ({ ...record, shout: typeof record.title === "string" ? record.title.toUpperCase() : null }),
});
const Reply = defineModel({ name: "Reply", fields: { story_id: id(), text: string(), approved: boolean() } });
// A model with show and paginate hooks that set headers and a status, and no serializer.
const Tag = defineModel({ name: "Tag", fields: { label: string() } });

let app: App;
const base = "/api/v1";
const ids: Record<string, number> = {};

async function post(path: string, body: unknown): Promise<number> {
  const res = await jsonOf(await call(app, "POST", `${base}${path}`, body));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

before(async () => {
  app = await createApp({
    models: [Writer, Story, Reply, Tag],
    hooks: {
      Tag: {
        onAfterShow(ctx) {
          ctx.headers.set("x-tag", String(ctx.item!.id));
          ctx.status = 203;
        },
        onAfterPaginate(ctx) {
          ctx.headers.set("cache-status", "custom; hit");
        },
      },
    },
  });
  ids.ada = await post("/writers", { name: "Ada" });
  ids.bob = await post("/writers", { name: "Bob" });
  ids.zeta = await post(`/writers/${ids.ada}/stories`, { title: "Zeta", status: "published" });
  ids.draft = await post(`/writers/${ids.ada}/stories`, { title: "Draft", status: "draft" });
  ids.alpha = await post(`/writers/${ids.ada}/stories`, { title: "Alpha", status: "published" });
  ids.mid = await post(`/writers/${ids.ada}/stories`, { title: "Mid", status: "published" });
  ids.ok = await post(`/writers/${ids.ada}/stories/${ids.zeta}/replies`, { text: "a fine story", approved: true });
  ids.spam = await post(`/writers/${ids.ada}/stories/${ids.zeta}/replies`, { text: "buy now", approved: false });
  ids.yes = await post(`/writers/${ids.ada}/stories/${ids.zeta}/replies`, { text: "yes", approved: true });
  ids.draftReply = await post(`/writers/${ids.ada}/stories/${ids.draft}/replies`, { text: "early", approved: true });
  ids.tag = await post("/tags", { label: "news" });
});
after(async () => await app.close());

describe("relation options on nested routes", () => {
  test("the nested list applies filter, sort and limit; per_page above the limit is a 400", async () => {
    const list = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}/published?fields=title`));
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.data.map((r: { title: string }) => r.title), ["Alpha", "Mid"]);
    assert.equal(list.body.pagination.perPage, 2);
    assert.equal(list.body.pagination.total, 3);
    const sorted = await jsonOf(
      await call(app, "GET", `${base}/writers/${ids.ada}/published?fields=title&sort=-title`),
    );
    assert.deepEqual(sorted.body.data.map((r: { title: string }) => r.title), ["Zeta", "Mid"]);
    const tooMany = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}/published?per_page=3`));
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error, /per_page.*1 to 2/);
    const all = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}/stories?fields=title&per_page=10`));
    assert.deepEqual(all.body.data.map((r: { title: string }) => r.title), ["Zeta", "Draft", "Alpha", "Mid"]);
  });

  test("item routes reach only what the relation's filter lets through; the unfiltered relation reaches all", async () => {
    const draft = `${base}/writers/${ids.ada}/published/${ids.draft}`;
    for (
      const [method, body] of [["GET"], ["PUT", { title: "x", status: "draft" }], ["PATCH", { title: "x" }], [
        "DELETE",
      ]] as const
    ) {
      const res = await jsonOf(await call(app, method, draft, body));
      assert.equal(res.status, 404, `${method} ${draft}`);
      assert.equal(res.body.error, "The item is not found on Story.");
    }
    const shown = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}/stories/${ids.draft}`));
    assert.equal(shown.status, 200);
    assert.equal(shown.body.title, "Draft");
    assert.equal((await call(app, "GET", `${base}/writers/${ids.ada}/published/${ids.zeta}`)).status, 200);
  });

  test("a deeper route is reached through the filtered relation: an ancestor it leaves out is a 404", async () => {
    const below = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}/published/${ids.draft}/replies`));
    assert.equal(below.status, 404);
    assert.equal(below.body.error, "The item is not found on Story.");
    const post = await jsonOf(
      await call(app, "POST", `${base}/writers/${ids.ada}/published/${ids.draft}/replies`, {
        text: "x",
        approved: true,
      }),
    );
    assert.equal(post.status, 404);
    const viaAll = await jsonOf(
      await call(app, "GET", `${base}/writers/${ids.ada}/stories/${ids.draft}/replies?fields=text`),
    );
    assert.deepEqual(viaAll.body.data, [{ id: ids.draftReply, text: "early" }]);
  });

  test("the second level applies its own relation's filter and sort, on the list and the item routes", async () => {
    const replies = await jsonOf(
      await call(app, "GET", `${base}/writers/${ids.ada}/published/${ids.zeta}/replies?fields=text`),
    );
    assert.equal(replies.status, 200, JSON.stringify(replies.body));
    assert.deepEqual(replies.body.data.map((r: { text: string }) => r.text), ["yes", "a fine story"]);
    const spam = `${base}/writers/${ids.ada}/published/${ids.zeta}/replies/${ids.spam}`;
    assert.equal((await call(app, "GET", spam)).status, 404);
    assert.equal((await call(app, "PATCH", spam, { text: "edited" })).status, 404);
    assert.equal((await call(app, "DELETE", spam)).status, 404);
    assert.equal((await app.db.collection("replies").findOne({ _id: ids.spam as never }))?.text, "buy now");
    assert.equal(
      (await call(app, "GET", `${base}/writers/${ids.ada}/published/${ids.zeta}/replies/${ids.ok}`)).status,
      200,
    );
  });

  test("with applies the same options as the nested list", async () => {
    const writer = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}?with=published{title}`));
    assert.deepEqual(writer.body.published.map((r: { title: string }) => r.title), ["Alpha", "Mid"]);
  });
});

describe("serializers on nested item routes", () => {
  test("SHOW, PATCH and POST under a parent answer the serialized record, and the ETag is of that body", async () => {
    const path = `${base}/writers/${ids.ada}/stories/${ids.mid}`;
    const shown = await call(app, "GET", path);
    const body = await shown.json();
    assert.equal(body.shout, "MID");
    const again = await call(app, "GET", path, undefined, { "if-none-match": shown.headers.get("etag")! });
    assert.equal(again.status, 304);
    const patched = await jsonOf(await call(app, "PATCH", path, { title: "Middle" }));
    assert.equal(patched.status, 200);
    assert.equal(patched.body.shout, "MIDDLE");
    const list = await jsonOf(await call(app, "GET", `${base}/writers/${ids.ada}/published?fields=title`));
    assert.ok(list.body.data.every((r: { shout: unknown }) => typeof r.shout === "string"));
  });

  test("If-Match takes the serialized ETag a SHOW or the last write sent; an outdated one is a 412", async () => {
    const path = `${base}/writers/${ids.ada}/stories/${ids.alpha}`;
    const shown = await call(app, "GET", path);
    const patched = await call(app, "PATCH", path, { title: "Alpha 2" }, { "if-match": shown.headers.get("etag")! });
    assert.equal(patched.status, 200, await patched.clone().text());
    const again = await call(app, "PATCH", path, { title: "Alpha 3" }, { "if-match": patched.headers.get("etag")! });
    assert.equal(again.status, 200);
    assert.equal(
      (await call(app, "PATCH", path, { title: "lost" }, { "if-match": shown.headers.get("etag")! })).status,
      412,
    );
    assert.equal(
      (await call(app, "PUT", path, { title: "Alpha", status: "published" }, {
        "if-match": again.headers.get("etag")!,
      })).status,
      200,
    );
  });

  test("a serialized model bypasses the response cache on nested routes too", async () => {
    const res = await call(app, "GET", `${base}/writers/${ids.ada}/stories/${ids.mid}`);
    assert.equal(res.headers.get("cache-status"), "mongorest; fwd=bypass; detail=serializer");
  });
});

describe("hook headers and status next to Cache-Status", () => {
  test("a show hook's header and 2xx reach the response with the bypass Cache-Status; its 304 keeps Cache-Status", async () => {
    const res = await call(app, "GET", `${base}/tags/${ids.tag}`);
    assert.equal(res.status, 203);
    assert.equal(res.headers.get("x-tag"), String(ids.tag));
    assert.equal(res.headers.get("cache-status"), "mongorest; fwd=bypass; detail=hooks");
    const revalidated = await call(app, "GET", `${base}/tags/${ids.tag}`, undefined, {
      "if-none-match": res.headers.get("etag")!,
    });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.headers.get("cache-status"), "mongorest; fwd=bypass; detail=hooks");
  });

  test("a Cache-Status a hook sets replaces the framework's, like any header the framework also sets", async () => {
    const res = await call(app, "GET", `${base}/tags`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-status"), "custom; hit");
  });

  test("a nested list without hooks or serializers is cached by URL, with its Link and Cache-Status", async () => {
    const path = `${base}/writers/${ids.ada}/stories/${ids.zeta}/replies?per_page=1`;
    const first = await call(app, "GET", path);
    assert.equal(first.headers.get("cache-status"), "mongorest; fwd=uri-miss; stored");
    const second = await call(app, "GET", path);
    assert.equal(second.headers.get("cache-status"), "mongorest; hit");
    assert.equal(second.headers.get("link"), first.headers.get("link"));
    // A write to an ancestor's collection outdates the page (the parent lookup read it).
    await call(app, "PATCH", `${base}/writers/${ids.ada}`, { name: "Ada L." });
    const third = await call(app, "GET", path);
    assert.equal(third.headers.get("cache-status"), "mongorest; fwd=stale; stored");
  });
});
