import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Long } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/** Test rows: numeric `_id`s, anything else. */
type Row = { _id: number; [field: string]: unknown };

/** `$size` and `$mod` as MongoDB 7.0 evaluates them, in expressions and as the `$mod` query operator. */
describe("embedded engine: $size and $mod", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("size_and_mod");
    await conn.db.collection<Row>("rows").insertMany([
      { _id: 1, arr: [1, 2, 3], a: 1 },
      { _id: 2, arr: null, a: "1" },
      { _id: 3, arr: 5, a: [3, "1"] },
      { _id: 4, a: new Long("9007199254740993") },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const project = (id: number, expression: unknown) =>
    conn.db.collection<Row>("rows").aggregate([{ $match: { _id: id } }, { $project: { _id: 0, v: expression } }])
      .toArray();

  test("$size of an array is its length; of anything else 17124, null and missing included", async () => {
    assert.deepEqual(await project(1, { $size: "$arr" }), [{ v: 3 }]);
    assert.deepEqual(await project(1, { $size: ["$arr"] }), [{ v: 3 }]);
    const message = (type: string) => `The argument to $size must be an array, but was of type: ${type}`;
    await refused(() => project(2, { $size: "$arr" }), 17124, message("null"));
    await refused(() => project(3, { $size: "$arr" }), 17124, message("int"));
    await refused(() => project(4, { $size: "$arr" }), 17124, message("missing"));
  });

  test("$mod by zero is 16610", async () => {
    await refused(() => project(1, { $mod: [1, 0] }), 16610, "can't $mod by zero");
    await refused(() => project(1, { $mod: ["$a", 0] }), 16610, "can't $mod by zero");
    assert.deepEqual(await project(1, { $mod: [7, 4] }), [{ v: 3 }]);
    assert.deepEqual(await project(1, { $mod: ["$nope", 0] }), [{ v: null }]);
  });

  test("the $mod query operator matches numbers only (and array elements that are numbers)", async () => {
    const rows = conn.db.collection<Row>("rows");
    const ids = async (filter: object) => (await rows.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    assert.deepEqual(await ids({ a: { $mod: [2, 1] } }), [1, 3, 4]);
    assert.deepEqual(await ids({ a: { $mod: [3, 0] } }), [3, 4]);
    // 2^53 + 1 is divided exactly: as a double it would be 2^53, whose remainder by 10 is 2.
    assert.deepEqual(await ids({ a: { $mod: [10, 3] } }), [3, 4]);
    assert.deepEqual(await ids({ a: { $mod: [10, 2] } }), []);
    assert.deepEqual(await ids({ a: { $not: { $mod: [2, 1] } } }), [2]);
  });
});
