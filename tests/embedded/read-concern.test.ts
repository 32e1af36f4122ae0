import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, MongoServerError, Timestamp } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** The engine answers read concerns as a standalone mongod does. */
describe("embedded engine: read concern on a standalone", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("read_concern");
    await conn.db.collection("items").insertMany([{ _id: 1 }, { _id: 2 }] as Document[]);
  });
  after(() => conn.close());

  const READS: Document[] = [
    { find: "items" },
    { aggregate: "items", pipeline: [], cursor: {} },
    { distinct: "items", key: "_id" },
  ];

  const failure = async (command: Document) => {
    const error = await conn.db.command(command).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoServerError, `expected a server error for ${JSON.stringify(command)}`);
    return error;
  };

  test("local, majority and available are served, from commands and from the driver's options", async () => {
    for (const level of ["local", "majority", "available"] as const) {
      const items = conn.db.collection("items", { readConcern: { level } });
      assert.equal(await items.countDocuments(), 2, level);
      assert.deepEqual(await items.distinct("_id"), [1, 2], level);
      const reply = await conn.db.command({ find: "items", readConcern: { level } });
      assert.equal(reply.cursor.firstBatch.length, 2, level);
    }
    assert.equal((await conn.db.command({ find: "items", readConcern: {} })).cursor.firstBatch.length, 2);
  });

  test("snapshot and linearizable need a replica set: NotAReplicaSet, not a read of the latest data", async () => {
    for (const level of ["snapshot", "linearizable"]) {
      for (const command of READS) {
        const error = await failure({ ...command, readConcern: { level } });
        assert.equal(error.code, 123, `${level} ${Object.keys(command)[0]}`);
        assert.equal(error.codeName, "NotAReplicaSet");
      }
    }
    // A snapshot session is how the driver asks for it.
    const session = conn.client.startSession({ snapshot: true });
    try {
      const error = await conn.db.collection("items").find({}, { session }).toArray().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof MongoServerError);
      assert.equal(error.code, 123);
    } finally {
      await session.endSession();
    }
  });

  test("malformed read concerns and cluster-time options are refused with MongoDB's codes", async () => {
    assert.equal((await failure({ find: "items", readConcern: "majority" })).code, 14);
    assert.equal((await failure({ find: "items", readConcern: { level: 1 } })).code, 14);
    const unknown = await failure({ find: "items", readConcern: { level: "strong" } });
    assert.equal(unknown.code, 9);
    assert.match(unknown.message, /'local', 'majority', 'linearizable', 'available', or 'snapshot'/);
    const now = new Timestamp({ t: 1, i: 1 });
    assert.equal((await failure({ find: "items", readConcern: { afterClusterTime: now } })).code, 20);
    assert.equal((await failure({ find: "items", readConcern: { level: "local", atClusterTime: now } })).code, 72);
    assert.equal((await failure({ find: "items", readConcern: { level: "local", wait: true } })).code, 72);
    assert.equal(
      (await failure({ find: "items", readConcern: { level: "available", afterClusterTime: now } })).code,
      72,
    );
    assert.equal((await failure({ find: "items", readConcern: { afterClusterTime: 5 } })).code, 14);
  });
});
