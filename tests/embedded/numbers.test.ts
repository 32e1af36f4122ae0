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
