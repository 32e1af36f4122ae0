import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, Long } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * A drop, a rename or the drop of the index a cursor reads through kills the cursor's plan, as
 * MongoDB's does: the next getMore fails with 175 QueryPlanKilled (the server's
 * RequiresCollectionStage/RequiresIndexStage restore), and the one after that finds no cursor
 * (43). The engine's cursors used to go on reading the old documents.
 */
describe("embedded engine: cursors killed by drops and renames", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("cursor_kills");
  });
  after(async () => {
    await conn.close();
  });

  /** Fills a collection and opens a find cursor on it with one document in its first batch. */
  async function openCursor(name: string, find: Document = {}): Promise<bigint> {
    await conn.db.collection(name).insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 2 }, { _id: 3, a: 3 }] as Document[]);
    const reply = await conn.db.command({ find: name, filter: {}, batchSize: 1, ...find });
    assert.equal(reply.cursor.firstBatch.length, 1);
    return BigInt(reply.cursor.id.toString());
  }

  async function getMoreError(name: string, id: bigint): Promise<Document> {
    const error = await conn.db.command({ getMore: Long.fromBigInt(id), collection: name }).then(
      () => assert.fail("getMore should have failed"),
      (e: Document) => e,
    );
    return { code: error.code, codeName: error.codeName, message: String(error.message) };
  }

  test("dropping the collection kills its cursor", async () => {
    const id = await openCursor("dropped");
    await conn.db.collection("dropped").drop();
    const first = await getMoreError("dropped", id);
    assert.equal(first.code, 175);
    assert.equal(first.codeName, "QueryPlanKilled");
    assert.match(first.message, /^collection dropped\. UUID [0-9a-f-]{36}$/);
    assert.equal((await getMoreError("dropped", id)).code, 43);
  });

  test("dropping the database kills the cursors of its collections", async () => {
    const other = conn.client.db(`${conn.db.databaseName}_other`);
    await other.collection("c").insertMany([{ _id: 1 }, { _id: 2 }] as Document[]);
    const reply = await other.command({ find: "c", batchSize: 1 });
    await other.dropDatabase();
    await assert.rejects(
      other.command({ getMore: reply.cursor.id as Long, collection: "c" }),
      (e: Document) => e.code === 175 && /^collection dropped\./.test(e.message),
    );
  });

  test("renaming the collection kills its cursor, and dropTarget the target's", async () => {
    const id = await openCursor("renamed");
    const targetId = await openCursor("target");
    await conn.db.collection("renamed").rename("target", { dropTarget: true });
    const renamed = await getMoreError("renamed", id);
    assert.equal(renamed.code, 175);
    const ns = conn.db.databaseName;
    assert.match(
      renamed.message,
      new RegExp(`^collection renamed from '${ns}\\.renamed' to '${ns}\\.target'\\. UUID `),
    );
    assert.match((await getMoreError("target", targetId)).message, /^collection dropped\./);
  });

  test("dropping the index a cursor reads through kills it; other indexes and scans do not", async () => {
    await conn.db.collection("indexed").createIndex({ a: 1 });
    await conn.db.collection("indexed").createIndex({ b: 1 });
    const viaIndex = await openCursor("indexed", { filter: { a: { $gte: 1 } }, sort: { a: 1 }, hint: "a_1" });
    const scan = BigInt(
      (await conn.db.command({ find: "indexed", filter: {}, batchSize: 1 })).cursor.id.toString(),
    );
    await conn.db.collection("indexed").dropIndex("b_1");
    const kept = await conn.db.command({ getMore: Long.fromBigInt(viaIndex), collection: "indexed", batchSize: 1 });
    assert.deepEqual(kept.cursor.nextBatch, [{ _id: 2, a: 2 }]);
    await conn.db.collection("indexed").dropIndex("a_1");
    const killed = await getMoreError("indexed", viaIndex);
    assert.deepEqual([killed.code, killed.message], [175, "query plan killed :: index 'a_1' dropped"]);
    const rest = await conn.db.command({ getMore: Long.fromBigInt(scan), collection: "indexed" });
    assert.equal(rest.cursor.nextBatch.length, 2);
  });

  test("dropping a view leaves the cursors of its collection alone", async () => {
    const id = await openCursor("base");
    await conn.db.createCollection("base_view", { viewOn: "base", pipeline: [] });
    await conn.db.collection("base_view").drop();
    const rest = await conn.db.command({ getMore: Long.fromBigInt(id), collection: "base" });
    assert.equal(rest.cursor.nextBatch.length, 2);
  });
});
