import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Db, type Document, ObjectId } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

// BSON classes come from "mongodb": the driver loads bson's CommonJS build, so instanceof
// checks must use the same copy.

/** Basic reads and writes through the official driver. */
describe("embedded engine: CRUD through the driver", () => {
  let conn: Connected;
  let db: Db;
  let coll: Collection<Document>;

  before(async () => {
    conn = await connectTarget("crud");
    db = conn.db;
    coll = db.collection("items");
    await coll.insertMany([
      { _id: 1, name: "a", qty: 5, tags: ["x", "y"], size: { h: 10 } },
      { _id: 2, name: "b", qty: 15, tags: ["y"], size: { h: 20 } },
      { _id: 3, name: "c", qty: 25, tags: [], size: { h: 30 } },
      { _id: 4, name: "d", qty: 35, tags: ["z"], size: { h: 40 } },
    ] as Document[]);
  });
  after(async () => {
    await conn.close();
  });

  test("ping and buildInfo answer", async () => {
    assert.equal((await db.command({ ping: 1 })).ok, 1);
    const info = await db.admin().command({ buildInfo: 1 });
    assert.match(info.version, /^\d+\.\d+\.\d+/);
  });

  test("find with filter, sort, projection, skip and limit", async () => {
    const docs = await coll
      .find({ qty: { $gt: 5 } }, { projection: { name: 1, _id: 0 } })
      .sort({ qty: -1 })
      .skip(1)
      .limit(2)
      .toArray();
    assert.deepEqual(docs, [{ name: "c" }, { name: "b" }]);
  });

  test("dotted paths, arrays and $in work in filters", async () => {
    assert.deepEqual((await coll.find({ "size.h": { $gte: 30 } }).toArray()).map((d) => d._id), [3, 4]);
    assert.deepEqual((await coll.find({ tags: "y" }).toArray()).map((d) => d._id), [1, 2]);
    assert.deepEqual((await coll.find({ _id: { $in: [4, 2, 9] } } as Document).toArray()).map((d) => d._id), [2, 4]);
  });

  test("findOne by _id and by a missing _id", async () => {
    assert.equal((await coll.findOne({ _id: 3 } as Document))?.name, "c");
    assert.equal(await coll.findOne({ _id: 99 } as Document), null);
  });

  test("countDocuments, estimatedDocumentCount and count with skip/limit", async () => {
    assert.equal(await coll.countDocuments({}), 4);
    assert.equal(await coll.countDocuments({ qty: { $gte: 15 } }), 3);
    assert.equal(await coll.countDocuments({}, { skip: 1, limit: 2 }), 2);
    assert.equal(await coll.countDocuments({}, { skip: 10 }), 0);
    assert.equal(await coll.estimatedDocumentCount(), 4);
    assert.equal((await db.command({ count: "items", query: { qty: { $lt: 20 } } })).n, 2);
    assert.equal(await db.collection("nothing").countDocuments({}), 0);
  });

  test("distinct unwinds arrays and honours the filter", async () => {
    assert.deepEqual(await coll.distinct("tags"), ["x", "y", "z"]);
    assert.deepEqual(await coll.distinct("name", { qty: { $lt: 20 } }), ["a", "b"]);
  });

  test("insert without _id gets an ObjectId, first in the document", async () => {
    const c = db.collection("generated");
    const reply = await db.command({ insert: "generated", documents: [{ v: 1 }] });
    assert.equal(reply.n, 1);
    const doc = await c.findOne({ v: 1 });
    assert.ok(doc?._id instanceof ObjectId);
    assert.equal(Object.keys(doc!)[0], "_id");
  });

  test("updateOne with operators, and replaceOne", async () => {
    const c = db.collection("upd");
    await c.insertMany([{ _id: 1, n: 1, list: [1, 2, 3] }, { _id: 2, n: 2 }] as Document[]);
    const r1 = await c.updateOne({ _id: 1 } as Document, { $inc: { n: 5 }, $push: { list: 4 } } as Document);
    assert.equal(r1.matchedCount, 1);
    assert.equal(r1.modifiedCount, 1);
    assert.deepEqual(await c.findOne({ _id: 1 } as Document), { _id: 1, n: 6, list: [1, 2, 3, 4] });
    const same = await c.updateOne({ _id: 2 } as Document, { $set: { n: 2 } });
    assert.equal(same.matchedCount, 1);
    assert.equal(same.modifiedCount, 0);
    await c.replaceOne({ _id: 2 } as Document, { other: true });
    assert.deepEqual(await c.findOne({ _id: 2 } as Document), { _id: 2, other: true });
  });

  test("updateMany, upsert and arrayFilters", async () => {
    const c = db.collection("upd2");
    await c.insertMany(
      [{ _id: 1, k: "a", grades: [80, 95] }, { _id: 2, k: "a", grades: [91] }, { _id: 3, k: "b" }] as Document[],
    );
    const many = await c.updateMany({ k: "a" }, { $set: { seen: true } });
    assert.equal(many.matchedCount, 2);
    assert.equal(many.modifiedCount, 2);
    const up = await c.updateOne({ k: "new" }, { $set: { v: 1 }, $setOnInsert: { created: true } }, { upsert: true });
    assert.equal(up.upsertedCount, 1);
    assert.ok(up.upsertedId instanceof ObjectId);
    const created = await c.findOne({ k: "new" });
    assert.equal(created?.v, 1);
    assert.equal(created?.created, true);
    await c.updateOne({ _id: 1 } as Document, { $set: { "grades.$[g]": 100 } }, {
      arrayFilters: [{ g: { $gte: 90 } }],
    });
    assert.deepEqual((await c.findOne({ _id: 1 } as Document))?.grades, [80, 100]);
  });

  test("changing _id is refused", async () => {
    const c = db.collection("upd3");
    await c.insertOne({ _id: 1, v: 1 } as Document);
    await assert.rejects(
      c.updateOne({ _id: 1 } as Document, { $set: { _id: 2 } }),
      (e: Error & { code?: number }) => e.code === 66,
    );
  });

  test("deleteOne and deleteMany", async () => {
    const c = db.collection("del");
    await c.insertMany([{ _id: 1, t: 1 }, { _id: 2, t: 1 }, { _id: 3, t: 2 }] as Document[]);
    assert.equal((await c.deleteOne({ t: 1 })).deletedCount, 1);
    assert.deepEqual((await c.find().toArray()).map((d) => d._id), [2, 3]);
    assert.equal((await c.deleteMany({})).deletedCount, 2);
    assert.equal(await c.countDocuments({}), 0);
  });

  test("findOneAndUpdate, findOneAndReplace and findOneAndDelete", async () => {
    const c = db.collection("fam");
    await c.insertMany([{ _id: 1, n: 1, g: "x" }, { _id: 2, n: 2, g: "x" }] as Document[]);
    const before = await c.findOneAndUpdate({ g: "x" }, { $inc: { n: 10 } }, { sort: { n: -1 } });
    assert.deepEqual(before, { _id: 2, n: 2, g: "x" });
    const after = await c.findOneAndUpdate({ _id: 2 } as Document, { $inc: { n: 1 } }, {
      returnDocument: "after",
      projection: { n: 1 },
    });
    assert.deepEqual(after, { _id: 2, n: 13 });
    const upserted = await c.findOneAndUpdate({ _id: 5 } as Document, { $set: { g: "y" } }, {
      upsert: true,
      returnDocument: "after",
    });
    assert.deepEqual(upserted, { _id: 5, g: "y" });
    const replaced = await c.findOneAndReplace({ _id: 1 } as Document, { r: true }, { returnDocument: "after" });
    assert.deepEqual(replaced, { _id: 1, r: true });
    assert.deepEqual(await c.findOneAndDelete({ _id: 5 } as Document), { _id: 5, g: "y" });
    assert.equal(await c.findOneAndDelete({ _id: 5 } as Document), null);
    assert.equal(await c.findOneAndUpdate({ _id: 42 } as Document, { $set: { a: 1 } }), null);
  });

  test("unacknowledged (w: 0) writes are applied without a reply", async () => {
    const c = db.collection("w0");
    await c.insertOne({ _id: 1 } as Document, { writeConcern: { w: 0 } });
    await c.insertOne({ _id: 2 } as Document);
    assert.deepEqual((await c.find().toArray()).map((d) => d._id), [1, 2]);
  });
});

