import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, Decimal128, type Document, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; [field: string]: unknown };

const long = (n: number) => Long.fromNumber(n);
const RAW = { promoteValues: false, promoteLongs: false } as const;

/**
 * `5`, `Long(5)` and `Decimal128("5.0")` are one value wherever MongoDB matches values by
 * equality: `$group` keys, `$lookup` joins, the `$in` expression, `$addToSet` and `$pullAll`.
 */
describe("embedded engine: numbers of every width matched by value", () => {
  let conn: Connected;
  let orders: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("value_matching");
    orders = conn.db.collection<Doc>("orders");
    await orders.insertMany([
      { _id: 1, customer: long(5), total: 10 },
      { _id: 2, customer: 5, total: 20 },
      { _id: 3, customer: Decimal128.fromString("5.0"), total: 30 },
      { _id: 4, customer: 6, total: 40 },
      { _id: 5, total: 50 },
      { _id: 6, customer: null, total: 60 },
    ]);
    await conn.db.collection<Doc>("customers").insertMany([
      { _id: 5, name: "five", ids: [long(5)] },
      { _id: 6, name: "six", ids: [6, 60] },
      { _id: 7, name: "nobody" },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  test("$group puts equal numbers of any width in one group, reported by the first one's _id", async () => {
    const groups = await orders.aggregate([
      { $sort: { _id: 1 } },
      { $group: { _id: "$customer", total: { $sum: "$total" }, orders: { $push: "$_id" } } },
      { $sort: { total: 1 } },
    ], RAW).toArray();
    assert.equal(groups.length, 3, JSON.stringify(groups));
    assert.equal(Number(groups[0]._id), 6);
    assert.ok(groups[1]._id instanceof Long && groups[1]._id.toNumber() === 5, "the first order's Long(5)");
    assert.deepEqual(groups.map((g) => [Number(g.total), g.orders.map(Number)]), [
      [40, [4]],
      [60, [1, 2, 3]],
      [110, [5, 6]], // a missing customer groups with null, as null
    ]);
    assert.equal(groups[2]._id, null);
  });

  test("$lookup joins a Long field to int32 ones, and an array of keys element by element", async () => {
    const joined = await orders.aggregate([
      { $sort: { _id: 1 } },
      { $lookup: { from: "customers", localField: "customer", foreignField: "_id", as: "by_id" } },
      { $lookup: { from: "customers", localField: "customer", foreignField: "ids", as: "by_ids" } },
      { $project: { by_id: "$by_id.name", by_ids: "$by_ids.name" } },
    ]).toArray();
    assert.deepEqual(joined, [
      { _id: 1, by_id: ["five"], by_ids: ["five"] },
      { _id: 2, by_id: ["five"], by_ids: ["five"] },
      { _id: 3, by_id: ["five"], by_ids: ["five"] },
      { _id: 4, by_id: ["six"], by_ids: ["six"] },
      { _id: 5, by_id: [], by_ids: ["nobody"] }, // missing matches missing or null, as in MongoDB
      { _id: 6, by_id: [], by_ids: ["nobody"] },
    ]);
  });

  test("a $lookup whose fields are not strings, or that has no 'as', is refused", async () => {
    for (
      const spec of [
        { from: "customers", localField: 5, foreignField: "_id", as: "j" },
        { from: "customers", localField: "customer", foreignField: "_id" },
      ]
    ) {
      await assert.rejects(
        orders.aggregate([{ $lookup: spec }]).toArray(),
        (e: MongoServerError) => e.code === 9 && /must be a string|must specify 'as'/.test(e.message),
      );
    }
  });

  test("the $in expression finds a number among numbers of another width", async () => {
    const rows = await orders.aggregate([
      { $match: { _id: { $lte: 4 } } },
      { $sort: { _id: 1 } },
      { $project: { known: { $in: ["$customer", [long(6), Decimal128.fromString("5")]] } } },
    ]).toArray();
    assert.deepEqual(rows.map((r) => r.known), [true, true, true, true]);
  });

  test("$addToSet skips a value already there in another width; $pullAll removes across widths", async () => {
    const sets = conn.db.collection<Doc>("sets");
    await sets.insertOne({ _id: 1, tags: [long(1), 2], other: [long(3), 4, long(5)] });
    // Updates as plain documents: the driver's typed filters refuse these on `unknown` fields.
    const update = (spec: Document): Document => spec;
    await sets.updateOne(
      { _id: 1 },
      update({ $addToSet: { tags: { $each: [1, Decimal128.fromString("2.0"), 7, 7] } } }),
    );
    await sets.updateOne({ _id: 1 }, update({ $pullAll: { other: [3, Decimal128.fromString("5")] } }));
    const raw = await sets.findOne({ _id: 1 }, RAW) as Document;
    assert.deepEqual(raw.tags.map(String), ["1", "2", "7"]);
    assert.ok(raw.tags[0] instanceof Long, "the element already there is kept as it was");
    assert.deepEqual(raw.other.map(String), ["4"]);
    await assert.rejects(
      sets.updateOne({ _id: 1 }, { $addToSet: { tags: { $each: 5 } } } as Document),
      (e: MongoServerError) => e.code === 2,
    );
  });

  test("$bucket places numbers of every width by value and outputs only the buckets that hold documents", async () => {
    const buckets = await orders.aggregate([
      {
        $bucket: {
          groupBy: "$customer",
          boundaries: [0, 5.5, 10, 20],
          default: "none",
          output: { ids: { $push: "$_id" } },
        },
      },
    ]).toArray();
    assert.deepEqual(buckets, [
      { _id: 0, ids: [1, 2, 3] }, // Long(5), 5, Decimal128("5.0") fall below 5.5
      { _id: 5.5, ids: [4] },
      { _id: "none", ids: [5, 6] }, // missing and null
    ]);
    const refused = async (spec: Document, code: number) => {
      await assert.rejects(orders.aggregate([{ $bucket: spec }]).toArray(), (e: MongoServerError) => {
        assert.equal(e.code, code, e.message);
        return true;
      });
    };
    await refused({ groupBy: "$customer", boundaries: [0, 10] }, 40066); // null has no bucket and there is no default
    await refused({ groupBy: "$customer", boundaries: [10, 0], default: "x" }, 40194);
    await refused({ groupBy: "$customer", boundaries: [0, 10], default: 5 }, 40199);
    await refused({ groupBy: "$customer", boundaries: [0] }, 40192);
  });

  test("$bucketAuto sorts keys in BSON order, never splits a key, and writes _id first", async () => {
    const keyed = conn.db.collection<{ _id: number; k?: unknown }>("auto_keys");
    await keyed.insertMany([
      { _id: 1, k: Long.fromNumber(5) },
      { _id: 2, k: 1 },
      { _id: 3, k: 3.5 },
      { _id: 4, k: Decimal128.fromString("2") },
      { _id: 5, k: "a" },
      { _id: 6 },
    ]);
    const buckets = await keyed.aggregate([{ $bucketAuto: { groupBy: "$k", buckets: 3 } }]).toArray();
    assert.deepEqual(buckets.map((b) => Object.keys(b)), [["_id", "count"], ["_id", "count"], ["_id", "count"]]);
    assert.deepEqual(
      buckets.map((b) => [String(b._id.min), String(b._id.max), b.count]),
      [["null", "2", 2], ["2", "5", 2], ["5", "a", 2]],
    );
    // Three documents in two buckets make buckets of two (rounded), and the two 22s stay together.
    const repeated = conn.db.collection<{ _id: number; k: number }>("auto_repeats");
    await repeated.insertMany([{ _id: 1, k: 11 }, { _id: 2, k: 22 }, { _id: 3, k: 22 }]);
    assert.deepEqual(
      await repeated.aggregate([{ $bucketAuto: { groupBy: "$k", buckets: 2, output: { ids: { $push: "$_id" } } } }])
        .toArray(),
      [{ _id: { min: 11, max: 22 }, ids: [1, 2, 3] }],
    );
    await assert.rejects(
      repeated.aggregate([{ $bucketAuto: { groupBy: "$k", buckets: 0 } }]).toArray(),
      (e: MongoServerError) => e.code === 40243,
    );
    const refused = async (spec: Document, code: number) => {
      await assert.rejects(repeated.aggregate([{ $bucketAuto: spec }]).toArray(), (e: MongoServerError) => {
        assert.equal(e.code, code, e.message);
        return true;
      });
    };
    await refused({ groupBy: "$k", buckets: 2, bad: 1 }, 40245);
    await refused({ groupBy: "$k", buckets: 2.5 }, 40242);
    await refused({ groupBy: "$k", buckets: 2, output: 1 }, 40244);
    await refused({ groupBy: { k: "$k" }, buckets: 2 }, 40239);
    // An empty output counts, as no output does.
    assert.deepEqual(
      await repeated.aggregate([{ $bucketAuto: { groupBy: "$k", buckets: 1, output: {} } }]).toArray(),
      [{ _id: { min: 11, max: 22 }, count: 3 }],
    );
    // Under a collation, keys it calls equal share a bucket.
    const letters = conn.db.collection<{ _id: number; k: string }>("auto_letters");
    await letters.insertMany(["b", "A", "a", "B", "c", "C"].map((k, i) => ({ _id: i, k })));
    const collated = await letters.aggregate([{
      $bucketAuto: { groupBy: "$k", buckets: 3, output: { n: { $sum: 1 } } },
    }], {
      collation: { locale: "en", strength: 2 },
    }).toArray();
    assert.deepEqual(collated.map((b) => b.n), [2, 2, 2]);
  });

  test("$sortByCount and $addToSet group numbers by value; $push and $addToSet leave missing values out", async () => {
    const mixed = conn.db.collection<{ _id: number; x?: unknown; g: number }>("mixed_values");
    await mixed.insertMany([
      { _id: 1, x: Long.fromNumber(5), g: 1 },
      { _id: 2, x: 5, g: 1 },
      { _id: 3, x: Decimal128.fromString("5.0"), g: 1 },
      { _id: 4, x: 7, g: 2 },
      { _id: 5, g: 2 },
      { _id: 6, x: null, g: 2 },
    ]);
    const counted = await mixed.aggregate([{ $sortByCount: "$x" }]).toArray();
    assert.deepEqual(counted.map((c) => [String(c._id), c.count]), [["5", 3], ["null", 2], ["7", 1]]);
    const sets = await mixed.aggregate([
      { $sort: { _id: 1 } },
      { $group: { _id: "$g", set: { $addToSet: "$x" }, list: { $push: "$x" } } },
      { $sort: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(sets.map((s) => s.set.map(String)), [["5"], ["null", "7"]]);
    assert.deepEqual(sets[1].list, [7, null]); // the document without x adds nothing
    const windowed = await mixed.aggregate([
      { $match: { g: 2 } },
      {
        $setWindowFields: {
          sortBy: { _id: 1 },
          output: { seen: { $push: "$x", window: { documents: ["unbounded", "current"] } } },
        },
      },
    ]).toArray();
    assert.deepEqual(windowed.map((w) => w.seen), [[7], [7], [7, null]]);
    await assert.rejects(mixed.aggregate([{ $sortByCount: "x" }]).toArray(), (e: MongoServerError) => e.code === 40148);
    await assert.rejects(mixed.aggregate([{ $sortByCount: {} }]).toArray(), (e: MongoServerError) => e.code === 40147);
    await assert.rejects(mixed.aggregate([{ $sortByCount: 5 }]).toArray(), (e: MongoServerError) => e.code === 40149);
    // The accumulators' own helper cannot be called from a pipeline.
    await assert.rejects(
      mixed.aggregate([{ $project: { v: { $__engineOrMissing: { expr: "$x" } } } }]).toArray(),
      (e: MongoServerError) => e.code === 168,
    );
  });

  test("a pipeline cannot call the engine's internal group-key and bucket operators", async () => {
    await assert.rejects(
      orders.aggregate([{ $project: { k: { $__engineGroupKey: { id: "$customer" } } } }]).toArray(),
      (e: MongoServerError) => e.code === 168 && /Unrecognized expression/.test(e.message),
    );
    await assert.rejects(
      orders.aggregate([{ $project: { k: { $__engineBucketOf: { groupBy: "$customer" } } } }]).toArray(),
      (e: MongoServerError) => e.code === 168,
    );
  });
});
