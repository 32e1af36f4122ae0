import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CommandStartedEvent, type Db, type Document, MongoClient } from "mongodb";
import { type EmbeddedEngine, startEmbeddedEngine } from "../../src/embedded/mod.ts";
import type { Model } from "../../src/model/define.ts";
import { type ApiRecord, toRecord } from "../../src/model/serialize.ts";
import type { QueryLimits } from "../../src/query/limits.ts";
import { parseWith } from "../../src/query/with.ts";
import { attachRelations } from "../../src/handlers/relations.ts";
import type { RelationRead } from "../../src/plan/read.ts";
import { ResponseBudget } from "../../src/query/budget.ts";
import { relationReads } from "../../src/query/compile.ts";
import type { WithNode } from "../../src/query/with.ts";
import { DataStore } from "../../src/store/data-store.ts";
import { RecordStore } from "../../src/store/records.ts";
import { limits, Post, registry, User } from "./models.ts";

let engine: EmbeddedEngine;
let client: MongoClient;
let db: Db;
const commands: string[] = [];
const at = new Date("2024-01-01T00:00:00Z");
const stamp = (doc: Document) => ({ ...doc, created_at: at, updated_at: at });

before(async () => {
  engine = await startEmbeddedEngine();
  client = new MongoClient(engine.uri, { monitorCommands: true });
  client.on("commandStarted", (event: CommandStartedEvent) => commands.push(event.commandName));
  await client.connect();
  db = client.db("relations_test");
  await db.collection("users").insertMany([
    { _id: 1, name: "Ann", team_id: 10, password: "h1" },
    { _id: 2, name: "Bob", team_id: 10, password: "h2" },
    { _id: 3, name: "Cy", team_id: null, password: "h3" },
    { _id: 4, name: "Dee", team_id: 99, password: "h4" },
  ].map(stamp));
  await db.collection("teams").insertMany([{ _id: 10, name: "Red" }, { _id: 11, name: "Blue" }].map(stamp));
  // Inserted out of id order, so id order must come from the query, not insertion order.
  await db.collection("posts").insertMany([
    { _id: 13, user_id: 1, title: "p13", secret: "s" },
    { _id: 11, user_id: 1, title: "p11", secret: "s" },
    { _id: 12, user_id: 1, title: "p12", secret: "s" },
    { _id: 21, user_id: 2, title: "p21", secret: "s" },
    { _id: 90, user_id: 77, title: "orphan", secret: "s" },
    { _id: 91, title: "no owner", secret: "s" },
    { _id: 22, user_id: 2, title: "hidden-by-scope", secret: "s" },
  ].map(stamp));
  await db.collection("comments").insertMany([
    { _id: 102, post_id: 11, content: "c102" },
    { _id: 101, post_id: 11, content: "c101" },
    { _id: 103, post_id: 21, content: "c103" },
    { _id: 104, post_id: 22, content: "c104" },
  ].map(stamp));
  await db.collection("likes").insertMany([{ _id: 1001, comment_id: 101, stars: 5 }].map(stamp));
  await db.collection("profiles").insertMany([
    { _id: 502, user_id: 1, bio: "second" },
    { _id: 501, user_id: 1, bio: "first" },
    { _id: 503, user_id: 2, bio: "bob" },
  ].map(stamp));
});

after(async () => {
  await client?.close();
  await engine?.close();
});

const noScope = () => ({});

/** The reads of `with`, each level within `scope` of its model (the handlers use the model's read scope) and the relation's filter. */
function scoped(reads: RelationRead<WithNode>[], scope: (m: Model) => Document): RelationRead<WithNode>[] {
  return reads.map((read) => ({
    ...read,
    filters: [scope(read.source.model), read.source.relation.filter ?? {}],
    children: scoped([...read.children], scope),
  }));
}

/** Loads `with` for the given parents the way the handlers do (compile, the store's reads, attach), counting driver commands. */
async function load(
  model: Model,
  collection: string,
  ids: number[],
  raw: string,
  opts: { limits?: QueryLimits; scope?: (m: Model) => Document } = {},
) {
  const docs = await db.collection(collection).find({ _id: { $in: ids } } as Document).sort({ _id: 1 }).toArray();
  const records: ApiRecord[] = docs.map((doc) => toRecord(model, doc, ["id"]));
  const lim = opts.limits ?? limits;
  const stores = new Map(
    [...registry.values()].map((
      m,
    ) => [m.name, new RecordStore(db, m.collection, { bounds: m, timeMs: lim.queryTimeMs })]),
  );
  const data = new DataStore(db, stores);
  const reads = scoped(relationReads(parseWith(raw, model, registry, lim), lim, false), opts.scope ?? noScope);
  commands.length = 0;
  const loaded = await data.loadRelations(docs, reads, { budget: new ResponseBudget(lim), beforeLevel: () => {} });
  attachRelations(records, loaded);
  return { records, commands: [...commands] };
}

