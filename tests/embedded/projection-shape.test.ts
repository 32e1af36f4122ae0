import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * Projections that mingo computes keep MongoDB's shape: fields taken from the document in the
 * document's order (`_id` first), at every depth, then computed fields in the projection's order
 * (mingo emitted them alphabetically, `_id` last); and a `$slice` without inclusions keeps the
 * rest of the document (mingo read it as an inclusion).
 */
describe("embedded engine: the shape of projected documents", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number } & Document>;

  before(async () => {
    conn = await connectTarget("projection_shape");
    rows = conn.db.collection("rows");
    await rows.insertOne({ _id: 1, a: [1, 2, 3, 4], n: { list: [5, 6, 7], k: 1 }, s: "b" });
  });
  after(async () => {
    await conn.close();
  });

  const project = async (projection: Document) => {
    const [doc] = await rows.find({}, { projection }).toArray();
    return { keys: Object.keys(doc), doc };
  };

  test("computed projections put _id first", async () => {
    const { keys, doc } = await project({ x: { $literal: 5 }, s: 1 });
    assert.equal(keys[0], "_id");
    assert.deepEqual(doc, { _id: 1, s: "b", x: 5 });
  });

  test("the $project stage puts _id first too", async () => {
    const [doc] = await rows.aggregate([{ $project: { x: { $literal: 5 }, s: 1 } }]).toArray();
    assert.deepEqual(Object.keys(doc), ["_id", "s", "x"]);
  });

  test("taken fields keep the document's order at every depth, computed ones follow in the projection's", async () => {
    const found = await project({ c: "$s", n: 1 });
    assert.deepEqual(found.keys, ["_id", "n", "c"]);
    assert.deepEqual(Object.keys((await project({ "n.k": 1, "n.list": 1 })).doc.n), ["list", "k"]);
    const [staged] = await rows.aggregate([{ $project: { b: { $literal: 1 }, s: 1, n: 1 } }]).toArray();
    assert.deepEqual(Object.keys(staged), ["_id", "n", "s", "b"]);
    const [nested] = await rows.aggregate([{ $project: { "n.k": 1, "n.z": { $literal: 0 }, "n.list": 1 } }]).toArray();
    assert.deepEqual(Object.keys(nested.n), ["list", "k", "z"]);
    const [computed] = await rows.aggregate([{ $project: { y: { $literal: 1 }, x: { $literal: 2 } } }]).toArray();
    assert.deepEqual(Object.keys(computed), ["_id", "y", "x"]);
  });

  test("a field named like an Object.prototype member is missing when the document lacks it", async () => {
    const [grouped] = await rows.aggregate([{ $project: { valueOf: 1 } }, {
      $group: { _id: "$valueOf", n: { $sum: 1 } },
    }])
      .toArray();
    assert.deepEqual(grouped, { _id: null, n: 1 });
  });

  test("projections inside arrays of documents keep each element's order", async () => {
    const [joined] = await rows.aggregate([
      { $lookup: { from: "rows", localField: "_id", foreignField: "_id", as: "self" } },
      { $project: { "self.s": 1, "self.n.k": 1, "self.n.list": 1, "self.a": 1 } },
    ]).toArray();
    assert.deepEqual(Object.keys(joined.self[0]), ["a", "n", "s"]);
    assert.deepEqual(Object.keys(joined.self[0].n), ["list", "k"]);
  });

  test("a find's $elemMatch comes after the fields taken, and the $slice expression after them in $project", async () => {
    assert.deepEqual((await project({ a: { $elemMatch: { $gt: 1 } }, s: 1 })).keys, ["_id", "s", "a"]);
    const [staged] = await rows.aggregate([{ $project: { s: 1, a: { $slice: ["$a", 1] } } }]).toArray();
    assert.deepEqual(Object.keys(staged), ["_id", "s", "a"]);
    assert.deepEqual((await project({ a: { $slice: 1 }, s: 1 })).keys, ["_id", "a", "s"]);
  });

  test("$elemMatch keeps the first matching element, under an operator condition too", async () => {
    assert.deepEqual((await project({ a: { $elemMatch: { $gt: 2 } } })).doc, { _id: 1, a: [3] });
    assert.deepEqual((await project({ a: { $elemMatch: { $in: [9] } }, s: 1 })).doc, { _id: 1, s: "b" });
    await assert.rejects(project({ "n.list": { $elemMatch: { $gt: 5 } } }), /nested field/);
  });

  test("$slice alone keeps every other field; with an inclusion, only the included ones", async () => {
    assert.deepEqual((await project({ a: { $slice: 2 } })).doc, {
      _id: 1,
      a: [1, 2],
      n: { list: [5, 6, 7], k: 1 },
      s: "b",
    });
    assert.deepEqual((await project({ "n.list": { $slice: -1 }, s: 0 })).doc, {
      _id: 1,
      a: [1, 2, 3, 4],
      n: { list: [7], k: 1 },
    });
    assert.deepEqual((await project({ a: { $slice: [1, 2] }, s: 1 })).doc, { _id: 1, a: [2, 3], s: "b" });
  });

  test("a positional projection needs its array in the filter, as MongoDB's does (51246)", async () => {
    assert.deepEqual(await rows.find({ a: 3 }, { projection: { "a.$": 1 } }).toArray(), [{ _id: 1, a: [3] }]);
    await assert.rejects(
      rows.find({ s: "b" }, { projection: { "a.$": 1 } }).toArray(),
      (e: MongoServerError) => e.code === 51246,
    );
    // Nothing to show, nothing to refuse.
    assert.deepEqual(await rows.find({ s: "none" }, { projection: { "a.$": 1 } }).toArray(), []);
  });
});
