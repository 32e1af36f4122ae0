import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, MongoBulkWriteError, MongoClientBulkWriteError, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

interface Row {
  _id: number;
  n?: number;
}

/** Input a MongoDB 7.0 server refuses is refused here too, so data never depends on the engine's leniency. */
describe("embedded engine: refuses what MongoDB refuses", () => {
  let conn: Connected;
  let rows: Collection<Row>;

  before(async () => {
    conn = await connectTarget("strict");
    rows = conn.db.collection<Row>("rows");
    await rows.insertMany([{ _id: 1, n: 3 }, { _id: 2, n: 1 }, { _id: 3, n: 2 }]);
    await rows.createIndex({ n: 1 }, { name: "by_n" });
  });
  after(async () => {
    await conn.close();
  });

  async function refusal(promise: Promise<unknown>): Promise<MongoServerError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`);
    return error;
  }

  test("a $-prefixed field inside _id is refused on insert, nested too, and on upsert", async () => {
    const raw = conn.db.collection<{ _id: unknown; [field: string]: unknown }>("rows");
    const inserted = await raw.insertOne({ _id: { $bad: 1 } }).then(() => undefined, (e: unknown) => e);
    assert.ok(inserted instanceof MongoServerError);
    assert.equal(inserted.code, 52);
    const nested = await raw.insertOne({ _id: { a: { $b: 1 } } }).then(() => undefined, (e: unknown) => e);
    assert.ok(nested instanceof MongoServerError);
    assert.equal(nested.code, 52);
    await assert.rejects(raw.replaceOne({ a: 99 }, { _id: { $x: 1 } }, { upsert: true }), MongoServerError);
    assert.equal(await rows.countDocuments(), 3);
    // A $-prefixed field elsewhere is allowed since MongoDB 5.0.
    await raw.insertOne({ _id: 10, n: 0, sub: { $price: 1 } });
    await rows.deleteOne({ _id: 10 });
  });

  test("a hint naming no index is refused with BadValue on reads and writes; a valid one is accepted", async () => {
    for (
      const attempt of [
        () => rows.find({}, { hint: "nope" }).toArray(),
        () => rows.find({}, { hint: { m: 1 } }).toArray(),
        () => rows.countDocuments({}, { hint: "nope" }),
        () => rows.aggregate([{ $match: {} }], { hint: { n: -1 } }).toArray(),
        () => rows.findOneAndUpdate({ _id: 1 }, { $set: { n: 9 } }, { hint: { nope: 1 } }),
      ]
    ) {
      const error = await refusal(attempt());
      assert.equal(error.code, 2);
      assert.match(error.message, /hint provided does not correspond to an existing index/);
    }
    const update = await rows.updateOne({ _id: 1 }, { $set: { n: 9 } }, { hint: "nope" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(update instanceof MongoServerError);
    assert.equal(update.code, 2);
    const del = await rows.deleteOne({ _id: 1 }, { hint: { zz: 1 } }).then(() => undefined, (e: unknown) => e);
    assert.ok(del instanceof MongoServerError);
    assert.equal(del.code, 2);
    assert.equal((await rows.findOne({ _id: 1 }))?.n, 3);
    assert.equal((await rows.find({}, { hint: "by_n" }).toArray()).length, 3);
    assert.equal((await rows.find({}, { hint: { n: 1 } }).toArray()).length, 3);
    assert.equal((await rows.find({}, { hint: { _id: 1 } }).toArray()).length, 3);
    assert.equal((await rows.find({}, { hint: { $natural: -1 } }).toArray()).length, 3);
    assert.equal((await conn.db.collection("absent").find({}, { hint: "nope" }).toArray()).length, 0);
  });

  test("an unknown command field is refused with code 40415, naming the field", async () => {
    const error = await refusal(conn.db.command({ find: "rows", filter: {}, fliter: { n: 1 } }));
    assert.equal(error.code, 40415);
    assert.match(error.message, /find\.fliter/);
    const count = await refusal(conn.db.command({ count: "rows", querry: {} }));
    assert.equal(count.code, 40415);
    const inStatement = await refusal(
      conn.db.command({ delete: "rows", deletes: [{ q: { _id: 1 }, limit: 1, bogus: 1 }] }),
    );
    assert.equal(inStatement.code, 40415);
    assert.match(inStatement.message, /delete\.deletes\.bogus/);
    const explained = await refusal(conn.db.command({ explain: { find: "rows", wrong: 1 } }));
    assert.equal(explained.code, 40415);
    assert.equal(await rows.countDocuments(), 3);
  });

  test("a sort on updateOne/replaceOne is refused as MongoDB 7.0 does, and nothing is updated", async () => {
    for (
      const attempt of [
        () => rows.updateOne({}, { $set: { n: 100 } }, { sort: { n: -1 } }),
        () => rows.replaceOne({}, { n: 100 }, { sort: { n: 1 } }),
      ]
    ) {
      const error = await refusal(attempt());
      assert.equal(error.code, 40415);
      assert.match(error.message, /update\.updates\.sort/);
    }
    assert.equal(await rows.countDocuments({ n: 100 }), 0);
  });

  test("the driver's own commands carry only fields the server knows", async () => {
    await rows.bulkWrite([
      { insertOne: { document: { _id: 20, n: 5 } } },
      { updateMany: { filter: { n: 5 }, update: { $inc: { n: 1 } }, upsert: false } },
      { deleteOne: { filter: { _id: 20 } } },
    ], { ordered: false, bypassDocumentValidation: true });
    await rows.findOneAndReplace({ _id: 2 }, { n: 1 }, { projection: { n: 1 }, sort: { _id: 1 }, upsert: true });
    await rows.distinct("n", { n: { $gt: 0 } });
    await rows.estimatedDocumentCount();
    await rows.find({ n: { $gt: 0 } }, {
      sort: { n: 1 },
      skip: 1,
      limit: 1,
      batchSize: 1,
      projection: { n: 1 },
      comment: "c",
      maxTimeMS: 1000,
      allowDiskUse: true,
    }).toArray();
    await rows.aggregate([{ $sort: { n: 1 } }], { batchSize: 1, allowDiskUse: true, maxTimeMS: 1000, comment: "c" })
      .toArray();
    await rows.indexes();
    await conn.db.listCollections({}, { nameOnly: true }).toArray();
    await conn.client.db("admin").admin().listDatabases();
    await assert.rejects(rows.insertMany([{ _id: 1 }], { ordered: false }), MongoBulkWriteError);
  });

  test("the client-level bulkWrite of MongoDB 8.0 is refused and writes nothing", async (t) => {
    if (!conn.target.embedded) return t.skip("depends on the server's version");
    const error = await conn.client
      .bulkWrite<Record<string, { v: number }>>([{
        name: "insertOne",
        namespace: `${conn.db.databaseName}.bulk`,
        document: { v: 1 },
      }])
      .then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoClientBulkWriteError);
    assert.ok(error.cause instanceof MongoServerError);
    assert.equal(error.cause.code, 59);
    assert.equal(await conn.db.collection("bulk").countDocuments(), 0);
  });
});
