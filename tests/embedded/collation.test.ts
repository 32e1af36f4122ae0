import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CollationOptions, type Collection, type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** Documents with plain numeric ids. */
type Doc = { _id: number; [field: string]: unknown };

const EN_CI = { locale: "en", strength: 2 };
const EN_BASE = { locale: "en", strength: 1 };

/** Collation through the driver: filters, sorts, counts, distinct, writes, defaults, indexes, refusals. */
describe("embedded engine: collation", () => {
  let conn: Connected;
  let words: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("collation");
    words = conn.db.collection<Doc>("words");
    await words.insertMany([
      { _id: 1, w: "ping" },
      { _id: 2, w: "PING" },
      { _id: 3, w: "Ping" },
      { _id: 4, w: "píng" },
      { _id: 5, w: "pong" },
      { _id: 6, w: "item10" },
      { _id: 7, w: "item9" },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const ids = (docs: Document[]) => docs.map((d) => d._id);

  test("strength 2 ignores case, keeps accents; strength 1 ignores both; no collation is binary", async () => {
    assert.deepEqual(ids(await words.find({ w: "ping" }).toArray()), [1]);
    assert.deepEqual(ids(await words.find({ w: "PING" }, { collation: EN_CI }).toArray()), [1, 2, 3]);
    assert.deepEqual(ids(await words.find({ w: "PING" }, { collation: EN_BASE }).toArray()), [1, 2, 3, 4]);
    assert.deepEqual(ids(await words.find({ w: { $in: ["PONG", "x"] } }, { collation: EN_CI }).toArray()), [5]);
    assert.deepEqual(ids(await words.find({ w: { $ne: "PING" } }, { collation: EN_CI }).toArray()), [4, 5, 6, 7]);
  });

  test("ranges and sorts follow the collation; numericOrdering orders digits as numbers", async () => {
    // Binary order puts every upper-case letter before every lower-case one.
    assert.deepEqual(ids(await words.find({ w: { $lt: "Ping" } }).toArray()), [2]);
    assert.deepEqual(
      ids(await words.find({ w: { $gte: "PING", $lt: "pong" } }, { collation: EN_CI }).sort({ _id: 1 }).toArray()),
      [1, 2, 3, 4],
    );
    const numeric = { locale: "en", numericOrdering: true };
    const items = { w: { $regex: /^item/ } };
    assert.deepEqual(ids(await words.find(items).sort({ w: 1 }).toArray()), [6, 7]);
    assert.deepEqual(ids(await words.find(items, { collation: numeric }).sort({ w: 1 }).toArray()), [7, 6]);
    assert.deepEqual(ids(await words.find({ w: { $gt: "item9", $lt: "j" } }, { collation: numeric }).toArray()), [6]);
    // caseFirst decides between case variants of one word.
    const upper = await words.find({ w: { $in: ["ping", "PING", "Ping"] } }, {
      collation: { locale: "en", caseFirst: "upper" },
    }).sort({ w: 1 }).toArray();
    assert.deepEqual(ids(upper), [2, 3, 1]);
  });

  test("count, distinct and aggregate apply it", async () => {
    assert.equal(await words.countDocuments({ w: "ping" }, { collation: EN_CI }), 3);
    assert.equal((await conn.db.command({ count: "words", query: { w: "ping" }, collation: EN_BASE })).n, 4);
    const distinct = await words.distinct("w", { w: { $regex: /^p/i } }, { collation: EN_CI });
    assert.equal(distinct.length, 3, `one of ping/PING/Ping, píng, pong: ${JSON.stringify(distinct)}`);
    const grouped = await words
      .aggregate([{ $match: { w: "PING" } }, { $project: { _id: 1 } }, { $match: { _id: { $gt: 0 } } }, {
        $sort: { _id: -1 },
      }], { collation: EN_CI })
      .toArray();
    assert.deepEqual(ids(grouped), [3, 2, 1]);
    const sorted = await words.aggregate([{ $project: { w: 1 } }, { $sort: { w: 1, _id: 1 } }, { $limit: 3 }], {
      collation: EN_CI,
    }).toArray();
    assert.deepEqual(ids(sorted), [6, 7, 1], "item10 < item9 < ping without numericOrdering");
  });

  test("updates, deletes, findAndModify and bulk writes match under it", async () => {
    const c = conn.db.collection<Doc>("writes");
    await c.insertMany([{ _id: 1, k: "a" }, { _id: 2, k: "A" }, { _id: 3, k: "b" }]);
    const many = await c.updateMany({ k: "a" }, { $set: { hit: true } }, { collation: EN_CI });
    assert.equal(many.matchedCount, 2);
    const upsert = await c.updateOne({ k: "B" }, { $set: { hit: true } }, { upsert: true, collation: EN_CI });
    assert.equal(upsert.upsertedCount, 0, "the existing 'b' matches, so nothing is upserted");
    const found = await c.findOneAndUpdate({ k: "B" }, { $set: { seen: 1 } }, {
      collation: EN_CI,
      returnDocument: "after",
    });
    assert.equal(found?._id, 3);
    const bulk = await c.bulkWrite([
      { updateMany: { filter: { k: "A" }, update: { $inc: { n: 1 } as Document }, collation: EN_CI } },
      { deleteOne: { filter: { k: "B" }, collation: EN_CI } },
    ]);
    assert.equal(bulk.modifiedCount, 2);
    assert.equal(bulk.deletedCount, 1);
    const gone = await c.deleteMany({ k: "A" }, { collation: EN_CI });
    assert.equal(gone.deletedCount, 2);
    assert.equal(await c.countDocuments(), 0);
  });

  test("a collection's default collation applies to operations without one and to its indexes", async () => {
    await conn.db.createCollection("people", { collation: EN_CI });
    const c = conn.db.collection<Doc>("people");
    await c.insertMany([{ _id: 1, name: "Ada" }, { _id: 2, name: "ada" }, { _id: 3, name: "Bob" }]);
    assert.deepEqual(ids(await c.find({ name: "ADA" }).toArray()), [1, 2]);
    assert.deepEqual(ids(await c.find({ name: "ADA" }, { collation: { locale: "simple" } }).toArray()), []);
    const [info] = await conn.db.listCollections({ name: "people" }).toArray();
    assert.equal((info as Document).options.collation.locale, "en");
    assert.equal((info as Document).options.collation.strength, 2);
    await c.createIndex({ name: 1 }, { name: "name_ci" });
    const index = (await c.indexes()).find((i) => i.name === "name_ci");
    assert.equal(index?.collation?.strength, 2, "the index took the collection's collation");
  });

  test("a unique index with a collation refuses values equal under it", async () => {
    const c = conn.db.collection<Doc>("emails");
    await c.createIndex({ email: 1 }, { unique: true, collation: EN_CI });
    await c.insertOne({ _id: 1, email: "ada@example.com" });
    await assert.rejects(c.insertOne({ _id: 2, email: "ADA@example.com" }), (e: MongoServerError) => e.code === 11000);
    await c.insertOne({ _id: 3, email: "áda@example.com" });
    assert.equal(await c.countDocuments(), 2);
  });

  test("an index serves only queries with its own collation", async () => {
    const c = conn.db.collection<Doc>("planned");
    await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, s: i % 2 ? `v${i}` : `V${i}` })));
    await c.createIndex({ s: 1 }, { name: "s_ci", collation: EN_CI });
    const plan = async (collation?: CollationOptions) => {
      const explained = await c.find({}, collation ? { collation } : {}).sort({ s: 1 }).limit(3).explain(
        "executionStats",
      );
      return JSON.stringify(explained.queryPlanner.winningPlan);
    };
    assert.match(await plan(EN_CI), /s_ci/);
    assert.doesNotMatch(await plan(), /s_ci/);
    assert.doesNotMatch(await plan(EN_BASE), /s_ci/);
    const page = await c.find({}, { collation: EN_CI }).sort({ s: 1 }).limit(3).toArray();
    assert.deepEqual(page.map((d) => d.s), ["V0", "v1", "V10"]);
    const matched = await c.find({ s: "v10" }, { collation: EN_CI }).toArray();
    assert.deepEqual(ids(matched), [10]);
  });

  test("what cannot be honoured is refused with MongoDB's error, not ignored", async () => {
    const refuse = async (collation: Document, code: number, pattern: RegExp) => {
      await assert.rejects(
        words.find({ w: "x" }, { collation: collation as CollationOptions }).toArray(),
        (e: MongoServerError) => {
          assert.equal(e.code, code, e.message);
          assert.match(e.message, pattern);
          return true;
        },
      );
    };
    await refuse({ locale: "xx" }, 2, /Field 'locale' is invalid in/);
    await refuse({ locale: "en", strength: 6 }, 2, /strength/);
    await refuse({ locale: "en", backwards: true }, 2, /backwards/);
    await refuse({ locale: "en", strength: 4 }, 2, /strength 4/);
    await refuse({ locale: "en", colour: "blue" }, 40415, /collation\.colour/);
    await assert.rejects(
      conn.db.collection("nowhere").updateOne({}, { $set: { a: 1 } }, { collation: { locale: "xx" } }),
      (e: MongoServerError) => e.code === 2,
    );
    await assert.rejects(
      conn.db.createCollection("bad", { collation: { locale: "zz_ZZ" } }),
      (e: MongoServerError) => e.code === 2,
    );
  });
});
