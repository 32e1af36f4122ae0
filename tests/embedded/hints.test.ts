import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** A test document: numbered, with whatever fields a test gives it. */
type Row = { _id: number; [field: string]: unknown };

/**
 * A valid `hint` is followed, as MongoDB follows it whatever another plan would cost: the read
 * goes through the hinted index (returnKey answers its keys, `$indexStats` counts it), or scans
 * the collection in the `$natural` direction. A hinted sparse or partial index reads only the
 * documents it holds, so the results change as MongoDB's do (the sparse index page of the
 * manual; SERVER-26413 for a partial one). The engine checked hints but chose its own plan.
 */
describe("embedded engine: hints are followed", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("hints");
    const c = conn.db.collection<Row>("h");
    await c.insertMany([
      { _id: 1, a: 1, b: 30, x: 100 },
      { _id: 2, a: 2, b: 20, x: 100, y: 1 },
      { _id: 3, b: 10, x: 100 },
    ]);
    await c.createIndex({ a: 1 });
    await c.createIndex({ b: 1 });
    await c.createIndex({ s: 1 }, { sparse: true });
    await c.createIndex({ x: 1 }, { partialFilterExpression: { y: { $exists: true } } });
  });
  after(async () => {
    await conn.close();
  });

  const ids = (docs: Document[]) => docs.map((d) => d._id);

  test("find reads the hinted index, by name or key pattern, even when another is better", async () => {
    const c = conn.db.collection<Row>("h");
    // The filter bounds `a`, the hint names `b`: the keys returned are b's, in b's order.
    const keys = await c.find({ a: { $gte: 1 } }, { returnKey: true, hint: "b_1" }).toArray();
    assert.deepEqual(keys, [{ b: 20 }, { b: 30 }]);
    const byPattern = await c.find({ a: { $gte: 1 } }, { returnKey: true, hint: { b: 1 } }).toArray();
    assert.deepEqual(byPattern, [{ b: 20 }, { b: 30 }]);
  });

  test("$natural: -1 reads the collection backwards", async () => {
    const c = conn.db.collection<Row>("h");
    assert.deepEqual(ids(await c.find({}, { hint: { $natural: -1 } }).toArray()), [3, 2, 1]);
    assert.deepEqual(ids(await c.find({ b: { $gt: 0 } }, { hint: { $natural: 1 } }).toArray()), [1, 2, 3]);
  });

  test("a hinted sparse index leaves out the documents it does not hold", async () => {
    const c = conn.db.collection<Row>("h");
    await c.updateOne({ _id: 2 }, { $set: { s: "x" } });
    assert.deepEqual(ids(await c.find({}, { hint: "s_1" }).toArray()), [2]);
    assert.deepEqual(ids(await c.find({}).toArray()), [1, 2, 3]);
    const counted = await conn.db.command({ count: "h", query: {}, hint: "s_1" });
    assert.equal(counted.n, 1);
  });

  test("a hinted partial index the query does not imply returns only what it holds", async () => {
    const c = conn.db.collection<Row>("h");
    assert.deepEqual(ids(await c.find({ x: 100 }, { hint: { x: 1 } }).toArray()), [2]);
    assert.deepEqual(ids(await c.find({ x: 100 }).toArray()), [1, 2, 3]);
  });

  test("updates and deletes follow the hint too", async () => {
    const c = conn.db.collection<Row>("h2");
    await c.insertMany([{ _id: 1, s: 1 }, { _id: 2 }, { _id: 3, s: 3 }]);
    await c.createIndex({ s: 1 }, { sparse: true });
    const updated = await c.updateMany({}, { $set: { seen: true } }, { hint: "s_1" });
    assert.equal(updated.matchedCount, 2);
    const deleted = await c.deleteMany({}, { hint: { s: 1 } });
    assert.equal(deleted.deletedCount, 2);
    assert.deepEqual(await c.find().toArray(), [{ _id: 2 }]);
  });

  test("$indexStats counts the hinted index", async () => {
    const c = conn.db.collection<Row>("h3");
    await c.insertMany([{ _id: 1, a: 1, b: 1 }, { _id: 2, a: 2, b: 2 }]);
    await c.createIndex({ a: 1 });
    await c.createIndex({ b: 1 });
    await c.find({ a: 1 }, { hint: "b_1" }).toArray();
    const stats = await c.aggregate<Document>([{ $indexStats: {} }]).toArray();
    const ops = Object.fromEntries(stats.map((s) => [s.name, Number(s.accesses.ops)]));
    assert.equal(ops.b_1, 1);
    assert.equal(ops.a_1, 0);
  });
  test("aggregate and countDocuments follow the hint: a hinted sparse index leaves out what it does not hold", async () => {
    const c = conn.db.collection<Row>("h4");
    await c.insertMany([{ _id: 1, s: 1, a: 1 }, { _id: 2, a: 2 }, { _id: 3, s: 3, a: 3 }]);
    await c.createIndex({ s: 1 }, { sparse: true });
    await c.createIndex({ a: 1 });
    const hinted = await c.aggregate([{ $match: {} }, { $project: { _id: 1 } }], { hint: "s_1" }).toArray();
    assert.deepEqual(ids(hinted), [1, 3]);
    assert.deepEqual(ids(await c.aggregate([{ $project: { _id: 1 } }]).toArray()), [1, 2, 3]);
    assert.equal(await c.countDocuments({}, { hint: "s_1" }), 2);
    assert.equal(await c.countDocuments({}), 3);
  });

  test("explain shows the hinted index for find, count and aggregate", async () => {
    const c = conn.db.collection<Row>("h5");
    await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i + 1, a: i, b: 20 - i })));
    await c.createIndex({ a: 1 });
    await c.createIndex({ b: 1 });
    const indexOf = (plan: Document): string | undefined =>
      plan.indexName ?? (plan.inputStage ? indexOf(plan.inputStage) : undefined);
    const find = await conn.db.command({
      explain: { find: "h5", filter: { a: 3 }, hint: "b_1" },
      verbosity: "executionStats",
    });
    assert.equal(indexOf(find.queryPlanner.winningPlan), "b_1");
    assert.equal(find.executionStats.totalKeysExamined, 20);
    const count = await conn.db.command({ explain: { count: "h5", query: { a: 3 }, hint: "b_1" } });
    assert.equal(indexOf(count.queryPlanner.winningPlan), "b_1");
    const aggregate = await conn.db.command({
      explain: { aggregate: "h5", pipeline: [{ $match: { a: 3 } }], cursor: {}, hint: { b: 1 } },
      verbosity: "queryPlanner",
    });
    const planned = aggregate.queryPlanner ?? aggregate.stages[0].$cursor.queryPlanner;
    assert.equal(indexOf(planned.winningPlan), "b_1");
  });
});