describe("loadRelations", () => {
  test("hasMany: every parent gets its children in id order, [] when it has none", async () => {
    const { records } = await load(User, "users", [1, 2, 3], "posts{title}");
    assert.deepEqual(records, [
      { id: 1, posts: [{ title: "p11" }, { title: "p12" }, { title: "p13" }] },
      { id: 2, posts: [{ title: "p21" }, { title: "hidden-by-scope" }] },
      { id: 3, posts: [] },
    ]);
  });

  test("hasMany is capped per parent (first N by id), not per page", async () => {
    const { records } = await load(User, "users", [1, 2], "posts{id}", {
      limits: { ...limits, maxChildrenPerParent: 2 },
    });
    assert.deepEqual(records.map((r) => r.posts), [[{ id: 11 }, { id: 12 }], [{ id: 21 }, { id: 22 }]]);
  });

  test("hasOne gives the lowest-id child or null", async () => {
    const { records } = await load(User, "users", [1, 2, 3], "profile{bio}");
    assert.deepEqual(records.map((r) => r.profile), [{ bio: "first" }, { bio: "bob" }, null]);
  });

  test("belongsTo gives the owner or null (null key, dangling key); a shared owner is loaded once", async () => {
    const { records, commands } = await load(User, "users", [1, 2, 3, 4], "team{name}");
    assert.deepEqual(records.map((r) => r.team), [{ name: "Red" }, { name: "Red" }, null, null]);
    assert.deepEqual(commands, ["find"]);
  });

  test("belongsTo from the child side, with every visible field and no hidden one", async () => {
    const { records } = await load(Post, "posts", [11, 90, 91], "user");
    assert.deepEqual(records.map((r) => r.user), [
      {
        id: 1,
        name: "Ann",
        surname: null,
        age: null,
        score: null,
        active: null,
        born: null,
        tags: null,
        team_id: 10,
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
      },
      null,
      null,
    ]);
  });

  test("hidden fields of children never appear, even when all fields are returned", async () => {
    const { records } = await load(User, "users", [1], "posts");
    const posts = records[0].posts as ApiRecord[];
    assert.equal(posts.length, 3);
    for (const post of posts) {
      assert.deepEqual(Object.keys(post), ["id", "user_id", "title", "body", "created_at", "updated_at"]);
    }
    const team = await load(User, "users", [1], "team{members}");
    const members = (team.records[0].team as { members: ApiRecord[] }).members;
    assert.deepEqual(members.map((m) => m.id), [1, 2]);
    for (const member of members) assert.equal("password" in member, false);
  });

  test("join keys are fetched for nesting and removed unless asked for", async () => {
    const { records } = await load(User, "users", [1], "posts{title|comments{content}}");
    assert.deepEqual(records[0].posts, [
      { title: "p11", comments: [{ content: "c101" }, { content: "c102" }] },
      { title: "p12", comments: [] },
      { title: "p13", comments: [] },
    ]);
    const asked = await load(User, "users", [1], "posts{id|user_id|title|comments{post_id}}");
    assert.deepEqual((asked.records[0].posts as ApiRecord[])[0], {
      id: 11,
      user_id: 1,
      title: "p11",
      comments: [{ post_id: 11 }, { post_id: 11 }],
    });
  });

  test("one query per relation node for the whole page, never per record", async () => {
    assert.deepEqual((await load(User, "users", [1, 2, 3], "posts{comments}")).commands, ["aggregate", "aggregate"]);
    assert.deepEqual((await load(User, "users", [1, 2, 3], "posts{comments{likes}}")).commands, [
      "aggregate",
      "aggregate",
      "aggregate",
    ]);
    const mixed = await load(User, "users", [1, 2, 3, 4], "posts{user{team}},profile,team");
    assert.deepEqual(mixed.commands.sort(), ["aggregate", "aggregate", "find", "find", "find"]);
  });

  test("no parents or no join keys: no query at all, and empty results", async () => {
    assert.deepEqual((await load(User, "users", [], "posts{comments}")).commands, []);
    const keyless = await load(User, "users", [3], "team");
    assert.deepEqual(keyless.commands, []);
    assert.deepEqual(keyless.records, [{ id: 3, team: null }]);
  });

  test("deep results: likes under comments under posts", async () => {
    const { records } = await load(User, "users", [1], "posts{comments{likes{stars}}}");
    const posts = records[0].posts as { comments: { likes: unknown[] }[] }[];
    assert.deepEqual(posts[0].comments.map((c) => c.likes), [[{ stars: 5 }], []]);
  });

  test("scope(model) is ANDed into every child query", async () => {
    const seen: string[] = [];
    const scope = (model: Model) => {
      seen.push(model.name);
      return model.name === "Post" ? { title: { $ne: "hidden-by-scope" } } : {};
    };
    const { records } = await load(User, "users", [2], "posts{title|comments{content}}", { scope });
    assert.deepEqual(records[0].posts, [{ title: "p21", comments: [{ content: "c103" }] }]);
    assert.deepEqual(seen.sort(), ["Comment", "Post"]);
  });
});
