/** The seeder: valid records through the real driver, ids in line with the API's counters, repeatable. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { App } from "../../src/mod.ts";
import { seedExampleApp } from "../../scripts/seed-data.ts";
import { call } from "../helpers/app.ts";
import { exampleProjectApp } from "../helpers/example.ts";

let app: App;
before(async () => {
  app = await exampleProjectApp(); // the app the seeder is for: models/ and its rules
});
after(async () => await app.close());

const counts = { users: 30, postsPerUser: 2, commentsPerPost: 3 };

test("seeds users, their posts and the posts' comments in batches, reporting progress", async () => {
  let reported = 0;
  const first = await seedExampleApp(app, counts, { batchSize: 7, onProgress: (n) => (reported += n) });
  assert.deepEqual(first, { User: 1, Post: 1, Comment: 1 });
  assert.equal(reported, 30 + 60 + 180);
  const users = await (await call(app, "GET", "/api/v1/users?per_page=1")).json();
  assert.equal(users.pagination.total, 30);
  assert.equal(users.data[0].password, undefined);
  const posts = await (await call(app, "GET", "/api/v1/users/30/posts?with=comments")).json();
  assert.deepEqual(posts.data.map((post: { id: number }) => post.id), [59, 60]);
  assert.equal(posts.data[1].comments.length, 3);
  const comments = await (await call(app, "GET", "/api/v1/comments?per_page=1")).json();
  assert.equal(comments.pagination.total, 180);
  assert.ok(comments.data[0].user_id >= 1 && comments.data[0].user_id <= 30, "each comment has a writer");
});

test("the API's next id follows the seeded block, and a second run continues with unique emails", async () => {
  const created = await call(app, "POST", "/api/v1/users", { email: "new@example.com", name: "New", surname: "User" });
  assert.equal((await created.json()).id, 31);
  const first = await seedExampleApp(app, { users: 5, postsPerUser: 1, commentsPerPost: 0 });
  assert.equal(first.User, 32);
  const emails = await app.db.collection("users").distinct("email");
  assert.equal(emails.length, 36);
});

test("the same seed makes the same people", async () => {
  const other = await exampleProjectApp();
  try {
    await seedExampleApp(other, { users: 3, postsPerUser: 0, commentsPerPost: 0 });
    const names = async (a: App) =>
      (await (await call(a, "GET", "/api/v1/users?per_page=3&fields=name,surname")).json()).data;
    assert.deepEqual(await names(other), await names(app));
  } finally {
    await other.close();
  }
});
