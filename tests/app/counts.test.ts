// deno-lint-ignore-file no-explicit-any -- response bodies are parsed JSON that the assertions walk
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Document } from "mongodb";
import { number, optional, string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Row = defineModel({ name: "Row", fields: { n: number(), tag: optional(string()) }, countLimit: 5 });
const Capped = defineModel({ name: "Capped", fields: { n: number() }, maxExactCount: 4, collection: "rows" });
const Quiet = defineModel({ name: "Quiet", fields: { n: number() }, defaultCount: "none", collection: "rows" });
const Tag = defineModel({ name: "Tag", fields: { name: string() } });
const Strict = defineModel({
  name: "Strict",
  fields: { name: string(), score: optional(number()), note: optional(string()) },
  sortable: ["name"],
  filterable: ["name", "score"],
});

/** What the driver sends while `run` runs: every command, and the counts among them. */
async function sentDuring(app: App, run: () => Promise<unknown>): Promise<{ commands: string[]; counts: number }> {
  const commands: string[] = [];
  let counts = 0;
  const listener = (event: CommandStartedEvent) => {
    commands.push(`${event.commandName} ${event.command[event.commandName]}`);
    const pipeline = event.command.pipeline as Document[] | undefined;
    if (event.commandName === "count" || pipeline?.some((stage) => "$group" in stage)) counts++;
  };
  app.client.on("commandStarted", listener);
  try {
    await run();
  } finally {
    app.client.off("commandStarted", listener);
  }
  return { commands, counts };
}

async function list(app: App, path: string): Promise<any> {
  const { status, body } = await jsonOf(await call(app, "GET", path));
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

describe("count strategies", () => {
  let app: App;
  before(async () => {
    app = await createApp({
      models: [Row, Capped, Quiet, Tag, Strict],
      responseCache: false,
      clientOptions: { monitorCommands: true },
    });
    await app.db.collection("rows").insertMany(
      Array.from({ length: 12 }, (_, i) => ({ _id: i + 1, n: i, tag: i % 2 ? "odd" : "even" })) as never[],
    );
  });
  after(() => app.close());

  test("count=exact is the default and says so", async () => {
    const { pagination } = await list(app, "/api/v1/rows?per_page=5");
    assert.deepEqual([pagination.total, pagination.lastPage, pagination.count], [12, 3, "exact"]);
    assert.equal((await list(app, "/api/v1/rows?count=exact")).pagination.count, "exact");
  });

  test("count=none sends no count, and total and lastPage are null", async () => {
    let body: any;
    const { counts } = await sentDuring(
      app,
      async () => (body = await list(app, "/api/v1/rows?count=none&q=%7B%22n.%24gt%22%3A3%7D")),
    );
    assert.equal(counts, 0);
    assert.deepEqual([body.pagination.total, body.pagination.lastPage, body.pagination.count], [null, null, "none"]);
    assert.equal(body.data.length, 8);
  });

  test("count=estimated: collection metadata without a filter, a count capped at countLimit with one", async () => {
    assert.deepEqual(pick((await list(app, "/api/v1/rows?count=estimated")).pagination), [12, "estimated"]);
    assert.deepEqual(pick((await list(app, "/api/v1/rows?count=estimated&q=%7B%22tag%22%3A%22odd%22%7D")).pagination), [
      5,
      "capped",
    ]);
    assert.deepEqual(pick((await list(app, "/api/v1/rows?count=estimated&q=%7B%22n.%24lt%22%3A5%7D")).pagination), [
      5,
      "exact",
    ], "exactly the limit is still exact");
    assert.deepEqual(pick((await list(app, "/api/v1/rows?count=estimated&q=%7B%22n.%24lt%22%3A2%7D")).pagination), [
      2,
      "exact",
    ]);
  });

  test("a model's maxExactCount caps exact counts, and its defaultCount applies without count", async () => {
    assert.deepEqual(pick((await list(app, "/api/v1/cappeds")).pagination), [4, "capped"]);
    assert.deepEqual(pick((await list(app, "/api/v1/cappeds?q=%7B%22n.%24lt%22%3A3%7D")).pagination), [3, "exact"]);
    assert.deepEqual(pick((await list(app, "/api/v1/quiets")).pagination), [null, "none"]);
    assert.deepEqual(pick((await list(app, "/api/v1/quiets?count=exact")).pagination), [12, "exact"]);
  });

  test("bad count values are 400s listing the allowed ones", async () => {
    for (const value of ["fast", "EXACT", "", "capped", "none,exact"]) {
      const { status, body } = await jsonOf(await call(app, "GET", `/api/v1/rows?count=${encodeURIComponent(value)}`));
      assert.equal(status, 400, value);
      assert.deepEqual(body, {
        error: `The count parameter must be one of exact, estimated, none; received "${value}".`,
      });
    }
    assert.equal((await call(app, "GET", "/api/v1/rows?count=none&count=exact")).status, 400);
  });

  test("a count is reused until its collection is written; writes to other collections leave it", async () => {
    const path = "/api/v1/rows?q=%7B%22tag%22%3A%22even%22%7D";
    await list(app, path);
    assert.equal((await sentDuring(app, () => list(app, path))).counts, 0, "the second identical list sends no count");
    await call(app, "POST", "/api/v1/tags", { name: "elsewhere" });
    assert.equal(
      (await sentDuring(app, () => list(app, path))).counts,
      0,
      "a write to tags does not evict the rows count",
    );
    await app.db.collection("rows").insertOne({ _id: 13, n: 12, tag: "even" } as never);
    let body: any;
    assert.equal((await sentDuring(app, async () => (body = await list(app, path)))).counts, 1, "a write to rows does");
    assert.equal(body.pagination.total, 7);
    await app.db.collection("rows").deleteOne({ _id: 13 as never });
    assert.equal((await list(app, path)).pagination.total, 6);
  });
});

describe("sortable and filterable", () => {
  let app: App;
  before(async () => {
    app = await createApp({ models: [Strict] });
  });
  after(() => app.close());

  test("a sort outside sortable is a 400 naming the allowed fields; id is always sortable", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/stricts?sort=-score,name"));
    assert.equal(status, 400);
    assert.deepEqual(body, { error: "Sorting on score is not allowed on Strict; sortable fields: id, name" });
    assert.equal((await call(app, "GET", "/api/v1/stricts?sort=name,-id")).status, 200);
  });

  test("a filter outside filterable is a 400 naming the allowed fields", async () => {
    const q = encodeURIComponent('[{"note":"x"},{"$or.name":"a"}]');
    const { status, body } = await jsonOf(await call(app, "GET", `/api/v1/stricts?q=${q}`));
    assert.equal(status, 400);
    assert.deepEqual(body, { error: "Filtering on note is not allowed on Strict; filterable fields: id, name, score" });
    assert.equal(
      (await call(app, "GET", `/api/v1/stricts?q=${encodeURIComponent('{"score.$gt":1,"id":2}')}`)).status,
      200,
    );
  });

  test("a model naming an unknown field in sortable fails at definition", () => {
    assert.throws(
      () => defineModel({ name: "Bad", fields: { a: string() }, sortable: ["b"] }),
      /sortable field "b" is not a visible field/,
    );
  });
});

function pick(pagination: { total: number | null; count: string }): [number | null, string] {
  return [pagination.total, pagination.count];
}

describe("response cache: evicted only by writes to the collections a body read", () => {
  const User = defineModel({
    name: "User",
    fields: { name: string() },
    relations: { posts: { type: "hasMany", model: "Post", foreignKey: "user_id" } },
  });
  const Post = defineModel({
    name: "Post",
    fields: { user_id: number(), title: string() },
    relations: { comments: { type: "hasMany", model: "Comment", foreignKey: "post_id" } },
  });
  const Comment = defineModel({ name: "Comment", fields: { post_id: number(), text: string() } });
  let app: App;
  before(async () => {
    app = await createApp({ models: [User, Post, Comment], clientOptions: { monitorCommands: true } });
    await call(app, "POST", "/api/v1/users", { name: "ann" });
    await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "t" });
  });
  after(() => app.close());

  test("a write to comments keeps cached users pages, but not those that include comments through with", async () => {
    const plain = "/api/v1/users?per_page=5";
    const nested = "/api/v1/users?with=posts{comments}";
    await call(app, "GET", plain);
    await call(app, "GET", nested);
    await call(app, "POST", "/api/v1/comments", { post_id: 1, text: "hi" });
    assert.deepEqual(
      (await sentDuring(app, () => call(app, "GET", plain))).commands,
      [],
      "users page served from the cache",
    );
    let body: any;
    const { commands } = await sentDuring(
      app,
      async () => (body = (await jsonOf(await call(app, "GET", nested))).body),
    );
    assert.ok(commands.length > 0, "the body with comments is read again");
    assert.equal(body.data[0].posts[0].comments[0].text, "hi");
    await call(app, "PATCH", "/api/v1/users/1", { name: "bea" });
    assert.equal(
      (await jsonOf(await call(app, "GET", plain))).body.data[0].name,
      "bea",
      "a write to users evicts the users page",
    );
  });
});
