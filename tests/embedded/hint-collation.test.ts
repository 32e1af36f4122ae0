import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection, Db, Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

const CI = { locale: "en", strength: 2 };
const ids = (docs: Document[]) => docs.map((doc) => doc._id);

/**
 * A hint naming an index with a collation (its own, or the collection's default it took)
 * gives what the unhinted query gives: the read scans the hinted index whole when bounds in
 * binary string order would be wrong, and sorts by itself when the index orders strings under
 * another collation than the query's.
 */
describe("embedded engine: hinted indexes under a collation", () => {
  let conn: Connected;
  let db: Db;

  before(async () => {
    conn = await connectTarget("hint_collation");
    db = conn.db;
  });
  after(async () => {
    await conn?.close();
  });

  async function filled(name: string, values: string[]): Promise<Collection> {
    const c = db.collection(name);
    await c.insertMany(values.map((b, i): Document => ({ _id: i + 1, b })));
    return c;
  }

  test("an index with the query's collation: filters match under the collation", async () => {
    const c = await filled("ci_index", ["x", "Y", "y", "X", "z"]);
    await c.createIndex({ b: 1 }, { name: "b_ci", collation: CI });
    assert.deepEqual(ids(await c.find({ b: "x" }, { collation: CI, hint: "b_ci" }).toArray()), [1, 4]);
    assert.deepEqual(ids(await c.find({ b: { $gte: "y" } }, { collation: CI, hint: "b_ci" }).toArray()), [2, 3, 5]);
    assert.equal(await c.countDocuments({ b: "x" }, { collation: CI, hint: "b_ci" }), 2);
    const updated = await c.updateMany({ b: "x" }, { $set: { t: 1 } }, { collation: CI, hint: "b_ci" });
    assert.equal(updated.matchedCount, 2);
  });

  test("an index under another collation than the query's does not give the sort", async () => {
    const c = await filled("other_collation", ["x", "Y", "y", "X", "z"]);
    await c.createIndex({ b: 1 }, { name: "b_ci", collation: CI });
    // Binary order: uppercase first.
    assert.deepEqual(ids(await c.find({}, { sort: { b: 1 }, hint: "b_ci" }).toArray()), [4, 2, 1, 3, 5]);
    assert.deepEqual(ids(await c.find({}, { sort: { b: -1 }, limit: 2, hint: "b_ci" }).toArray()), [5, 3]);
    const s = await filled("simple_index", ["apple", "Banana", "cherry", "Date"]);
    await s.createIndex({ b: 1 }, { name: "b_simple" });
    const sorted = await s.find({}, { sort: { b: 1 }, collation: CI, hint: "b_simple" }).toArray();
    assert.deepEqual(ids(sorted), [1, 2, 3, 4]);
  });

  test("a collection's default collation, taken by its index", async () => {
    await db.createCollection("default_ci", { collation: CI });
    const c = db.collection("default_ci");
    const docs: Document[] = [{ _id: 1, b: "x" }, { _id: 2, b: "X" }, { _id: 3, b: "y" }];
    await c.insertMany(docs);
    await c.createIndex({ b: 1 });
    assert.deepEqual(ids(await c.find({ b: "x" }).toArray()), [1, 2]);
    assert.deepEqual(ids(await c.find({ b: "x" }).hint({ b: 1 }).toArray()), [1, 2]);
    assert.equal((await c.deleteMany({ b: "X" }, { hint: { b: 1 } })).deletedCount, 2);
  });
});