/** Projections: the simple top-level ones (picked directly) and richer ones (mingo). */
describe("embedded engine: projections", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("projections");
    await conn.db.collection("p").insertOne(
      { _id: 1, b: 2, a: 1, secret: "x", nested: { x: 1, y: 2 }, list: [1, 2, 3] } as Document,
    );
  });
  after(async () => {
    await conn.close();
  });

  const project = (projection: Document): Promise<Document | null> =>
    conn.db.collection("p").findOne({ _id: 1 } as Document, { projection });

  test("inclusion keeps _id and the document's field order", async () => {
    const doc = await project({ a: 1, b: 1 });
    assert.deepEqual(doc, { _id: 1, b: 2, a: 1 });
    assert.deepEqual(Object.keys(doc!), ["_id", "b", "a"]);
    assert.deepEqual(await project({ a: true, _id: 0 }), { a: 1 });
    assert.deepEqual(await project({ _id: 1 }), { _id: 1 });
  });

  test("exclusion drops only the named fields", async () => {
    assert.deepEqual(await project({ secret: 0 }), { _id: 1, b: 2, a: 1, nested: { x: 1, y: 2 }, list: [1, 2, 3] });
    assert.deepEqual(await project({ _id: 0, secret: 0, list: 0, nested: 0 }), { b: 2, a: 1 });
  });

  test("dotted paths and operators go through mingo and leave the stored document intact", async () => {
    assert.deepEqual(await project({ "nested.x": 1 }), { _id: 1, nested: { x: 1 } });
    assert.deepEqual(await project({ "nested.y": 0, secret: 0, list: 0 }), { _id: 1, b: 2, a: 1, nested: { x: 1 } });
    assert.deepEqual(await project({ list: { $slice: 2 }, _id: 0, a: 1 }), { a: 1, list: [1, 2] });
    assert.deepEqual(await project({}), { _id: 1, b: 2, a: 1, secret: "x", nested: { x: 1, y: 2 }, list: [1, 2, 3] });
  });

  test("mixing inclusion and exclusion is an error", async () => {
    await assert.rejects(project({ a: 1, b: 0 }), (e: unknown) => typeof (e as { code?: unknown }).code === "number");
  });
});
