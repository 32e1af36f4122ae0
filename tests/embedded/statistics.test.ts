import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, Decimal128, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; v: number; l: Long; d: Decimal128 };

/**
 * Percentiles and standard deviations. mingo sorted values as text (the median of 3, 9, 10,
 * 25 and 100 was 25) and left Longs and Decimal128s out (their standard deviation was null).
 */
describe("embedded engine: $percentile, $median and $stdDev…", () => {
  let conn: Connected;
  let rows: Collection<Doc>;
  const values = [9, 10, 100, 25, 3];

  before(async () => {
    conn = await connectTarget("statistics");
    rows = conn.db.collection<Doc>("rows");
    await rows.insertMany(
      values.map((v, i) => ({ _id: i, v, l: Long.fromNumber(v), d: Decimal128.fromString(String(v)) })),
    );
  });
  after(async () => {
    await conn.close();
  });

  const group = async (fields: Record<string, unknown>) => {
    const [row] = await rows.aggregate([{ $group: { _id: null, ...fields } }, { $project: { _id: 0 } }]).toArray();
    return row;
  };

  test("the median and percentiles order numbers by value, not as text", async () => {
    assert.deepEqual(
      await group({
        median: { $median: { input: "$v", method: "approximate" } },
        ps: { $percentile: { input: "$v", p: [0, 0.2, 0.9, 1], method: "approximate" } },
      }),
      { median: 10, ps: [3, 3, 100, 100] },
    );
  });

  test("Longs and Decimal128s count as numbers", async () => {
    const row = await group({
      medianL: { $median: { input: "$l", method: "approximate" } },
      medianD: { $median: { input: "$d", method: "approximate" } },
      popL: { $stdDevPop: "$l" },
      sampD: { $stdDevSamp: "$d" },
      popV: { $stdDevPop: "$v" },
    });
    const mean = values.reduce((a, b) => a + b) / values.length;
    const squares = values.reduce((a, v) => a + (v - mean) ** 2, 0);
    assert.equal(row.medianL, 10);
    assert.equal(row.medianD, 10);
    assert.ok(Math.abs(row.popV - Math.sqrt(squares / 5)) < 1e-9, String(row.popV));
    assert.ok(Math.abs(row.popL - row.popV) < 1e-9, String(row.popL));
    assert.ok(Math.abs(row.sampD - Math.sqrt(squares / 4)) < 1e-9, String(row.sampD));
  });

  test("as expressions over one document's array", async () => {
    const [row] = await rows.aggregate([{ $match: { _id: 0 } }, {
      $project: {
        _id: 0,
        median: { $median: { input: [100, 9, 10], method: "approximate" } },
        sd: { $stdDevPop: [Long.fromNumber(2), 4, Decimal128.fromString("6")] },
        one: { $stdDevSamp: [5] },
      },
    }]).toArray();
    assert.equal(row.median, 10);
    assert.ok(Math.abs(row.sd - Math.sqrt(8 / 3)) < 1e-9, String(row.sd));
    assert.equal(row.one, null);
  });

  test("a missing input gives null; an unknown method or a p outside 0..1 is refused", async () => {
    assert.deepEqual(await group({ m: { $median: { input: "$missing", method: "approximate" } } }), { m: null });
    for (
      const spec of [
        { $median: { input: "$v", method: "exact" } },
        { $percentile: { input: "$v", p: [1.5], method: "approximate" } },
        { $percentile: { input: "$v", p: "half", method: "approximate" } },
      ]
    ) {
      const error = await group({ x: spec }).then(() => undefined, (e) => e);
      assert.ok(error instanceof MongoServerError, JSON.stringify(spec));
    }
  });
});
