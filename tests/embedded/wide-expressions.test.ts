import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, Double, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";
import { dec, RAW, typed } from "./typed.ts";

type Doc = { _id: number; [field: string]: unknown };

/**
 * Aggregation on Long and Decimal128 values computes with MongoDB's result types, where mingo
 * (which the engine's aggregation is built on) treats them as objects.
 */
describe("embedded engine: aggregation on numbers of every width", () => {
  let conn: Connected;
  let rows: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("wide_expressions");
    rows = conn.db.collection<Doc>("rows");
    await rows.insertMany([
      { _id: 1, g: "a", l: Long.fromNumber(5), d: dec("1.5"), i: 2 ** 31 - 1, n: 2 },
      { _id: 2, g: "a", l: Long.fromNumber(7), d: dec("2.5"), i: 1, n: 3 },
      { _id: 3, g: "b", l: Long.MAX_VALUE, d: dec("0.1"), i: 4, n: 0.5, s: "x" },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const project = async (id: number, fields: Document) => {
    const [row] = await rows.aggregate([{ $match: { _id: id } }, { $project: { _id: 0, ...fields } }], RAW).toArray();
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typed(v)]));
  };

  test("$sum, $avg, $max and $min over Longs and Decimal128s keep MongoDB's types", async () => {
    const [a] = await rows.aggregate([
      { $match: { g: "a" } },
      {
        $group: {
          _id: "$g",
          l: { $sum: "$l" },
          d: { $sum: "$d" },
          i: { $sum: "$i" },
          n: { $sum: "$n" },
          avgL: { $avg: "$l" },
          avgD: { $avg: "$d" },
          maxL: { $max: "$l" },
          minD: { $min: "$d" },
          count: { $sum: 1 },
        },
      },
    ], RAW).toArray();
    assert.deepEqual(Object.fromEntries(Object.entries(a).map(([k, v]) => [k, typed(v)])), {
      _id: '"a"',
      l: "Long(12)",
      d: "Decimal128(4.0)",
      i: "Long(2147483648)", // int32 values past the int32 range
      n: "Int32(5)",
      avgL: "Int32(6)", // a double 6.0, which the engine holds as a JS number (see the README's limits)
      avgD: "Decimal128(2.0)", // an exact quotient keeps the dividend's exponent, as IEEE 754 decimal division does
      maxL: "Long(7)",
      minD: "Decimal128(1.5)",
      count: "Int32(2)",
    });
  });

  test("$add, $subtract and $multiply widen int32 to Long, and a Long overflow to a double", async () => {
    assert.deepEqual(
      await project(1, {
        add: { $add: ["$l", 1] },
        addInts: { $add: ["$i", 1] },
        addDecimal: { $add: ["$d", "$l", 1] },
        sub: { $subtract: ["$l", "$n"] },
        mul: { $multiply: ["$d", 2] },
        mulInts: { $multiply: ["$i", "$i"] },
        date: { $add: [new Date(1000), "$l"] },
        missing: { $add: ["$l", "$nothing"] },
      }),
      {
        add: "Long(6)",
        addInts: "Long(2147483648)",
        addDecimal: "Decimal128(7.5)",
        sub: "Long(3)",
        mul: "Decimal128(3.0)",
        mulInts: "Long(4611686014132420609)", // (2^31 - 1)², exact
        date: "Date(1005)",
        missing: "null",
      },
    );
    const [overflow] = await rows.aggregate([{ $match: { _id: 3 } }, {
      $project: { v: { $add: ["$l", Long.fromNumber(1)] } },
    }], RAW).toArray();
    assert.ok(overflow.v instanceof Double, `Long.MAX_VALUE + 1 is a double: ${typed(overflow.v)}`);
    assert.equal(overflow.v.value, 2 ** 63);
  });

  test("$divide gives a double, or a Decimal128 when one is divided, and refuses zero", async () => {
    assert.deepEqual(await project(2, { l: { $divide: ["$l", 2] }, d: { $divide: ["$d", 3] } }), {
      l: "Double(3.5)",
      d: "Decimal128(0.8333333333333333333333333333333333)",
    });
    await assert.rejects(
      rows.aggregate([{ $project: { v: { $divide: ["$l", 0] } } }]).toArray(),
      (e: MongoServerError) => e.code === 16608 && /can't \$divide by zero/.test(e.message),
    );
  });

  test("a wide number with a string is refused with MongoDB's codes", async () => {
    const refused = async (expression: Document, code: number, message: RegExp) => {
      await assert.rejects(
        rows.aggregate([{ $match: { _id: 3 } }, { $project: { v: expression } }]).toArray(),
        (e: MongoServerError) => {
          assert.equal(e.code, code, e.message);
          assert.match(e.message, message);
          return true;
        },
      );
    };
    await refused({ $add: ["$l", "$s"] }, 16554, /\$add only supports numeric or date types, not string/);
    await refused({ $multiply: ["$s", "$d"] }, 16555, /\$multiply only supports numeric types, not string/);
    await refused({ $subtract: ["$s", "$l"] }, 16556, /cant \$subtract a long from a string/);
    await refused({ $divide: ["$l", "$s"] }, 16609, /\$divide only supports numeric types, not long and string/);
  });

  test("comparison expressions and $expr compare Longs and Decimal128s by value", async () => {
    const ids = async (filter: Document) => (await rows.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    assert.deepEqual(await ids({ $expr: { $gt: ["$l", 6] } }), [2, 3]);
    assert.deepEqual(await ids({ $expr: { $lt: ["$d", 2] } }), [1, 3]);
    assert.deepEqual(await ids({ $expr: { $eq: ["$l", dec("5.0")] } }), [1]);
    assert.deepEqual(
      await project(1, { cmp: { $cmp: ["$l", 5] }, ne: { $ne: ["$d", 1.5] }, gte: { $gte: ["$l", 6] } }),
      {
        cmp: "Int32(0)",
        ne: "false",
        gte: "false",
      },
    );
  });

  test("$abs, $mod, $floor, $ceil, $trunc and $round keep a Long a Long and a Decimal128 a Decimal128", async () => {
    const numbers = conn.db.collection<Doc>("rounding");
    await numbers.insertMany([{ _id: 1, v: Long.fromNumber(-1234) }, { _id: 2, v: dec("-2.567") }, {
      _id: 3,
      v: dec("2.5"),
    }]);
    const rows = await numbers.aggregate([{ $sort: { _id: 1 } }, {
      $project: {
        _id: 0,
        abs: { $abs: "$v" },
        floor: { $floor: "$v" },
        ceil: { $ceil: "$v" },
        trunc: { $trunc: ["$v", 1] },
        round: { $round: ["$v", 0] },
        hundreds: { $round: ["$v", -2] },
        mod: { $mod: ["$v", Long.fromNumber(7)] },
      },
    }], RAW).toArray();
    assert.deepEqual(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typed(v)]))), [
      {
        abs: "Long(1234)",
        floor: "Long(-1234)",
        ceil: "Long(-1234)",
        trunc: "Long(-1234)",
        round: "Long(-1234)",
        hundreds: "Long(-1200)",
        mod: "Long(-2)",
      },
      {
        abs: "Decimal128(2.567)",
        floor: "Decimal128(-3)",
        ceil: "Decimal128(-2)",
        trunc: "Decimal128(-2.5)",
        round: "Decimal128(-3)",
        hundreds: "Decimal128(0E+2)",
        mod: "Decimal128(-2.567)",
      },
      {
        abs: "Decimal128(2.5)",
        floor: "Decimal128(2)",
        ceil: "Decimal128(3)",
        trunc: "Decimal128(2.5)",
        round: "Decimal128(2)", // half to even
        hundreds: "Decimal128(0E+2)",
        mod: "Decimal128(2.5)",
      },
    ]);
    await assert.rejects(
      numbers.aggregate([{ $project: { v: { $mod: ["$v", Long.fromNumber(0)] } } }]).toArray(),
      (e: MongoServerError) => e.code === 16610,
    );
    await assert.rejects(
      numbers.aggregate([{ $project: { v: { $round: ["$v", 1e9] } } }]).toArray(),
      (e: MongoServerError) => e.code === 2 && /between -20 and 100/.test(e.message),
    );
    const [plain] = await numbers.aggregate([{ $limit: 1 }, {
      $project: { _id: 0, abs: { $abs: -3 }, floor: { $floor: 2.7 }, mod: { $mod: [7, 4] } },
    }]).toArray();
    assert.deepEqual(plain, { abs: 3, floor: 2, mod: 3 }, "plain numbers still go to mingo's operators");
  });

  test("$toLong and $toDecimal give those types; $toInt and $toDouble read them", async () => {
    assert.deepEqual(
      await project(2, {
        long: { $toLong: "$n" },
        longOfDecimal: { $toLong: dec("-7.9") },
        longOfText: { $toLong: "42" },
        decimal: { $toDecimal: "$n" },
        intOfLong: { $toInt: "$l" },
        doubleOfDecimal: { $toDouble: "$d" },
        type: { $type: { $toLong: "$n" } },
      }),
      {
        long: "Long(3)",
        longOfDecimal: "Long(-7)",
        longOfText: "Long(42)",
        decimal: "Decimal128(3)",
        intOfLong: "Int32(7)",
        doubleOfDecimal: "Double(2.5)",
        type: '"long"',
      },
    );
    await assert.rejects(
      rows.aggregate([{ $match: { _id: 3 } }, { $project: { v: { $toInt: "$l" } } }]).toArray(),
      (e: MongoServerError) => e.code === 241,
    );
  });
});
