import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/**
 * An empty array keys as BSON undefined in MongoDB: below null and missing in every sort, with
 * or without an index (manual, "Comparison/Sort Order"), and distinct from null in a unique index.
 */
/** Test rows: `_id`s are strings and numbers, `a` anything. */
type Row = { _id: string | number; a?: unknown };

describe("embedded engine: empty arrays in sorts and index keys", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("empty_array_keys");
  });
  after(async () => {
    await conn.close();
  });

  const docs =
    (): Row[] => [{ _id: "null", a: null }, { _id: "missing" }, { _id: "one", a: 1 }, { _id: "empty", a: [] }];
  const ids = (list: Row[]) => list.map((d) => d._id);
  // Ties between null and missing come in an order each plan decides: compare only where [] is.
  const emptyAt = (list: Row[]) => ids(list).indexOf("empty");

  async function filled(name: string, key?: Document) {
    const c = conn.db.collection<Row>(name);
    await c.insertMany(docs());
    if (key) await c.createIndex(key);
    return c;
  }

  test("[] sorts first ascending and last descending, with and without an index", async () => {
    for (const [name, key] of [["plain", undefined], ["asc", { a: 1 }], ["desc", { a: -1 }]] as const) {
      const c = await filled(`sort_${name}`, key);
      assert.equal(emptyAt(await c.find().sort({ a: 1 }).toArray()), 0, `${name} ascending`);
      assert.equal(emptyAt(await c.find().sort({ a: -1 }).toArray()), 3, `${name} descending`);
      assert.deepEqual(ids(await c.find().sort({ a: -1 }).limit(1).toArray()), ["one"]);
    }
  });

  test("a unique index holds one {a: []} beside one document without a", async () => {
    const c = conn.db.collection<Row>("unique_empty");
    await c.createIndex({ a: 1 }, { unique: true });
    await c.insertMany([{ _id: 1, a: [] }, { _id: 2 }]);
    await refused(() => c.insertOne({ _id: 3, a: [] }), 11000);
    await refused(() => c.insertOne({ _id: 4, a: null }), 11000);
    await c.updateOne({ _id: 1 }, { $set: { a: 7 } });
    await c.insertOne({ _id: 5, a: [] });
    assert.equal(await c.countDocuments(), 3);
  });

  test("null, [] and $exists filters find the same documents through an index", async () => {
    const plain = await filled("filters_plain");
    const indexed = await filled("filters_indexed", { a: 1 });
    const filters: Document[] = [
      { a: null },
      { a: [] },
      { a: { $exists: false } },
      { a: { $exists: true } },
      { a: { $ne: null } },
      { a: { $in: [null, 1] } },
      { a: { $lte: 1 } },
    ];
    for (const filter of filters) {
      const want = ids(await plain.find(filter).sort({ _id: 1 }).toArray());
      const got = ids(await indexed.find(filter).sort({ _id: 1 }).toArray());
      assert.deepEqual(got, want, JSON.stringify(filter));
      assert.equal(await indexed.countDocuments(filter), want.length, JSON.stringify(filter));
    }
    assert.deepEqual(ids(await indexed.find({ a: null }).sort({ _id: 1 }).toArray()), ["missing", "null"]);
    assert.deepEqual(ids(await indexed.find({ a: [] }).toArray()), ["empty"]);
    assert.deepEqual(ids(await indexed.find({ a: { $exists: false } }).toArray()), ["missing"]);
  });
});
