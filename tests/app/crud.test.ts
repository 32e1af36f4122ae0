import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

const as = (user: number) => ({ "x-user-id": String(user) });

describe("UPDATE, PATCH and DELETE with the Post ownership hooks", () => {
  let app: App;
  let postId: number;
  let now = Date.UTC(2026, 0, 1);
  before(async () => {
    app = await exampleApp({ clock: () => new Date(now++) }); // every write a millisecond later, no waiting
    await seedUsers(app, 2);
    postId =
      (await (await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "First", body: "text" }, as(1))).json()).id;
  });
  after(() => app.close());

  test("PUT replaces every writable field and refreshes updated_at", async () => {
    const before = (await jsonOf(await call(app, "GET", `/api/v1/posts/${postId}`))).body;
    const { status, body } = await jsonOf(
      await call(app, "PUT", `/api/v1/posts/${postId}`, { user_id: 1, title: "Second" }, as(1)),
    );
    assert.equal(status, 200);
    assert.equal(body.title, "Second");
    assert.equal(body.body, null, "a field left out of a PUT is removed");
    assert.equal(body.created_at, before.created_at);
    assert.ok(body.updated_at > before.updated_at);
    assert.deepEqual((await jsonOf(await call(app, "GET", `/api/v1/posts/${postId}`))).body, body);
  });

  test("PUT validates like INSERT: the fields sent before the hooks, the required ones after", async () => {
    const { status, body } = await jsonOf(await call(app, "PUT", `/api/v1/posts/${postId}`, { title: 5 }, as(1)));
    assert.equal(status, 400);
    assert.deepEqual(body.errors, { title: ["The title field must be a string."] });
    const missing = await jsonOf(await call(app, "PUT", `/api/v1/posts/${postId}`, { title: "T" }, as(1)));
    assert.deepEqual(missing, { status: 400, body: { errors: { user_id: ["The user_id field is required."] } } });
  });

  test("PATCH changes only the fields sent and validates them", async () => {
    const { status, body } = await jsonOf(
      await call(app, "PATCH", `/api/v1/posts/${postId}`, { body: "new body" }, as(1)),
    );
    assert.equal(status, 200);
    assert.equal(body.title, "Second");
    assert.equal(body.body, "new body");
    const bad = await jsonOf(await call(app, "PATCH", `/api/v1/posts/${postId}`, { title: null, id: 3 }, as(1)));
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors, {
      title: ["The title field must be a string."],
      id: ["The id field is read-only."],
    });
  });

  test("only the owner may change or delete a post", async () => {
    for (
      const [method, body] of [["PUT", { user_id: 2, title: "x" }], ["PATCH", { title: "x" }], [
        "DELETE",
        undefined,
      ]] as const
    ) {
      const res = await jsonOf(await call(app, method, `/api/v1/posts/${postId}`, body, as(2)));
      assert.equal(res.status, 403, method);
      assert.deepEqual(res.body, { error: "You can only change your own posts." });
    }
    assert.equal((await jsonOf(await call(app, "GET", `/api/v1/posts/${postId}`))).body.title, "Second");
  });

  test("a missing id is the spec's 404 for every verb", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const res = await jsonOf(await call(app, method, "/api/v1/posts/999", { title: "x" }, as(1)));
      assert.equal(res.status, 404, method);
      assert.deepEqual(res.body, { error: "The item is not found on Post." });
    }
  });

  test("DELETE answers 204 with an empty body, and the record is gone", async () => {
    const res = await call(app, "DELETE", `/api/v1/posts/${postId}`, undefined, as(1));
    assert.equal(res.status, 204);
    assert.equal(await res.text(), "");
    assert.equal((await call(app, "GET", `/api/v1/posts/${postId}`)).status, 404);
  });

  test("ids are never reused after a delete", async () => {
    const next = await jsonOf(await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Again" }, as(1)));
    assert.equal(next.body.id, postId + 1);
  });
});

describe("nested hasMany routes", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 2);
  });
  after(() => app.close());

  test("POST /users/:id/posts sets the parent key from the path", async () => {
    const res = await jsonOf(await call(app, "POST", "/api/v1/users/2/posts", { title: "Mine" }, as(2)));
    assert.equal(res.status, 201);
    assert.equal(res.body.user_id, 2);
    await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Other" }, as(1));
  });

  test("GET /users/:id/posts lists only that user's posts", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users/2/posts"));
    assert.equal(status, 200);
    assert.deepEqual(body.data.map((p: { title: string }) => p.title), ["Mine"]);
    assert.equal(body.pagination.total, 1);
  });

  test("a missing parent is a 404 on the parent model", async () => {
    for (
      const [method, path] of [["GET", "/api/v1/users/77/posts"], ["POST", "/api/v1/users/77/posts"], [
        "GET",
        "/api/v1/users/x/posts",
      ]]
    ) {
      const res = await jsonOf(await call(app, method, path, method === "POST" ? { title: "t" } : undefined, as(77)));
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, { error: "The item is not found on User." });
    }
  });
});
