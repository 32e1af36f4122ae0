import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, Long } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * The N accumulators and expressions keep values in MongoDB's BSON order (null < numbers of
 * every width < strings < documents < arrays < booleans < dates), and `sortBy` sorts as the
 * `$sort` stage does. mingo put arrays among the smallest values and sorted a `Long` as an
 * object (above dates), and refused an `n` given as a `Long`.
 */
describe("embedded engine: $maxN, $minN, $topN, $bottomN, $top, $bottom, $firstN", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; v?: unknown }>;

  before(async () => {
    conn = await connectTarget("top_values");
    rows = conn.db.collection("rows");
    await rows.insertMany([
      { _id: 1, v: 5 },
      { _id: 2, v: "a" },
      { _id: 3, v: null },
      { _id: 4, v: [3, 9] },
      { _id: 5, v: { x: 1 } },
      { _id: 6, v: true },
      { _id: 7, v: new Date(0) },
      { _id: 8 },
      { _id: 9, v: Long.fromNumber(7) },
      { _id: 10, v: 6.5 },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const group = async (accumulators: Document): Promise<Document> => {
    const [row] = await rows.aggregate([{ $group: { _id: null, ...accumulators } }]).toArray();
    return row;
  };

  test("$maxN and $minN order values of every type, leaving out null and missing", async () => {
    const row = await group({ max: { $maxN: { n: 3, input: "$v" } }, min: { $minN: { n: 3, input: "$v" } } });
    assert.deepEqual(row.max, [new Date(0), true, [3, 9]]);
    assert.deepEqual(row.min, [5, 6.5, 7]);
  });

  test("$topN, $bottomN, $top and $bottom sort as $sort does, Longs by value", async () => {
    const row = await group({
      top: { $topN: { n: 4, sortBy: { v: 1 }, output: "$_id" } },
      bottom: { $bottomN: { n: 4, sortBy: { v: 1 }, output: "$_id" } },
      first: { $top: { sortBy: { v: -1 }, output: "$_id" } },
      last: { $bottom: { sortBy: { v: 1 }, output: "$_id" } },
      long: { $top: { sortBy: { v: -1 }, output: "$v" } },
    });
    // Ascending: null and missing, [3, 9] (by its least element), 5, 6.5, Long 7, "a", {x: 1}, true, the date.
    assert.deepEqual(row.top, [3, 8, 4, 1]);
    assert.deepEqual(row.bottom, [2, 5, 6, 7]);
    assert.equal(row.first, 7);
    assert.equal(row.last, 7);
    const [sevens] = await rows.aggregate([{ $match: { _id: { $in: [1, 9, 10] } } }, {
      $group: { _id: null, top: { $top: { sortBy: { v: -1 }, output: "$_id" } } },
    }]).toArray();
    assert.equal(sevens.top, 9, "Long(7) is the greatest of 5, Long(7) and 6.5");
    assert.ok(row.long instanceof Date);
  });

  test("an n given as a Long is taken", async () => {
    const row = await group({
      first: { $firstN: { n: Long.fromNumber(2), input: "$_id" } },
      max: { $maxN: { n: Long.fromNumber(1), input: "$_id" } },
    });
    assert.deepEqual(row.first, [1, 2]);
    assert.deepEqual(row.max, [10]);
    const [doc] = await rows.aggregate([{ $match: { _id: 1 } }, {
      $project: {
        firstN: { $firstN: { n: Long.fromNumber(2), input: [4, 5, 6] } },
        maxN: { $maxN: { n: 2, input: [1, "b", [0], null, 9] } },
      },
    }]).toArray();
    assert.deepEqual(doc.firstN, [4, 5]);
    assert.deepEqual(doc.maxN, [[0], "b"]);
  });

  test("an n below 1 is refused", async () => {
    await assert.rejects(group({ max: { $maxN: { n: 0, input: "$v" } } }), /'n' must be greater than 0/);
  });
});
