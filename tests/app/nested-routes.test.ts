/**
 * Nested routes follow relations: named after the relation, with item routes scoped to the
 * parent, at every level, with a per-relation switch and start-up checks for collisions.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { optional, string } from "superstruct";
import { type App, createApp, defineModel, id } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Member = defineModel({
  name: "Member",
  fields: { name: string() },
  softDelete: true,
  relations: {
    ownedPosts: { type: "hasMany", model: "Article", foreignKey: "owner_id" },
    suggestedPosts: { type: "hasMany", model: "Article", foreignKey: "suggester_id" },
    notes: { type: "hasMany", model: "Note", foreignKey: "member_id", routes: false },
  },
});
const Article = defineModel({
  name: "Article",
  fields: { owner_id: id(), suggester_id: optional(id()), title: string() },
  softDelete: true,
  relations: { comments: { type: "hasMany", model: "Remark", foreignKey: "article_id" } },
});
const Remark = defineModel({ name: "Remark", fields: { article_id: id(), text: string() } });
const Note = defineModel({ name: "Note", fields: { member_id: id(), text: string() } });

let app: App;
const base = "/api/v1";

before(async () => {
  app = await createApp({ models: [Member, Article, Remark, Note] });
  for (const name of ["Ada", "Bob"]) assert.equal((await call(app, "POST", `${base}/members`, { name })).status, 201);
});
after(async () => await app.close());

describe("routes named after relations", () => {
  test("two relations to one model each get their route, and POST fills that relation's key", async () => {
    const owned = await jsonOf(await call(app, "POST", `${base}/members/1/owned-posts`, { title: "Mine" }));
    assert.equal(owned.status, 201, JSON.stringify(owned.body));
    assert.equal(owned.body.owner_id, 1);
    assert.equal(owned.body.suggester_id, null);
    const suggested = await jsonOf(
      await call(app, "POST", `${base}/members/2/suggested-posts`, { title: "Try this", owner_id: 1 }),
    );
    assert.equal(suggested.status, 201, JSON.stringify(suggested.body));
    assert.deepEqual([suggested.body.owner_id, suggested.body.suggester_id], [1, 2]);
    const ownedBy1 = await jsonOf(await call(app, "GET", `${base}/members/1/owned-posts?fields=id`));
    assert.deepEqual(ownedBy1.body.data.map((r: { id: number }) => r.id), [1, 2]);
    const suggestedBy2 = await jsonOf(await call(app, "GET", `${base}/members/2/suggested-posts?fields=id`));
    assert.deepEqual(suggestedBy2.body.data.map((r: { id: number }) => r.id), [2]);
    assert.equal((await call(app, "GET", `${base}/members/1/suggested-posts`)).status, 200);
  });

  test("a relation with routes: false has no nested route, but still loads through with", async () => {
    const none = await jsonOf(await call(app, "GET", `${base}/members/1/notes`));
    assert.equal(none.status, 404);
    assert.match(none.body.error, /No route|not/i);
    assert.equal((await call(app, "POST", `${base}/members/1/notes`, { text: "x" })).status, 404);
    assert.equal((await call(app, "GET", `${base}/members/1?with=notes`)).status, 200);
  });
});

describe("nested item routes", () => {
  test("GET, PUT, PATCH and DELETE reach the parent's own records; another parent's record is a 404", async () => {
    const bobs = await jsonOf(await call(app, "POST", `${base}/members/2/owned-posts`, { title: "Bob's" }));
    const theirs = `${base}/members/1/owned-posts/${bobs.body.id}`;
    for (
      const [method, body] of [["GET"], ["PUT", { title: "taken" }], ["PATCH", { title: "taken" }], ["DELETE"]] as const
    ) {
      const res = await jsonOf(await call(app, method, theirs, body));
      assert.equal(res.status, 404, `${method} ${theirs}`);
      assert.equal(res.body.error, "The item is not found on Article.");
    }
    assert.equal((await call(app, "DELETE", `${theirs}/force`)).status, 404);
    assert.equal(
      (await jsonOf(await call(app, "GET", `${base}/articles/${bobs.body.id}`))).body.title,
      "Bob's",
      "unchanged",
    );

    const mine = `${base}/members/1/owned-posts/1`;
    assert.equal((await jsonOf(await call(app, "GET", mine))).body.title, "Mine");
    const patched = await jsonOf(await call(app, "PATCH", mine, { title: "Mine, edited", owner_id: 2 }));
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.title, patched.body.owner_id], ["Mine, edited", 1], "the path sets the foreign key");
    const replaced = await jsonOf(await call(app, "PUT", mine, { title: "Replaced" }));
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.deepEqual([replaced.body.title, replaced.body.owner_id], ["Replaced", 1]);
  });

  test("DELETE soft-deletes under the parent; trashed=true shows it; /force removes it", async () => {
    const made = await jsonOf(await call(app, "POST", `${base}/members/1/owned-posts`, { title: "Short-lived" }));
    const item = `${base}/members/1/owned-posts/${made.body.id}`;
    assert.equal((await call(app, "DELETE", item)).status, 204);
    assert.equal((await call(app, "GET", item)).status, 404);
    assert.equal((await call(app, "GET", `${item}?trashed=true`)).status, 200);
    assert.equal((await call(app, "DELETE", `${base}/members/2/owned-posts/${made.body.id}/force`)).status, 404);
    assert.equal((await call(app, "DELETE", `${item}/force`)).status, 204);
    assert.equal((await call(app, "GET", `${item}?trashed=true`)).status, 404);
  });

  test("path parameters are checked before any ancestor is looked up", async () => {
    const bad = await jsonOf(await call(app, "GET", `${base}/members/999/owned-posts/1?fields=nope`));
    assert.equal(bad.status, 400, "a bad parameter wins over a missing ancestor");
    const notAnId = await jsonOf(await call(app, "GET", `${base}/members/x/owned-posts/1`));
    assert.deepEqual(notAnId, { status: 404, body: { error: "The item is not found on Member." } });
  });
});

describe("deeper nesting", () => {
  test("/members/1/owned-posts/1/comments and /comments/:id check every ancestor", async () => {
    const made = await jsonOf(await call(app, "POST", `${base}/members/1/owned-posts/1/comments`, { text: "First" }));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.article_id, 1);
    const list = await jsonOf(await call(app, "GET", `${base}/members/1/owned-posts/1/comments`));
    assert.deepEqual(list.body.data.map((r: { text: string }) => r.text), ["First"]);
    const one = await jsonOf(await call(app, "GET", `${base}/members/1/owned-posts/1/comments/${made.body.id}`));
    assert.equal(one.body.text, "First");
    // Article 1 is Ada's, not Bob's: the chain breaks at the article.
    const wrong = await jsonOf(await call(app, "GET", `${base}/members/2/owned-posts/1/comments/${made.body.id}`));
    assert.deepEqual(wrong, { status: 404, body: { error: "The item is not found on Article." } });
    assert.equal((await call(app, "POST", `${base}/members/2/owned-posts/1/comments`, { text: "Sneaky" })).status, 404);
    const patched = await call(app, "PATCH", `${base}/members/1/owned-posts/1/comments/${made.body.id}`, {
      text: "Edited",
    });
    assert.equal(patched.status, 200);
  });

  test("a trashed ancestor hides its descendants unless trashed=true, and writes under it are 404s", async () => {
    const carl = await jsonOf(await call(app, "POST", `${base}/members`, { name: "Carl" }));
    const post = await jsonOf(
      await call(app, "POST", `${base}/members/${carl.body.id}/owned-posts`, { title: "Carl's" }),
    );
    const comments = `${base}/members/${carl.body.id}/owned-posts/${post.body.id}/comments`;
    const before = await jsonOf(await call(app, "POST", comments, { text: "Before" }));
    assert.equal(before.status, 201);
    assert.equal((await call(app, "DELETE", `${base}/members/${carl.body.id}`)).status, 204);
    assert.deepEqual(await jsonOf(await call(app, "GET", comments)), {
      status: 404,
      body: { error: "The item is not found on Member." },
    });
    const trashed = await jsonOf(await call(app, "GET", `${comments}?trashed=true`));
    assert.equal(trashed.status, 200);
    assert.equal(trashed.body.data.length, 1);
    assert.equal((await call(app, "GET", `${comments}/${before.body.id}`)).status, 404);
    assert.equal((await call(app, "GET", `${comments}/${before.body.id}?trashed=true`)).status, 200);
    assert.equal((await call(app, "POST", comments, { text: "After" })).status, 404);
    assert.equal((await call(app, "PATCH", `${comments}/${before.body.id}`, { text: "After" })).status, 404);
    // A write takes no trashed (it reaches live records only): asking for it is a 400 that names it.
    assert.equal((await call(app, "POST", `${comments}?trashed=true`, { text: "After" })).status, 400);
    assert.equal(
      (await call(app, "PATCH", `${comments}/${before.body.id}?trashed=true`, { text: "After" })).status,
      400,
    );
  });
});

describe("start-up checks and the old URL", () => {
  const Writer = defineModel({
    name: "Writer",
    fields: { name: string() },
    relations: { writtenPosts: { type: "hasMany", model: "Story", foreignKey: "writer_id" } },
  });
  const Story = defineModel({ name: "Story", fields: { writer_id: id(), title: string() } });

  test("the old child-route URL keeps working while unambiguous, for list and create", async () => {
    const legacy = await createApp({ models: [Writer, Story] });
    try {
      await call(legacy, "POST", `${base}/writers`, { name: "W" });
      const made = await jsonOf(await call(legacy, "POST", `${base}/writers/1/stories`, { title: "Old URL" }));
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.writer_id, 1);
      assert.equal((await jsonOf(await call(legacy, "GET", `${base}/writers/1/stories`))).body.data.length, 1);
      assert.equal((await jsonOf(await call(legacy, "GET", `${base}/writers/1/written-posts`))).body.data.length, 1);
      assert.equal(
        (await call(legacy, "GET", `${base}/writers/1/stories/1`)).status,
        404,
        "item routes only under the relation's name",
      );
      assert.equal((await call(legacy, "GET", `${base}/writers/1/written-posts/1`)).status, 200);
      const doc = await (await call(legacy, "GET", `${base}/openapi.json`)).json();
      assert.equal(doc.paths["/api/v1/writers/{writerId}/stories"].get.deprecated, true);
      assert.equal(doc.paths["/api/v1/writers/{writerId}/written-posts"].get.deprecated, undefined);
    } finally {
      await legacy.close();
    }
  });

  test("with two relations to one model there is no old URL: it would be ambiguous", async () => {
    assert.equal((await call(app, "GET", `${base}/members/1/articles`)).status, 404);
  });

  test("relations whose routes collide stop start-up with one TypeError naming both", async () => {
    const Clash = defineModel({
      name: "Clash",
      fields: { name: string() },
      relations: {
        ownedPosts: { type: "hasMany", model: "Story", foreignKey: "writer_id" },
        owned_posts: { type: "hasMany", model: "Story", foreignKey: "writer_id" },
      },
    });
    await assert.rejects(createApp({ models: [Clash, Story] }), {
      name: "TypeError",
      message:
        'Model Clash: relations "ownedPosts" and "owned_posts" both give the nested route /clashes/:clashId/owned-posts; rename one or set routes: false on one',
    });
    const Forced = defineModel({
      name: "Forced",
      fields: { name: string() },
      softDelete: true,
      relations: { force: { type: "hasMany", model: "Story", foreignKey: "writer_id" } },
    });
    await assert.rejects(createApp({ models: [Forced, Story] }), {
      name: "TypeError",
      message: /relation "force" gives \/forceds\/:id\/force/,
    });
  });

  test("routes is a hasMany switch: on another relation, or not a boolean, it is a TypeError", () => {
    const define = (rel: Record<string, unknown>) => () =>
      defineModel({ name: "Odd", fields: { writer_id: id() }, relations: { writer: rel as never } });
    assert.throws(
      define({ type: "belongsTo", model: "Writer", foreignKey: "writer_id", routes: false }),
      /Model Odd, relation writer: routes must be true or false, and only hasMany/,
    );
    assert.throws(
      define({ type: "hasMany", model: "Writer", foreignKey: "writer_id", routes: "no" }),
      /routes must be true or false/,
    );
  });
});
