import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CollationOptions, Collection } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; s?: string; n?: number | null };

/**
 * Comparison expressions ($eq, $ne, $lt, $lte, $gt, $gte, $cmp) in MongoDB's order. mingo's
 * order sorted arrays and documents' keys first ([1, 3] was not below [2, 0]), put NaN level
 * with every number, ranked a string below a number, made a missing field equal to null and
 * ignored the collation.
 */
describe("embedded engine: comparison expressions in MongoDB's order", () => {
  let conn: Connected;
  let rows: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("expression_order");
    rows = conn.db.collection<Doc>("rows");
    await rows.insertMany([{ _id: 1, s: "a", n: null }, { _id: 2, s: "B" }]);
  });
  after(async () => {
    await conn.close();
  });

  const evaluate = async (fields: Record<string, unknown>, collation?: CollationOptions) => {
    const [row] = await rows.aggregate([{ $match: { _id: 1 } }, { $project: { _id: 0, ...fields } }], { collation })
      .toArray();
    return row;
  };

  test("arrays element by element, documents field by field in their order", async () => {
    assert.deepEqual(
      await evaluate({
        arrays: { $lt: [[1, 3], [2, 0]] },
        prefix: { $cmp: [[1, 2], [1, 2, 0]] },
        fieldOrder: { $eq: [{ a: 1, b: 2 }, { b: 2, a: 1 }] },
        nested: { $eq: [[1, [2, { c: 3 }]], [1, [2, { c: 3 }]]] },
      }),
      { arrays: true, prefix: -1, fieldOrder: false, nested: true },
    );
  });

  test("NaN below every number, types in BSON order, missing below null", async () => {
    assert.deepEqual(
      await evaluate({
        nan: { $lt: [Number.NaN, -Infinity] },
        nanEqual: { $eq: [Number.NaN, Number.NaN] },
        stringOverNumber: { $gt: ["a", 1] },
        boolUnderDate: { $lt: [true, new Date(0)] },
        missingIsNotNull: { $eq: ["$missing", null] },
        missingUnderNull: { $lt: ["$missing", "$n"] },
        missingEqualsMissing: { $eq: ["$missing", "$absent"] },
      }),
      {
        nan: true,
        nanEqual: true,
        stringOverNumber: true,
        boolUnderDate: true,
        missingIsNotNull: false,
        missingUnderNull: true,
        missingEqualsMissing: true,
      },
    );
  });

  test("strings by the collation", async () => {
    const fields = { greater: { $gt: ["B", "a"] }, equal: { $eq: ["$s", "A"] } };
    assert.deepEqual(await evaluate(fields), { greater: false, equal: false });
    assert.deepEqual(await evaluate(fields, { locale: "en", strength: 2 }), { greater: true, equal: true });
    const matched = await rows.find({ $expr: { $eq: ["$s", "b"] } }, { collation: { locale: "en", strength: 1 } })
      .toArray();
    assert.deepEqual(matched.map((r) => r._id), [2]);
  });
});
