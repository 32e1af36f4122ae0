import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, Decimal128, type Document, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; [field: string]: unknown };

const dec = (text: string) => Decimal128.fromString(text);

/**
 * Truth as MongoDB's expressions read it (zero of every numeric type is false), and set and
 * array expressions comparing numbers of every width by value. mingo read `Long(0)` and
 * `Decimal128("0")` as true and compared Longs and Decimal128s in arrays as objects.
 */
describe("embedded engine: truth of Longs and Decimal128s, and sets by value", () => {
  let conn: Connected;
  let rows: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("truth_and_sets");
    rows = conn.db.collection<Doc>("rows");
    await rows.insertMany([
      { _id: 1, v: Long.ZERO },
      { _id: 2, v: dec("0.00") },
      { _id: 3, v: Long.fromNumber(5) },
      { _id: 4, v: dec("1E-6000") },
      { _id: 5, v: Number.NaN },
      { _id: 6, v: 0 },
      { _id: 7, v: dec("-0") },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const ids = async (filter: Document) => (await rows.find(filter).sort({ _id: 1 }).toArray()).map((r) => r._id);
  const values = async (expression: unknown) =>
    (await rows.aggregate([{ $sort: { _id: 1 } }, { $project: { _id: 0, x: expression } }]).toArray()).map((r) => r.x);

  test("$expr: zero of every width is false; NaN and a tiny Decimal128 are true", async () => {
    assert.deepEqual(await ids({ $expr: "$v" }), [3, 4, 5]);
    assert.deepEqual(await ids({ $expr: { $not: ["$v"] } }), [1, 2, 6, 7]);
  });

  test("$cond, $and, $or, $switch, $toBool and $filter read the same truth", async () => {
    const truth = [false, false, true, true, true, false, false];
    assert.deepEqual(await values({ $cond: ["$v", true, false] }), truth);
    assert.deepEqual(await values({ $cond: { if: "$v", then: true, else: false } }), truth);
    assert.deepEqual(await values({ $and: ["$v", true] }), truth);
    assert.deepEqual(await values({ $or: ["$v", false] }), truth);
    assert.deepEqual(await values({ $toBool: "$v" }), truth);
    assert.deepEqual(await values({ $switch: { branches: [{ case: "$v", then: true }], default: false } }), truth);
    assert.deepEqual(await values({ $allElementsTrue: [["$v", 1]] }), truth);
    assert.deepEqual(await values({ $anyElementTrue: [["$v", 0]] }), truth);
    assert.deepEqual(
      (await values({ $filter: { input: ["$v"], cond: "$$this" } })).map((kept: unknown[]) => kept.length === 1),
      truth,
    );
  });

  test("$switch with no true case and no default, and a malformed $cond, are refused with MongoDB's codes", async () => {
    const refusal = (expression: unknown) =>
      rows.aggregate([{ $project: { x: expression } }]).toArray().then(() => undefined, (e) => e);
    const noDefault = await refusal({ $switch: { branches: [{ case: { $eq: ["$v", "none"] }, then: 1 }] } });
    assert.ok(noDefault instanceof MongoServerError);
    assert.equal(noDefault.code, 40066);
    const noElse = await refusal({ $cond: { if: true, then: 1 } });
    assert.ok(noElse instanceof MongoServerError);
    assert.equal(noElse.code, 17082);
    const extra = await refusal({ $cond: { if: true, then: 1, else: 2, other: 3 } });
    assert.ok(extra instanceof MongoServerError);
    assert.equal(extra.code, 17083);
  });

  test("set expressions and $indexOfArray treat 1, Long(1) and Decimal128('1.0') as one value", async () => {
    const [row] = await rows.aggregate([
      { $match: { _id: 3 } },
      {
        $project: {
          _id: 0,
          union: { $size: { $setUnion: [[Long.fromNumber(1), 2], [1, dec("2.0")]] } },
          equals: { $setEquals: [[Long.fromNumber(1), 2], [dec("1.0"), 2, 2]] },
          intersection: { $size: { $setIntersection: [[Long.fromNumber(1), 2], [1]] } },
          difference: { $setDifference: [[Long.fromNumber(1), 2, 3], [1, dec("3")]] },
          subset: { $setIsSubset: [[1], [Long.fromNumber(1), 2]] },
          index: { $indexOfArray: [[Long.fromNumber(7), Long.fromNumber(1)], 1] },
          equalArrays: { $eq: [[Long.fromNumber(1), 2], [1, dec("2")]] },
          lessArrays: { $lt: [[Long.fromNumber(1), 2], [1, 3]] },
        },
      },
    ]).toArray();
    assert.deepEqual(row, {
      union: 2,
      equals: true,
      intersection: 1,
      difference: [2],
      subset: true,
      index: 1,
      equalArrays: true,
      lessArrays: true,
    });
  });

  test("$sortArray orders numbers of every width by value", async () => {
    const [row] = await rows.aggregate([
      { $match: { _id: 3 } },
      {
        $project: {
          _id: 0,
          down: { $sortArray: { input: [Long.fromNumber(1), 3, dec("2.5"), Long.fromNumber(10)], sortBy: -1 } },
          byField: { $sortArray: { input: [{ n: Long.fromNumber(9) }, { n: 2 }, { n: dec("5") }], sortBy: { n: 1 } } },
        },
      },
    ], { promoteLongs: true }).toArray();
    assert.deepEqual(row.down.map(Number), [10, 3, 2.5, 1]);
    assert.deepEqual(row.byField.map((d: { n: unknown }) => Number(d.n)), [2, 5, 9]);
  });
});
