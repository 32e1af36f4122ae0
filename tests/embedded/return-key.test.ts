import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Filter, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

interface Item {
  _id: number;
  x: number;
  tags?: string[];
}

/** `returnKey` answers each match with the key of the index the plan read, as MongoDB does. */
describe("embedded engine: find with returnKey", () => {
  let conn: Connected;
  let items: Collection<Item>;

  before(async () => {
    conn = await connectTarget("return_key");
    items = conn.db.collection<Item>("items");
    await items.insertMany([
      { _id: 1, x: 11, tags: ["b", "a"] },
      { _id: 2, x: 22, tags: ["c"] },
      { _id: 3, x: 33 },
    ]);
    await items.createIndex({ x: -1 });
    await items.createIndex({ tags: 1 });
  });
  after(() => conn.close());

  test("through the _id index the key is the _id, through another index its fields", async () => {
    assert.deepEqual(await items.find({}, { sort: { _id: 1 }, returnKey: true }).toArray(), [
      { _id: 1 },
      { _id: 2 },
      { _id: 3 },
    ]);
    assert.deepEqual(await items.find({ x: { $gt: 15 } }, { returnKey: true }).sort({ x: -1 }).toArray(), [
      { x: 33 },
      { x: 22 },
    ]);
    assert.deepEqual(await items.find({ _id: 2 }, { returnKey: true, projection: { x: 1 } }).toArray(), [{ _id: 2 }]);
  });

  test("a collection scan gives empty documents; a multikey index gives the key that led to the match", async () => {
    assert.deepEqual(await items.find({ x: { $exists: true } }, { returnKey: true, hint: { $natural: 1 } }).toArray(), [
      {},
      {},
      {},
    ]);
    assert.deepEqual(await items.find({ tags: "b" }, { returnKey: true }).toArray(), [{ tags: "b" }]);
    const noTags: Filter<Item> = { tags: { $eq: null as unknown as string } };
    assert.deepEqual(await items.find(noTags, { returnKey: true }).toArray(), [{ tags: null }]);
  });

  test("a multikey key is the one inside the scan's bounds; $natural and views as MongoDB answers them", async () => {
    const spans = conn.db.collection<{ _id: number; a: number[] }>("spans");
    await spans.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, a: [0, i] })));
    await spans.createIndex({ a: 1 });
    assert.deepEqual(await spans.find({ a: { $gte: 198 } }, { returnKey: true }).toArray(), [{ a: 198 }, { a: 199 }]);
    assert.deepEqual(await items.find({ x: 22 }, { returnKey: true, hint: { $natural: 1 } }).toArray(), [{}]);
    await conn.db.createCollection("items_view", { viewOn: "items", pipeline: [] });
    await assert.rejects(
      conn.db.collection("items_view").find({}, { returnKey: true }).toArray(),
      (e: MongoServerError) => e.code === 168,
    );
  });
});
