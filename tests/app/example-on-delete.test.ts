/**
 * The example app's relations declare `onDelete: "cascade"` (users → posts → comments): deleting
 * a user through the API leaves none of its posts or their comments behind, and other users'
 * records untouched.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { call, jsonOf } from "../helpers/app.ts";
import { exampleAuth, exampleProjectApp } from "../helpers/example.ts";

test("deleting a user of the example app deletes its posts and their comments, and nobody else's", async () => {
  const app = await exampleProjectApp();
  try {
    for (const name of ["Ada", "Kurt"]) {
      const user = { name, surname: "X", email: `${name}@example.com`, password: "s3cret" };
      assert.equal((await call(app, "POST", "/api/v1/users", user)).status, 201);
    }
    for (const userId of [1, 2]) {
      const as = await exampleAuth(userId);
      for (let n = 0; n < 2; n++) {
        const post = await jsonOf(await call(app, "POST", "/api/v1/posts", { title: `p${n}` }, as));
        assert.equal(post.status, 201);
        assert.equal(post.body.user_id, userId, "written as the token's subject");
        const comment = { post_id: post.body.id, content: "hi" };
        assert.equal((await call(app, "POST", "/api/v1/comments", comment, as)).status, 201);
      }
    }
    // Only user 1 may delete user 1 (or an admin); the cascade then runs as the framework.
    assert.equal((await call(app, "DELETE", "/api/v1/users/1", undefined, await exampleAuth(2))).status, 404);
    assert.equal((await call(app, "DELETE", "/api/v1/users/1", undefined, await exampleAuth(1))).status, 204);
    const posts = (await jsonOf(await call(app, "GET", "/api/v1/posts?per_page=100"))).body.data;
    assert.deepEqual(posts.map((post: { user_id: number }) => post.user_id), [2, 2]);
    const comments = (await jsonOf(await call(app, "GET", "/api/v1/comments?per_page=100"))).body.data;
    const kept = new Set(posts.map((post: { id: number }) => post.id));
    assert.equal(comments.length, 2);
    for (const comment of comments) assert.ok(kept.has(comment.post_id), `comment of post ${comment.post_id}`);
  } finally {
    await app.close();
  }
});
