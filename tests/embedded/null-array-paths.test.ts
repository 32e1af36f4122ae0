import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection, Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Row = { _id: string; [field: string]: unknown };

/**
 * Conditions met by null on a dotted path through an array of documents, as MongoDB 7.0 matches
 * them (jstests/core/query/null_query_semantics.js): an element that lacks the rest of the
 * path counts as null, other elements (scalars, arrays) are skipped. With and without an index.
 */
describe("embedded engine: null through arrays of documents", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("null_array_paths");
  });
  after(async () => {
    await conn.close();
  });

  const docs: Row[] = [
    { _id: "b_missing_in_one", a: [{ b: 1 }, { c: 1 }] },
    { _id: "b_in_all", a: [{ b: 1 }] },
    { _id: "b_null_in_one", a: [{ b: null }, { b: 2 }] },
    { _id: "scalars", a: [1, 2] },
    { _id: "empty", a: [] },
    { _id: "nested_arrays", a: [[{ c: 1 }]] },
    { _id: "subdocument", a: { c: 1 } },
    { _id: "number", a: 4 },
    { _id: "no_a" },
  ];
  const nullish = ["b_missing_in_one", "b_null_in_one", "no_a", "number", "subdocument"];
  const notNullish = ["b_in_all", "empty", "nested_arrays", "scalars"];
  const cases: [Document, string[]][] = [
    [{ "a.b": null }, nullish],
    [{ "a.b": { $eq: null } }, nullish],
    [{ "a.b": { $in: [null] } }, nullish],
    [{ "a.b": { $in: [null, 2] } }, nullish],
    [{ "a.b": { $in: [null, 1] } }, [...nullish, "b_in_all"]],
    [{ "a.b": { $gte: null } }, nullish],
    [{ "a.b": { $ne: null } }, notNullish],
    [{ "a.b": { $nin: [null] } }, notNullish],
    [{ "a.b": { $exists: false } }, ["empty", "nested_arrays", "no_a", "number", "scalars", "subdocument"]],
    [{ "a.b.c": null }, [...nullish, "b_in_all"]],
  ];

  async function check(c: Collection<Row>, label: string) {
    for (const [filter, expected] of cases) {
      const found = (await c.find(filter).toArray()).map((d) => d._id).sort();
      assert.deepEqual(found, [...expected].sort(), `${label} find ${JSON.stringify(filter)}`);
      assert.equal(await c.countDocuments(filter), expected.length, `${label} count ${JSON.stringify(filter)}`);
    }
  }

  test("find and count, by a collection scan and through an index on a.b", async () => {
    const c = conn.db.collection<Row>("reads");
    await c.insertMany(docs);
    await check(c, "scan");
    await c.createIndex({ "a.b": 1 });
    await check(c, "index");
    const hinted = await c.find({ "a.b": null }).hint({ "a.b": 1 }).toArray();
    assert.deepEqual(hinted.map((d) => d._id).sort(), [...nullish].sort());
  });

  for (const indexed of [false, true]) {
    test(`updates, and the positional $ (${indexed ? "with" : "without"} an index)`, async () => {
      const c = conn.db.collection<Row>(`updates_${indexed}`);
      await c.insertMany([{ _id: "x", a: [{ b: 1 }, { c: 1 }] }, { _id: "y", a: [{ b: 1 }] }]);
      if (indexed) await c.createIndex({ "a.b": 1 });
      const result = await c.updateMany({ "a.b": null }, { $set: { "a.$.t": 1 } });
      assert.equal(result.matchedCount, 1);
      assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [
        { _id: "x", a: [{ b: 1 }, { c: 1, t: 1 }] },
        { _id: "y", a: [{ b: 1 }] },
      ]);
      assert.equal((await c.deleteMany({ "a.b": { $ne: null } })).deletedCount, 1);
      assert.deepEqual((await c.find().toArray()).map((d) => d._id), ["x"]);
    });
  }
});
