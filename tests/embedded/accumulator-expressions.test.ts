import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection, Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * `$sum`, `$avg`, `$max`, `$min` and `$stdDevPop` as expressions read one operand that is an
 * array as its elements, given bare or as a list of one, and several operands as they are.
 * mingo read a list of one as one value: `{$sum: ["$scores"]}` was 0.
 */
describe("embedded engine: accumulators used as expressions", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; scores: number[]; n: number }>;

  before(async () => {
    conn = await connectTarget("accumulator_expressions");
    rows = conn.db.collection("rows");
    await rows.insertOne({ _id: 1, scores: [4, 2, 9], n: 5 });
  });
  after(async () => {
    await conn.close();
  });

  const projected = async (fields: Document) => {
    const [doc] = await rows.aggregate([{ $project: { _id: 0, ...fields } }]).toArray();
    return doc;
  };

  test("one array operand stands for its elements, bare or in a list of one", async () => {
    assert.deepEqual(
      await projected({
        sumBare: { $sum: "$scores" },
        sumListed: { $sum: ["$scores"] },
        maxListed: { $max: ["$scores"] },
        minLiteral: { $min: [[7, 3, 5]] },
        avgListed: { $avg: ["$scores"] },
        spread: { $stdDevPop: [[1, 3]] },
      }),
      { sumBare: 15, sumListed: 15, maxListed: 9, minLiteral: 3, avgListed: 5, spread: 1 },
    );
  });

  test("several operands are taken as they are, arrays whole", async () => {
    assert.deepEqual(
      await projected({ sum: { $sum: ["$scores", "$n", 1] }, max: { $max: ["$n", "$scores"] }, none: { $sum: [] } }),
      { sum: 6, max: [4, 2, 9], none: 0 },
    );
  });

  test("in a $group they still accumulate over the documents", async () => {
    const [row] = await rows.aggregate([{ $group: { _id: null, total: { $sum: "$n" }, most: { $max: "$scores" } } }])
      .toArray();
    assert.deepEqual(row, { _id: null, total: 5, most: [4, 2, 9] });
  });
});
