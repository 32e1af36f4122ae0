import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { boolean, integer, optional, string } from "superstruct";
import type { CommandStartedEvent, Document } from "mongodb";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { mulberry32 } from "../helpers/random.ts";

// `with=posts` reads about parents × cap children, whatever a parent holds: one user with
// thousands of posts costs its 100 shown. Every aggregate a page sends is replayed through
// explain (executionStats) and its `$lookup` must have read at most cap + 1 index entries per
// parent, without a collection scan. Seeded data (RELATION_READS_SEED); failures name the seed.
const SEED = Number(process.env.RELATION_READS_SEED ?? 20_261_125);
const CAP = 100;
const random = mulberry32(SEED);
const BIG = 2500 + Math.floor(random() * 1000);
console.log(`relation-reads seed ${SEED}: user 1 has ${BIG} posts`);

const User = defineModel({
  name: "User",
  fields: { name: string() },
  relations: {
    posts: { type: "hasMany", model: "Post", foreignKey: "user_id" },
    latest: { type: "hasMany", model: "Post", foreignKey: "user_id", sort: { rank: -1 }, limit: 3 },
    pinned: { type: "hasOne", model: "Post", foreignKey: "user_id", filter: { pinned: true } },
  },
});

const Post = defineModel({
  name: "Post",
  fields: { user_id: integer(), title: string(), rank: optional(integer()), pinned: optional(boolean()) },
  softDelete: true,
  relations: { comments: { type: "hasMany", model: "Comment", foreignKey: "post_id" } },
  // The relation reads: equality on the foreign key, then the relation's order.
  indexes: [{ keys: { user_id: 1, _id: 1 } }, { keys: { user_id: 1, rank: -1, _id: 1 } }],
});

const Comment = defineModel({
  name: "Comment",
  fields: { post_id: integer(), text: string() },
  indexes: [{ keys: { post_id: 1, _id: 1 } }],
});

const at = new Date("2025-01-01T00:00:00Z");
const stamp = (doc: Document): Document => ({ ...doc, created_at: at, updated_at: at });

/** Users 1..12: user 1 with BIG posts (a few soft-deleted among the first), the others with 0-4; post 1 with 300 comments. */
function seed(): { users: Document[]; posts: Document[]; comments: Document[] } {
  const users = Array.from({ length: 12 }, (_, i) => stamp({ _id: i + 1, name: `u${i + 1}` }));
  const posts: Document[] = [];
  let id = 0;
  const post = (userId: number) => {
    const doc: Document = { _id: ++id, user_id: userId, title: `p${id}`, rank: Math.floor(random() * 1000) };
    if (random() < 0.01) doc.pinned = true;
    if (userId === 1 && id > 1 && id < 60 && random() < 0.05) doc.deleted_at = at;
    posts.push(stamp(doc));
  };
  for (let i = 0; i < BIG; i++) {
    post(1);
    // The others' posts come between user 1's, so no user's posts are one stretch of ids.
    if (random() < 0.01) post(2 + Math.floor(random() * 11));
  }
  for (let u = 2; u <= 12; u++) for (let n = Math.floor(random() * 5); n > 0; n--) post(u);
  const comments = Array.from(
    { length: 300 },
    (_, i) => stamp({ _id: i + 1, post_id: i % 7 === 0 ? 2 : 1, text: `c${i}` }),
  );
  return { users, posts, comments };
}

let app: App;
let aggregates: Document[] = [];
const data = seed();

before(async () => {
  app = await createApp({
    models: [User, Post, Comment],
    responseCache: false,
    clientOptions: { monitorCommands: true },
  });
  app.client.on("commandStarted", (event: CommandStartedEvent) => {
    // The relation levels' aggregates, not the page's count (countDocuments is an aggregate too).
    const { commandName, command } = event;
    if (commandName === "aggregate" && !command.pipeline.some((stage: Document) => "$group" in stage)) {
      aggregates.push(structuredClone(command));
    }
  });
  await app.db.collection("users").insertMany(data.users);
  await app.db.collection("posts").insertMany(data.posts);
  await app.db.collection("comments").insertMany(data.comments);
});
after(() => app?.close());

