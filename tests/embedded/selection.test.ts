import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** `$redact` drops pruned documents, and `$top`/`$bottom` give one value, as in MongoDB. */
describe("embedded engine: $redact, $top and $bottom", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; g: string; v: number; secret?: { level: number; note: string } }>;

  before(async () => {
    conn = await connectTarget("selection");
    rows = conn.db.collection("rows");
    await rows.insertMany([
      { _id: 1, g: "a", v: 3, secret: { level: 9, note: "hidden" } },
      { _id: 2, g: "a", v: 8 },
      { _id: 3, g: "b", v: 5 },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  test("$redact leaves pruned documents out, and prunes nested ones when descending", async () => {
    const kept = await rows.aggregate([
      { $redact: { $cond: [{ $gt: ["$v", 4] }, "$$KEEP", "$$PRUNE"] } },
      { $project: { v: 1 } },
    ]).toArray();
    assert.deepEqual(kept.map((r) => r._id).sort(), [2, 3]);
    const descended = await rows.aggregate([
      { $match: { _id: 1 } },
      { $redact: { $cond: [{ $gt: [{ $ifNull: ["$level", 0] }, 5] }, "$$PRUNE", "$$DESCEND"] } },
    ]).toArray();
    assert.deepEqual(descended, [{ _id: 1, g: "a", v: 3 }]);
  });

  test("$top and $bottom give the value itself, $topN a list", async () => {
    const groups = await rows.aggregate([
      {
        $group: {
          _id: "$g",
          top: { $top: { sortBy: { v: -1 }, output: "$_id" } },
          bottom: { $bottom: { sortBy: { v: -1 }, output: ["$_id", "$v"] } },
          topTwo: { $topN: { n: 2, sortBy: { v: -1 }, output: "$_id" } },
        },
      },
      { $sort: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(groups, [
      { _id: "a", top: 2, bottom: [1, 3], topTwo: [2, 1] },
      { _id: "b", top: 3, bottom: [3, 5], topTwo: [3] },
    ]);
  });
});
