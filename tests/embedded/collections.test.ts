import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** create, listCollections, listDatabases, drop, dropDatabase, endSessions. */
describe("embedded engine: collections and databases", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("collections");
  });
  after(async () => {
    await conn.close();
  });

  test("create, list and drop collections", async () => {
    await conn.db.createCollection("alpha");
    await conn.db.collection("beta").insertOne({ _id: 1 } as Document);
    await assert.rejects(
      conn.db.createCollection("alpha"),
      (e: unknown) => e instanceof MongoServerError && e.code === 48,
    );
    const names = (await conn.db.listCollections().toArray()).map((c) => c.name).sort();
    assert.deepEqual(names, ["alpha", "beta"]);
    const filtered = await conn.db.listCollections({ name: "beta" }, { nameOnly: true }).toArray();
    assert.deepEqual(filtered.map((c) => c.name), ["beta"]);
    assert.equal(await conn.db.collection("alpha").drop(), true);
    assert.deepEqual((await conn.db.listCollections().toArray()).map((c) => c.name), ["beta"]);
  });

  test("listCollections and listIndexes honour a filter and cursor.batchSize", async () => {
    for (const name of ["l1", "l2", "l3"]) await conn.db.createCollection(name);
    const listed = await conn.db.command({
      listCollections: 1,
      filter: { name: { $in: ["l1", "l3"] } },
      cursor: { batchSize: 1 },
    });
    assert.deepEqual(listed.cursor.firstBatch.map((c: Document) => c.name), ["l1"]);
    const rest = await conn.db.command({ getMore: listed.cursor.id, collection: "$cmd.listCollections" });
    assert.deepEqual(rest.cursor.nextBatch.map((c: Document) => c.name), ["l3"]);
    await conn.db.collection("l1").createIndex({ k: 1 });
    const indexes = await conn.db.command({ listIndexes: "l1", cursor: { batchSize: 1 } });
    assert.deepEqual(indexes.cursor.firstBatch.map((i: Document) => i.name), ["_id_"]);
    await assert.rejects(
      conn.db.command({ listIndexes: "l1", cursor: { batchSize: -1 } }),
      (e: unknown) => e instanceof MongoServerError,
    );
  });

  test("listDatabases includes databases with data; dropDatabase removes one", async () => {
    const other = conn.client.db(`${conn.target.dbName}_other`);
    await other.collection("x").insertOne({ _id: 1 } as Document);
    const before = (await conn.client.db("admin").admin().listDatabases()).databases.map((d) => d.name);
    assert.ok(before.includes(other.databaseName));
    assert.ok(before.includes(conn.target.dbName));
    await other.dropDatabase();
    const after = (await conn.client.db("admin").admin().listDatabases()).databases.map((d) => d.name);
    assert.ok(!after.includes(other.databaseName));
    assert.equal(await other.collection("x").countDocuments(), 0);
  });

  test("dropping a collection removes its documents and indexes", async () => {
    const c = conn.db.collection("gone");
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertOne({ _id: 1, k: 1 } as Document);
    await c.drop();
    assert.equal(await c.countDocuments(), 0);
    await c.insertOne({ _id: 2, k: 1 } as Document);
    await c.insertOne({ _id: 3, k: 1 } as Document);
    assert.equal(await c.countDocuments(), 2);
  });

  test("sessions are accepted and ended", async () => {
    const session = conn.client.startSession();
    await conn.db.collection("beta").findOne({}, { session });
    await session.endSession();
    assert.equal((await conn.client.db("admin").command({ endSessions: [] })).ok, 1);
  });
});