async function get(path: string): Promise<Document> {
  aggregates = [];
  const response = await app.fetch(new Request(`http://localhost${path}`));
  const body = await response.json();
  assert.equal(response.status, 200, `seed ${SEED}: ${path}: ${JSON.stringify(body)}`);
  return body;
}

/** What the relation shows, computed with plain finds: the first `cap` live matches in the relation's order. */
async function expected(
  collection: string,
  filter: Document,
  sort: Document,
  cap: number,
): Promise<number[]> {
  const docs = await app.db.collection(collection).find({ ...filter, deleted_at: null }).sort(sort).limit(cap)
    .toArray();
  return docs.map((doc) => doc._id as unknown as number);
}

/** The `$lookup` stage of an aggregate the app sent, replayed with explain. */
async function lookupWork(sent: Document): Promise<Document> {
  const explained = await app.db.command({
    explain: { aggregate: sent.aggregate, pipeline: sent.pipeline, cursor: {} },
    verbosity: "executionStats",
  });
  const stage = (explained.stages as Document[] | undefined)?.find((s) => "$lookup" in s);
  assert.ok(stage, `seed ${SEED}: a $lookup stage in ${JSON.stringify(explained)}`);
  return stage;
}

/** Asserts the read bound of one sent aggregate: at most cap + 1 keys per parent, no collection scan. */
async function assertBounded(sent: Document, parents: number, cap: number): Promise<void> {
  const stage = await lookupWork(sent);
  const where = `seed ${SEED}: ${JSON.stringify(sent.pipeline)}: ${JSON.stringify(stage)}`;
  assert.ok(stage.totalKeysExamined <= parents * (cap + 1), where);
  assert.ok(stage.totalDocsExamined <= parents * (cap + 1), where);
  assert.equal(stage.collectionScans, 0, where);
}

describe("with: a capped relation reads about parents × cap children", () => {
  test("with=posts: the same capped children in id order, one aggregate, a bounded read", async () => {
    const body = await get("/api/v1/users?per_page=20&with=posts{id|title}");
    assert.equal(body.data.length, 12);
    for (const user of body.data) {
      const ids = await expected("posts", { user_id: user.id }, { _id: 1 }, CAP);
      assert.deepEqual(user.posts.map((p: Document) => p.id), ids, `seed ${SEED}: user ${user.id}`);
    }
    assert.equal(body.data[0].posts.length, CAP);
    assert.equal(aggregates.length, 1, "one aggregate for the level");
    assert.equal(aggregates[0].aggregate, "users", "the read starts from the parents");
    await assertBounded(aggregates[0], 12, CAP);
  });

  test("a relation's sort and limit, and a hasOne with a filter: the same children, bounded reads", async () => {
    const body = await get("/api/v1/users?per_page=20&with=latest{id},pinned{id}");
    for (const user of body.data) {
      const latest = await expected("posts", { user_id: user.id }, { rank: -1, _id: 1 }, 3);
      assert.deepEqual(user.latest.map((p: Document) => p.id), latest, `seed ${SEED}: user ${user.id} latest`);
      const [pinned] = await expected("posts", { user_id: user.id, pinned: true }, { _id: 1 }, 1);
      assert.deepEqual(
        user.pinned,
        pinned === undefined ? null : { id: pinned },
        `seed ${SEED}: user ${user.id} pinned`,
      );
    }
    assert.equal(aggregates.length, 2);
    const latest = aggregates.find((sent) => sent.pipeline[1].$lookup.pipeline.some((s: Document) => s.$limit === 3));
    assert.ok(latest);
    await assertBounded(latest, 12, 3);
  });

  test("posts{comments}: one aggregate per level, each bounded by its parents", async () => {
    const body = await get("/api/v1/users?per_page=2&with=posts{id|comments{id}}");
    const [first] = body.data[0].posts;
    const comments = await expected("comments", { post_id: first.id }, { _id: 1 }, CAP);
    assert.deepEqual(first.comments.map((c: Document) => c.id), comments, `seed ${SEED}: post ${first.id}`);
    assert.equal(first.comments.length, CAP);
    assert.equal(aggregates.length, 2, "one aggregate per level");
    const [posts, nested] = aggregates;
    const postCount = body.data.reduce((n: number, user: Document) => n + user.posts.length, 0);
    await assertBounded(posts, 2, CAP);
    await assertBounded(nested, postCount, CAP);
  });
});
