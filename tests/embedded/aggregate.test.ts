import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Decimal128, type Document, Long } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** aggregate runs its stages with mingo and returns a cursor. */
describe("embedded engine: aggregate", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("aggregate");
    await conn.db.collection("orders").insertMany([
      { _id: 1, customer: "ann", total: 10, items: [{ sku: "a", n: 1 }] },
      { _id: 2, customer: "bob", total: 20, items: [{ sku: "b", n: 2 }] },
      { _id: 3, customer: "ann", total: 30, items: [] },
      { _id: 4, customer: "cid", total: 40, items: [{ sku: "a", n: 3 }] },
    ] as Document[]);
    await conn.db.collection("customers").insertMany([
      { _id: "ann", city: "Oslo" },
      { _id: "bob", city: "Rome" },
    ] as Document[]);
  });
  after(async () => {
    await conn.close();
  });

  test("$match, $sort, $skip, $limit and $project", async () => {
    const docs = await conn.db
      .collection("orders")
      .aggregate([{ $match: { total: { $gte: 20 } } }, { $sort: { total: -1 } }, { $skip: 1 }, { $limit: 2 }, {
        $project: { _id: 0, customer: 1 },
      }])
      .toArray();
    assert.deepEqual(docs, [{ customer: "ann" }, { customer: "bob" }]);
  });

  test("$group with accumulators, then $sort", async () => {
    const docs = await conn.db
      .collection("orders")
      .aggregate([{ $group: { _id: "$customer", sum: { $sum: "$total" }, n: { $sum: 1 } } }, { $sort: { _id: 1 } }])
      .toArray();
    assert.deepEqual(docs, [
      { _id: "ann", sum: 40, n: 2 },
      { _id: "bob", sum: 20, n: 1 },
      { _id: "cid", sum: 40, n: 1 },
    ]);
  });

  test("$group as the last stage, after $project or $addFields, answers through a cursor", async () => {
    // mingo's $group iterator does not stay done: asked again after its last group, it
    // computed one more from no documents ("arguments must resolve to array for $sum").
    const orders = conn.db.collection("orders");
    const byCustomer = (docs: Document[]) => [...docs].sort((a, b) => String(a._id).localeCompare(String(b._id)));
    const projected = await orders
      .aggregate([{ $project: { customer: 1, total: 1 } }, {
        $group: { _id: "$customer", sum: { $sum: "$total" }, n: { $sum: 1 } },
      }])
      .toArray();
    assert.deepEqual(byCustomer(projected), [{ _id: "ann", sum: 40, n: 2 }, { _id: "bob", sum: 20, n: 1 }, {
      _id: "cid",
      sum: 40,
      n: 1,
    }]);
    const added = await orders
      .aggregate([{ $addFields: { double: { $multiply: ["$total", 2] } } }, {
        $group: { _id: null, sum: { $sum: "$double" }, top: { $max: "$total" } },
      }])
      .toArray();
    assert.deepEqual(added, [{ _id: null, sum: 200, top: 40 }]);
    const buckets = await orders.aggregate([{
      $bucket: { groupBy: "$total", boundaries: [0, 25, 50], output: { n: { $sum: 1 } } },
    }], { batchSize: 1 }).toArray();
    assert.deepEqual(buckets, [{ _id: 0, n: 2 }, { _id: 25, n: 2 }]);
  });

  test("$count", async () => {
    const docs = await conn.db.collection("orders").aggregate([{ $match: { customer: "ann" } }, { $count: "howMany" }])
      .toArray();
    assert.deepEqual(docs, [{ howMany: 2 }]);
  });

  test("$lookup joins another collection without changing it", async () => {
    const docs = await conn.db
      .collection("orders")
      .aggregate([
        { $match: { _id: { $lte: 2 } } },
        { $lookup: { from: "customers", localField: "customer", foreignField: "_id", as: "who" } },
        { $project: { customer: 1, city: { $first: "$who.city" } } },
      ])
      .toArray();
    assert.deepEqual(docs, [
      { _id: 1, customer: "ann", city: "Oslo" },
      { _id: 2, customer: "bob", city: "Rome" },
    ]);
    assert.deepEqual(await conn.db.collection("customers").findOne({ _id: "ann" } as Document), {
      _id: "ann",
      city: "Oslo",
    });
  });

  test("stages that reshape documents never alter the stored ones", async () => {
    await conn.db
      .collection("orders")
      .aggregate([{ $unwind: { path: "$items", includeArrayIndex: "i" } }, { $set: { "items.n": 0, extra: 1 } }, {
        $unset: "total",
      }])
      .toArray();
    assert.deepEqual(await conn.db.collection("orders").findOne({ _id: 1 } as Document), {
      _id: 1,
      customer: "ann",
      total: 10,
      items: [{ sku: "a", n: 1 }],
    });
  });

  test("joined documents are not altered by later stages either", async () => {
    const docs = await conn.db
      .collection("orders")
      .aggregate([
        { $match: { _id: 1 } },
        { $lookup: { from: "customers", localField: "customer", foreignField: "_id", as: "who" } },
        { $unwind: "$who" },
        { $set: { "who.city": "changed" } },
        { $unionWith: { coll: "customers" } },
        { $set: { city: "changed too" } },
      ])
      .toArray();
    assert.equal(docs.length, 3);
    assert.equal(docs[0].who.city, "changed");
    assert.deepEqual(await conn.db.collection("customers").find().toArray(), [
      { _id: "ann", city: "Oslo" },
      { _id: "bob", city: "Rome" },
    ]);
  });

  test("countDocuments' pipeline, with and without skip/limit", async () => {
    const orders = conn.db.collection("orders");
    assert.equal(await orders.countDocuments(), 4);
    assert.equal(await orders.countDocuments({ customer: "ann" }), 2);
    assert.equal(await orders.countDocuments({}, { skip: 3, limit: 5 }), 1);
    assert.equal(await orders.countDocuments({ customer: "zed" }), 0);
  });

  test("the countDocuments shape counts by key when the key is a path: an array or a document of paths", async () => {
    const orders = conn.db.collection("orders");
    // The shape the engine answers from a count: $group last, one $sum of 1.
    const grouped = async (id: unknown) =>
      (await orders.aggregate([{ $group: { _id: id, n: { $sum: 1 } } }]).toArray())
        .sort((a, b) => JSON.stringify(a._id).localeCompare(JSON.stringify(b._id)));
    assert.deepEqual(await grouped(["$customer"]), [
      { _id: ["ann"], n: 2 },
      { _id: ["bob"], n: 1 },
      { _id: ["cid"], n: 1 },
    ]);
    assert.deepEqual(await grouped({ c: "$customer" }), [
      { _id: { c: "ann" }, n: 2 },
      { _id: { c: "bob" }, n: 1 },
      { _id: { c: "cid" }, n: 1 },
    ]);
    assert.deepEqual(await grouped("all"), [{ _id: "all", n: 4 }]);
    assert.deepEqual(await grouped([1, 2]), [{ _id: [1, 2], n: 4 }]);
  });

  test("$skip, $limit and $match arguments are checked as MongoDB checks them, counted or not", async () => {
    const orders = conn.db.collection("orders");
    const refused = async (pipeline: Document[], code: number, message: string) => {
      for (const tail of [[{ $group: { _id: null, n: { $sum: 1 } } }], [{ $project: { _id: 1 } }]]) {
        await assert.rejects(orders.aggregate([...pipeline, ...tail]).toArray(), (error: Error & { code?: number }) => {
          assert.equal(error.code, code, error.message);
          assert.equal(error.message, message);
          return true;
        });
      }
    };
    await refused(
      [{ $skip: -1 }],
      5107200,
      "invalid argument to $skip stage: Expected a non-negative number in: $skip: -1",
    );
    await refused([{ $skip: 1.5 }], 5107200, "invalid argument to $skip stage: Expected an integer: $skip: 1.5");
    await refused([{ $skip: "x" }], 5107200, 'invalid argument to $skip stage: Expected a number in: $skip: "x"');
    await refused(
      [{ $limit: -2 }],
      5107201,
      "invalid argument to $limit stage: Expected a non-negative number in: $limit: -2",
    );
    await refused([{ $limit: 0 }], 15958, "the limit must be positive");
    await refused([{ $match: 5 }], 15959, "the match filter must be an expression in an object");
    await refused(
      [{ $skip: Number.NaN }],
      5107200,
      "invalid argument to $skip stage: Expected an integer, but found NaN in: $skip: NaN",
    );
    await refused(
      [{ $limit: Infinity }],
      5107201,
      "invalid argument to $limit stage: Cannot represent as a 64-bit integer: $limit: Infinity",
    );
    await refused(
      [{ $skip: Decimal128.fromString("1.5") }],
      5107200,
      "invalid argument to $skip stage: Cannot represent as a 64-bit integer: $skip: 1.5",
    );
    assert.deepEqual(await orders.aggregate([{ $limit: Long.MAX_VALUE }, { $count: "n" }]).toArray(), [{ n: 4 }]);
    await refused(
      [{ $lookup: { from: "customers", pipeline: [{ $skip: -1 }], as: "c" } }],
      5107200,
      "invalid argument to $skip stage: Expected a non-negative number in: $skip: -1",
    );
    await refused([{ $facet: { a: [{ $match: {} }, { $limit: 0 }] } }], 15958, "the limit must be positive");
    await refused(
      [{ $unionWith: { coll: "customers", pipeline: [{ $match: "x" }] } }],
      15959,
      "the match filter must be an expression in an object",
    );
    await assert.rejects(
      conn.db.createCollection("limited_view", { viewOn: "orders", pipeline: [{ $limit: 0 }] }),
      (error: Error & { code?: number }) => error.code === 15958,
    );
    assert.deepEqual(await orders.aggregate([{ $skip: 3 }, { $group: { _id: null, n: { $sum: 1 } } }]).toArray(), [
      { _id: null, n: 1 },
    ]);
  });

  test("results larger than a batch come back through getMore", async () => {
    const c = conn.db.collection("many");
    await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, g: i % 3 })) as Document[]);
    const docs = await c.aggregate([{ $match: { g: 1 } }, { $project: { _id: 1 } }], { batchSize: 10 }).toArray();
    assert.equal(docs.length, 100);
    assert.equal(docs[99]._id, 298);
  });
});
