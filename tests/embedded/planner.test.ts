import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { planStats } from "../../src/embedded/query/plan.ts";
import { type Connected, connectTarget, externalUri } from "./helpers.ts";

const N = 3000;
const USERS = 100;

/** Work the engine's reads do while `run` runs (the engine shares this process). */
async function work<T>(run: () => Promise<T>): Promise<{ result: T; examined: number; sorted: number }> {
  const [examined, sorted] = [planStats.examined, planStats.sorted];
  const result = await run();
  return { result, examined: planStats.examined - examined, sorted: planStats.sorted - sorted };
}

/** Which documents a read looks at: index lookups instead of scans, no needless sorting. */
describe(
  "embedded engine: query planning",
  { skip: externalUri !== undefined && "counts the engine's own work" },
  () => {
    let conn: Connected;
    const posts = Array.from({ length: N }, (_, i) => ({ _id: i, user_id: i % USERS, title: `post ${i}` }));

    before(async () => {
      conn = await connectTarget("planner");
      const c = conn.db.collection("posts");
      await c.createIndex({ user_id: 1 });
      await c.insertMany(posts as Document[]);
    });
    after(async () => {
      await conn.close();
    });

    test("conditions inside a top-level $and narrow the read through an index, as the framework sends them", async () => {
      const c = conn.db.collection("posts");
      const filter = { $and: [{ user_id: 2 }, { title: { $regex: "^post 1" } }] };
      const expected = posts.filter((p) => p.user_id === 2 && p.title.startsWith("post 1")).map((p) => p._id);
      const { result, examined } = await work(() => c.find(filter as Document).toArray());
      assert.deepEqual(result.map((d) => d._id), expected);
      assert.ok(examined <= N / USERS, `${examined} documents examined`);

      const byId = await work(() =>
        c.find({ $and: [{ $and: [{ _id: { $in: [7, 5, 9000] } }] }, { title: /post/ }] } as Document).toArray()
      );
      assert.deepEqual(byId.result.map((d) => d._id), [5, 7]);
      assert.ok(byId.examined <= 2, `${byId.examined} documents examined`);

      const counted = await work(() => c.countDocuments({ $and: [{ user_id: 3 }] }));
      assert.equal(counted.result, N / USERS);
      assert.equal(counted.examined, 0);
    });

    test("other terms next to $and still apply", async () => {
      const c = conn.db.collection("posts");
      const ids = async (filter: Document) => (await c.find(filter).toArray()).map((d) => d._id);
      assert.deepEqual(await ids({ user_id: 2, $and: [{ user_id: 3 }] }), []);
      assert.deepEqual(await ids({ $and: [{ user_id: 2 }], $or: [{ _id: 102 }, { _id: 103 }] }), [102]);
      assert.deepEqual(await ids({ $and: [{ user_id: { $in: [1, 2] } }, { _id: { $lt: 150 } }] }), [1, 2, 101, 102]);
      assert.equal(await c.countDocuments({ $and: [{ user_id: 4 }, { _id: { $gte: 2900 } }] } as Document), 1);
    });
  },
);

/** An index key's documents come back in `_id` order through every kind of write. */
describe("embedded engine: non-unique index order", {
  skip: externalUri !== undefined && "counts the engine's own work",
}, () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("posting");
  });
  after(async () => {
    await conn.close();
  });

  test("an equality lookup needs no sort and a count reads the index alone", async () => {
    const c = conn.db.collection("items");
    await c.createIndex({ k: 1 });
    // Ids of mixed types, inserted out of order: the index must still hand them out sorted.
    const ids: unknown[] = [];
    for (let i = 0; i < 600; i++) ids.push(i % 3 === 0 ? `s${(i * 7919) % 600}` : (i * 7919) % 600);
    const model = new Map<string, { _id: unknown; k: number }>();
    for (const [i, _id] of ids.entries()) model.set(JSON.stringify(_id), { _id, k: i % 4 });
    await c.insertMany([...model.values()] as Document[]);
    await c.updateMany({ k: 1 }, { $set: { touched: true } });
    await c.updateMany({ k: 2, _id: { $type: "number" } } as Document, { $set: { k: 3 } });
    await c.deleteMany({ k: 0, _id: { $type: "string" } });
    for (const doc of [...model.values()]) {
      if (doc.k === 2 && typeof doc._id === "number") doc.k = 3;
      if (doc.k === 0 && typeof doc._id === "string") model.delete(JSON.stringify(doc._id));
    }
    const order = (a: unknown, b: unknown) =>
      typeof a === typeof b ? (a! < b! ? -1 : a! > b! ? 1 : 0) : typeof a === "number" ? -1 : 1;
    for (const k of [0, 1, 2, 3]) {
      const expected = [...model.values()].filter((d) => d.k === k).map((d) => d._id).sort(order);
      await c.find({ k }).toArray(); // a first read may put the key in order once
      const { result, sorted, examined } = await work(() => c.find({ k }).toArray());
      assert.deepEqual(result.map((d) => d._id), expected, `k = ${k}`);
      assert.equal(sorted + examined, 0, `k = ${k}: ${sorted} sorted, ${examined} examined`);
      const counted = await work(() => c.countDocuments({ k }));
      assert.equal(counted.result, expected.length);
      assert.equal(counted.sorted + counted.examined, 0);
    }
  });

  test("$in over several keys of a multikey index returns each document once, in _id order", async () => {
    const c = conn.db.collection("tagged");
    await c.createIndex({ tags: 1 });
    await c.insertMany([
      { _id: 3, tags: ["a", "b"] },
      { _id: 1, tags: ["b"] },
      { _id: 2, tags: ["c"] },
      { _id: 0, tags: ["a"] },
    ] as Document[]);
    const found = await c.find({ tags: { $in: ["b", "a"] } }).toArray();
    assert.deepEqual(found.map((d) => d._id), [0, 1, 3]);
    assert.equal(await c.countDocuments({ tags: { $in: ["a", "b"] } }), 3);
  });
});
