import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** The framework's hot path: a page via find(skip/limit) plus countDocuments, concurrently. */
describe("embedded engine: pagination", () => {
  let conn: Connected;
  const N = 2000;

  before(async () => {
    conn = await connectTarget("paging");
    const c = conn.db.collection("rows");
    await c.insertMany(
      Array.from({ length: N }, (_, i) => ({ _id: i + 1, even: i % 2 === 1, name: `row ${i + 1}` })) as Document[],
    );
  });
  after(async () => {
    await conn.close();
  });

  test("first and deep pages in _id order, with the total, concurrently", async () => {
    const c = conn.db.collection("rows");
    for (const [skip, sort] of [[0, undefined], [1500, { _id: 1 }], [1990, {}]] as const) {
      const [page, total] = await Promise.all([c.find({}, { sort, skip, limit: 20 }).toArray(), c.countDocuments({})]);
      assert.equal(total, N);
      assert.deepEqual(
        page.map((d) => d._id),
        Array.from({ length: Math.min(20, N - skip) }, (_, i) => skip + i + 1),
      );
    }
  });

  test("descending pages and filtered pages", async () => {
    const c = conn.db.collection("rows");
    assert.deepEqual((await c.find({}, { sort: { _id: -1 }, skip: 5, limit: 3 }).toArray()).map((d) => d._id), [
      1995,
      1994,
      1993,
    ]);
    const [page, total] = await Promise.all([
      c.find({ even: true }, { skip: 10, limit: 3 }).toArray(),
      c.countDocuments({ even: true }),
    ]);
    assert.equal(total, N / 2);
    assert.deepEqual(page.map((d) => d._id), [22, 24, 26]);
    assert.deepEqual((await c.find({ even: true }, { sort: { _id: -1 }, limit: 2 }).toArray()).map((d) => d._id), [
      2000,
      1998,
    ]);
  });

  test("pages sorted by another field keep only what they need, with _id breaking ties", async () => {
    const c = conn.db.collection("rows");
    const page = await c.find({}, { sort: { even: -1, name: 1 }, skip: 2, limit: 3, projection: { name: 1 } })
      .toArray();
    assert.deepEqual(page, [
      { _id: 1000, name: "row 1000" },
      { _id: 1002, name: "row 1002" },
      { _id: 1004, name: "row 1004" },
    ]);
  });

  test("ids inserted out of order are still read in order", async () => {
    const c = conn.db.collection("shuffled");
    const ids = [5, 1, 9, 3, 7, 2, 8, 4, 6, 0];
    for (const _id of ids) await c.insertOne({ _id } as Document);
    await c.insertMany([{ _id: "b" }, { _id: "a" }] as Document[]);
    assert.deepEqual((await c.find({}, { skip: 8, limit: 4 }).toArray()).map((d) => d._id), [8, 9, "a", "b"]);
  });
});
