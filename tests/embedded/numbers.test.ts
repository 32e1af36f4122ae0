import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, Decimal128, type Document, Double, Int32, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; [field: string]: unknown };

/** Long and Decimal128 are numbers: in filters, sorts and arithmetic updates. */
describe("embedded engine: numbers of every width", () => {
  let conn: Connected;
  let nums: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("numbers");
    nums = conn.db.collection<Doc>("nums");
    await nums.insertMany([
      { _id: 1, n: new Int32(5) },
      { _id: 2, n: Long.fromNumber(5) },
      { _id: 3, n: new Double(5) },
      { _id: 4, n: Decimal128.fromString("5.0") },
      { _id: 5, n: Long.fromString("9007199254740993") },
      { _id: 6, n: Decimal128.fromString("4.5") },
      { _id: 7, n: "5" },
      { _id: 8, n: [Long.fromNumber(1), Long.fromNumber(50)] },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const ids = async (filter: Document, sort: Document = { _id: 1 }) =>
    (await nums.find(filter).sort(sort).toArray()).map((d) => d._id);

  test("equality and $in match every numeric type by value, never the string", async () => {
    assert.deepEqual(await ids({ n: 5 }), [1, 2, 3, 4]);
    assert.deepEqual(await ids({ n: Long.fromNumber(5) }), [1, 2, 3, 4]);
    assert.deepEqual(await ids({ n: Decimal128.fromString("5") }), [1, 2, 3, 4]);
    assert.deepEqual(await ids({ n: { $in: [4.5, 50] } }), [6, 8]);
    assert.deepEqual(await ids({ n: { $ne: 5 } }), [5, 6, 7, 8]);
    assert.deepEqual(await ids({ n: { $nin: [Long.fromNumber(5), "5"] } }), [5, 6, 8]);
    // Longs beyond 2^53 compare exactly with each other.
    assert.deepEqual(await ids({ n: Long.fromString("9007199254740993") }), [5]);
    assert.deepEqual(await ids({ n: Long.fromString("9007199254740992") }), []);
  });

  test("ranges bracket numbers together and compare them by value", async () => {
    assert.deepEqual(await ids({ n: { $gt: 4 } }), [1, 2, 3, 4, 5, 6, 8]);
    // Each condition may be met by a different element of an array, as in MongoDB.
    assert.deepEqual(await ids({ n: { $gt: 4.5, $lt: Long.fromNumber(6) } }), [1, 2, 3, 4, 8]);
    assert.deepEqual(await ids({ n: { $elemMatch: { $gt: 4.5, $lt: Long.fromNumber(6) } } }), []);
    assert.deepEqual(await ids({ n: { $lte: Decimal128.fromString("4.5") } }), [6, 8]);
    assert.deepEqual(await ids({ n: { $gte: Long.fromString("9007199254740993") } }), [5]);
  });

  test("sorts order them by value, in find and in aggregation", async () => {
    const order = [8, 6, 1, 2, 3, 4, 5, 7];
    assert.deepEqual(await ids({}, { n: 1, _id: 1 }), order);
    const agg = await nums.aggregate([{ $project: { n: 1 } }, { $sort: { n: 1, _id: 1 } }]).toArray();
    assert.deepEqual(agg.map((d) => d._id), order);
  });

  test("$inc, $mul, $min and $max on a Long keep a Long; with a double they give a double", async () => {
    const c = conn.db.collection<Doc>("counters");
    await c.insertOne({
      _id: 1,
      a: Long.fromNumber(10),
      b: Long.fromNumber(10),
      d: Decimal128.fromString("1.10"),
      m: Long.fromNumber(7),
    });
    await c.updateOne({ _id: 1 }, {
      $inc: { a: 5, b: 0.5, d: Decimal128.fromString("0.05"), fresh: Long.fromNumber(3) } as Document,
    });
    await c.updateOne({ _id: 1 }, { $mul: { m: Long.fromNumber(3) }, $max: { a: 100 } } as Document);
    const raw = (await c.findOne({ _id: 1 }, { promoteLongs: false, promoteValues: false })) as Document | null;
    assert.ok(raw);
    assert.ok(raw.a instanceof Int32 && raw.a.value === 100, `$max put the int 100 in over Long(15): ${raw.a}`);
    assert.ok(raw.b instanceof Double, `b: ${raw.b}`);
    assert.equal(Number(raw.b.valueOf()), 10.5);
    assert.equal(raw.d.toString(), "1.15");
    assert.ok(raw.fresh instanceof Long && raw.fresh.toNumber() === 3, "a missing field takes the Long amount");
    assert.ok(raw.m instanceof Long && raw.m.toNumber() === 21);
    const counter = await c.findOneAndUpdate({ _id: 1 }, { $inc: { fresh: 1 } as Document }, {
      returnDocument: "after",
      promoteLongs: false,
    });
    assert.ok(counter?.fresh instanceof Long && counter.fresh.toNumber() === 4);
  });

  test("a Long overflow is refused and leaves the document unchanged", async () => {
    const c = conn.db.collection<Doc>("overflow");
    await c.insertOne({ _id: 1, n: Long.MAX_VALUE });
    await assert.rejects(
      c.updateOne({ _id: 1 }, { $inc: { n: 1 } as Document }),
      (e: MongoServerError) => e.code === 2 && /overflow/.test(e.message),
    );
    const doc = await c.findOne({ _id: 1 }, { promoteLongs: false });
    assert.ok(doc?.n instanceof Long && doc.n.equals(Long.MAX_VALUE));
  });
});

/**
 * Decimal128 compares by exact value, as MongoDB's does: with doubles (whose exact values are
 * long binary fractions), with Longs beyond 2^53 and with decimals of 34 digits, which all
 * round to the same double.
 */
describe("embedded engine: Decimal128 compared exactly", () => {
  let conn: Connected;
  let exact: Collection<Doc>;
  const dec = (text: string) => Decimal128.fromString(text);
  // 0.1's double is 0.1000000000000000055511151231257827021181583404541015625.
  const belowDouble = "0.1000000000000000055511151231257827"; // 34 digits: just under it
  const aboveDouble = "0.1000000000000000055511151231257828";

  before(async () => {
    conn = await connectTarget("exact_numbers");
    exact = conn.db.collection<Doc>("exact");
    await exact.insertMany([
      { _id: 1, x: 0.1 },
      { _id: 2, x: dec("0.1") },
      { _id: 3, x: dec(belowDouble) },
      { _id: 4, x: dec(aboveDouble) },
      { _id: 5, x: dec("0.10") },
      { _id: 6, x: dec("1.000000000000000000000000000000001") },
      { _id: 7, x: 1 },
      { _id: 8, x: dec("1.000000000000000000000000000000002") },
      { _id: 9, x: dec("1E+400") },
      { _id: 10, x: Infinity },
      { _id: 11, x: dec("Infinity") },
      { _id: 12, x: dec("1E-400") },
      { _id: 13, x: 0 },
      { _id: 14, x: dec("NaN") },
    ]);
  });
  after(async () => await conn.close());

  const ids = async (filter: Document, sort: Document = { _id: 1 }) =>
    (await exact.find(filter).sort(sort).toArray()).map((d) => d._id);

  test("equality tells a decimal from the double nearest it, and ignores trailing zeros", async () => {
    assert.deepEqual(await ids({ x: 0.1 }), [1]);
    assert.deepEqual(await ids({ x: dec("0.1") }), [2, 5]);
    assert.deepEqual(await ids({ x: { $in: [dec("0.100"), 1] } }), [2, 5, 7]);
    assert.deepEqual(await ids({ x: dec("1") }), [7]);
    assert.deepEqual(await ids({ x: dec("Infinity") }), [10, 11]);
  });

  test("ranges split values that round to the same double", async () => {
    assert.deepEqual(await ids({ x: { $gt: 0.1, $lt: 0.2 } }), [4]);
    assert.deepEqual(await ids({ x: { $lt: 0.1, $gt: 0 } }), [2, 3, 5, 12]);
    assert.deepEqual(await ids({ x: { $gt: 1, $lt: 2 } }), [6, 8]);
    assert.deepEqual(await ids({ x: { $gt: dec("1E+399"), $lt: Infinity } }), [9]);
  });

  const order = [14, 13, 12, 2, 5, 3, 1, 4, 7, 6, 8, 9, 10, 11];
  test("sorts order them exactly, with and without an index", async () => {
    assert.deepEqual(await ids({}, { x: 1, _id: 1 }), order);
    await exact.createIndex({ x: 1 });
    assert.deepEqual(await ids({}, { x: 1, _id: 1 }), order);
    assert.deepEqual(await ids({ x: { $gt: 0.1, $lte: 1 } }, { x: -1 }), [7, 4]);
    const agg = await exact.aggregate([{ $sort: { x: 1, _id: 1 } }]).toArray();
    assert.deepEqual(agg.map((d) => d._id), order);
  });

  test("a unique index refuses equal values of any width, and takes a decimal beside its double", async () => {
    const unique = conn.db.collection<Doc>("exact_unique");
    await unique.createIndex({ x: 1 }, { unique: true });
    await unique.insertMany([
      { _id: 1, x: dec("1.1") },
      { _id: 2, x: 1.1 },
      { _id: 3, x: Long.fromString("9007199254740993") },
      { _id: 4, x: Long.fromString("1152921504606846976") }, // 2^60: a double holds it exactly
    ]);
    const duplicates = [dec("1.10"), dec("9007199254740993"), 2 ** 60, dec("1152921504606846976.0")];
    for (const [i, x] of duplicates.entries()) {
      await assert.rejects(unique.insertOne({ _id: 10 + i, x }), (e: MongoServerError) => e.code === 11000, String(x));
    }
    assert.equal(await unique.countDocuments(), 4);
  });

  test("an update that changes only a number's type or digits writes it", async () => {
    const c = conn.db.collection<Doc>("exact_updates");
    await c.insertOne({ _id: 1, price: dec("1.1"), count: 5 });
    const digits = await c.updateOne({ _id: 1 }, { $set: { price: dec("1.10") } });
    const type = await c.updateOne({ _id: 1 }, { $set: { count: Long.fromNumber(5) } });
    const same = await c.updateOne({ _id: 1 }, { $set: { price: dec("1.10"), count: Long.fromNumber(5) } });
    assert.deepEqual([digits.modifiedCount, type.modifiedCount, same.modifiedCount], [1, 1, 0]);
    const raw = await c.findOne({ _id: 1 }, { promoteLongs: false });
    assert.equal(raw?.price?.toString(), "1.10");
    assert.ok(raw?.count instanceof Long, `count: ${raw?.count}`);
  });
});
