import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Document } from "mongodb";
import { type App, createApp } from "../../src/mod.ts";
import { Comment, Like, Post, Profile, Team, Trashable, User } from "./models.ts";

// Proves the relation loader's cost: one query per relation level for the whole page,
// counted from the commands the driver actually sends (command monitoring).
let app: App;
// Counts are kept apart: the list's count is reused until its collection is next written, so
// whether a request sends one depends on the requests before it (tests/app/counts.test.ts).
const sent: { name: string; collection: unknown }[] = [];
let counts = 0;
const isCount = (event: CommandStartedEvent) =>
  event.commandName === "aggregate" && (event.command.pipeline as Document[]).some((stage) => "$group" in stage);
const at = new Date("2024-01-01T00:00:00Z");
/** The collection a command reads its records from: a hasMany/hasOne level's aggregate starts from the parents and reads its `$lookup`'s. */
function readCollection(event: CommandStartedEvent): unknown {
  const lookup = event.commandName === "aggregate"
    ? (event.command.pipeline as Document[]).find((stage) => "$lookup" in stage)
    : undefined;
  return lookup ? lookup.$lookup.from : event.command[event.commandName];
}

before(async () => {
  app = await createApp({
    models: [User, Post, Comment, Like, Profile, Team, Trashable],
    clientOptions: { monitorCommands: true },
  });
  app.client.on("commandStarted", (event: CommandStartedEvent) => {
    if (isCount(event)) counts++;
    else sent.push({ name: event.commandName, collection: readCollection(event) });
  });
  const users: Document[] = [];
  const posts: Document[] = [];
  const comments: Document[] = [];
  for (let u = 1; u <= 30; u++) {
    users.push({ _id: u, name: `user${u}`, created_at: at, updated_at: at });
    for (let p = 1; p <= 3; p++) {
      const postId = u * 10 + p;
      posts.push({ _id: postId, user_id: u, title: `post${postId}`, created_at: at, updated_at: at });
      for (let c = 1; c <= 2; c++) {
        comments.push({ _id: postId * 10 + c, post_id: postId, content: `c${c}`, created_at: at, updated_at: at });
      }
    }
  }
  await app.db.collection(User.collection).insertMany(users);
  await app.db.collection(Post.collection).insertMany(posts);
  await app.db.collection(Comment.collection).insertMany(comments);
});
after(() => app?.close());

// deno-lint-ignore no-explicit-any -- response bodies of any shape, checked field by field
async function commandsFor(path: string): Promise<{ body: any; commands: typeof sent }> {
  sent.length = 0;
  counts = 0;
  const response = await app.fetch(new Request(`http://localhost/api/v1/${path}`));
  assert.equal(response.status, 200, await response.clone().text());
  assert.ok(counts <= 1, `at most one count per list, got ${counts}`);
  return { body: await response.json(), commands: [...sent] };
}

describe("relation loading sends one query per level, never one per record", () => {
  test("a page of 10 users with=posts{comments}: data, posts, comments = 3 commands besides the count", async () => {
    const { body, commands } = await commandsFor("users?per_page=10&with=posts{comments}");
    assert.equal(body.data.length, 10);
    assert.equal(body.data[0].posts.length, 3);
    assert.equal(body.data[0].posts[0].comments.length, 2);
    assert.equal(commands.length, 3, JSON.stringify(commands));
    assert.deepEqual(commands.filter((c) => c.collection === Post.collection).length, 1);
    assert.deepEqual(commands.filter((c) => c.collection === Comment.collection).length, 1);
  });

  test("the count does not grow with the page size", async () => {
    const { body, commands } = await commandsFor("users?per_page=30&with=posts{comments}");
    assert.equal(body.data.length, 30);
    assert.equal(commands.length, 3, JSON.stringify(commands));
  });

  test("without with, the same page costs 1 command besides the count", async () => {
    assert.equal((await commandsFor("users?per_page=10")).commands.length, 1);
  });

  test("sibling and nested relations add one command each", async () => {
    const { commands } = await commandsFor("users?per_page=10&with=posts{comments{post},user},profile");
    // data, posts, comments, comments.post, posts.user, profile
    assert.equal(commands.length, 6, JSON.stringify(commands));
  });

  test("SHOW with=posts{comments} costs 3 commands", async () => {
    const { body, commands } = await commandsFor("users/7?with=posts{comments}");
    assert.equal(body.posts.length, 3);
    assert.equal(commands.length, 3, JSON.stringify(commands));
  });

  test("hasMany then belongsTo from the child side: data, comments, comments.post besides the count", async () => {
    const { commands } = await commandsFor("posts?per_page=10&with=comments{post}");
    assert.equal(commands.length, 3, JSON.stringify(commands));
  });

  test("an empty page sends no relation query", async () => {
    const empty = await commandsFor(`users?q=${encodeURIComponent('{"id":999}')}&with=posts{comments}`);
    assert.equal(empty.commands.length, 1, JSON.stringify(empty.commands));
  });
});
