import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoServerError } from "mongodb";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Connected, connectTarget } from "./helpers.ts";

interface Person {
  _id: number;
  name: string;
  age: number;
  city: string;
}

/** Views: read-only collections computed by a pipeline over another collection or view. */
describe("embedded engine: views", () => {
  let conn: Connected;
  let people: Collection<Person>;
  let adults: Collection<Partial<Person> & { _id: number }>;

  before(async () => {
    conn = await connectTarget("views");
    people = conn.db.collection<Person>("people");
    await people.insertMany([
      { _id: 1, name: "ann", age: 34, city: "Oslo" },
      { _id: 2, name: "bob", age: 12, city: "Rome" },
      { _id: 3, name: "cid", age: 51, city: "Oslo" },
      { _id: 4, name: "dee", age: 19, city: "Rome" },
    ]);
    await conn.db.createCollection("adults", {
      viewOn: "people",
      pipeline: [{ $match: { age: { $gte: 18 } } }, { $project: { city: 0 } }],
    });
    adults = conn.db.collection<Partial<Person> & { _id: number }>("adults");
  });
  after(async () => {
    await conn.close();
  });

  async function failure(promise: Promise<unknown>): Promise<MongoServerError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`);
    return error;
  }

  test("find reads through the pipeline, with filter, sort, skip, limit and projection", async () => {
    assert.deepEqual(await adults.find().sort({ _id: 1 }).toArray(), [
      { _id: 1, name: "ann", age: 34 },
      { _id: 3, name: "cid", age: 51 },
      { _id: 4, name: "dee", age: 19 },
    ]);
    const page = await adults.find({ age: { $lt: 50 } }, { projection: { _id: 0, name: 1 } }).sort({ age: -1 }).skip(1)
      .limit(1).toArray();
    assert.deepEqual(page, [{ name: "dee" }]);
  });

  test("count, countDocuments, distinct and aggregate read through the pipeline", async () => {
    assert.equal(await adults.countDocuments(), 3);
    assert.equal(await adults.countDocuments({ age: { $gt: 30 } }), 2);
    const counted = await conn.db.command({ count: "adults", query: { name: "bob" } });
    assert.equal(counted.n, 0);
    assert.deepEqual(await adults.distinct("name"), ["ann", "cid", "dee"]);
    const oldest = await adults.aggregate([{ $sort: { age: -1 } }, { $limit: 1 }, { $project: { _id: 0, name: 1 } }])
      .toArray();
    assert.deepEqual(oldest, [{ name: "cid" }]);
  });

  test("a view on a view, and a $lookup from a view", async () => {
    await conn.db.createCollection("adult_names", { viewOn: "adults", pipeline: [{ $project: { _id: 0, name: 1 } }] });
    assert.deepEqual(await conn.db.collection("adult_names").find().sort({ name: -1 }).toArray(), [{ name: "dee" }, {
      name: "cid",
    }, { name: "ann" }]);
    const joined = await people
      .aggregate([{ $match: { _id: 2 } }, {
        $lookup: { from: "adults", localField: "city", foreignField: "name", as: "x" },
      }, { $project: { n: { $size: "$x" } } }])
      .toArray();
    assert.deepEqual(joined, [{ _id: 2, n: 0 }]);
  });

  test("every write is refused with CommandNotSupportedOnView (166) and nothing changes", async () => {
    for (
      const attempt of [
        () => adults.insertOne({ _id: 9, name: "x" }),
        () => adults.updateOne({ _id: 1 }, { $set: { age: 1 } }),
        () => adults.deleteMany({}),
        () => adults.findOneAndDelete({ _id: 1 }),
        () => adults.createIndex({ name: 1 }),
        () => people.aggregate([{ $out: "adults" }]).toArray(),
      ]
    ) {
      assert.equal((await failure(attempt())).code, 166);
    }
    assert.equal(await people.countDocuments(), 4);
    assert.equal(await adults.countDocuments(), 3);
  });

  test("listCollections shows the view's type and definition", async () => {
    const [info] = await conn.db.listCollections({ name: "adults" }).toArray();
    assert.equal(info.type, "view");
    assert.equal((info as Document).options.viewOn, "people");
    assert.equal((info as Document).info.readOnly, true);
    const [plain] = await conn.db.listCollections({ name: "people" }).toArray();
    assert.equal(plain.type, "collection");
  });

  test("collMod redefines a view; a bad definition or a cycle is refused", async () => {
    await conn.db.createCollection("by_city", { viewOn: "people", pipeline: [{ $match: { city: "Oslo" } }] });
    await conn.db.command({ collMod: "by_city", viewOn: "people", pipeline: [{ $match: { city: "Rome" } }] });
    assert.deepEqual((await conn.db.collection("by_city").find().toArray()).map((d) => d._id), [2, 4]);
    await failure(conn.db.command({ collMod: "by_city", pipeline: [] }));
    assert.equal((await failure(conn.db.createCollection("loop", { viewOn: "loop", pipeline: [] }))).code, 93);
    await failure(conn.db.createCollection("writes", { viewOn: "people", pipeline: [{ $out: "x" }] }));
    assert.equal((await failure(conn.db.createCollection("adults", { viewOn: "people", pipeline: [] }))).code, 48);
  });

  test("drop removes a view and leaves its source alone", async () => {
    await conn.db.createCollection("temp_view", { viewOn: "people", pipeline: [] });
    assert.equal(await conn.db.collection("temp_view").drop(), true);
    assert.deepEqual(await conn.db.listCollections({ name: "temp_view" }).toArray(), []);
    assert.equal(await people.countDocuments(), 4);
  });

  test("views and validators survive a restart on a data folder", async (t) => {
    if (!conn.target.embedded) return t.skip("engine durability");
    const dataDir = await mkdtemp(join(tmpdir(), "views-"));
    try {
      let restarted = await connectTarget("views_recovery", { dataDir });
      await restarted.db.collection<{ _id: number; v: number }>("base").insertMany([{ _id: 1, v: 1 }, {
        _id: 2,
        v: 5,
      }]);
      await restarted.db.createCollection("big", { viewOn: "base", pipeline: [{ $match: { v: { $gt: 2 } } }] });
      await restarted.db.createCollection("checked", { validator: { v: { $type: "number" } } });
      await restarted.close();
      restarted = await connectTarget("views_recovery", { dataDir });
      assert.deepEqual(await restarted.db.collection("big").find().toArray(), [{ _id: 2, v: 5 }]);
      await assert.rejects(restarted.db.collection("checked").insertOne({ v: "x" }), MongoServerError);
      await restarted.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
