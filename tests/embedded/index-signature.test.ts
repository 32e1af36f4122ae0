import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/**
 * An index's identity in MongoDB 7.0: key pattern plus signature (collation, partial filter,
 * sparse, unique). Same-key indexes with different signatures coexist under different names
 * (jstests/core/index/index_signature.js).
 */
describe("embedded engine: index signatures", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("index_signature");
  });
  after(async () => {
    await conn.close();
  });

  const create = (coll: string, spec: Document) => conn.db.command({ createIndexes: coll, indexes: [spec] });
  const count = async (coll: string) => (await conn.db.collection(coll).indexes()).length;

  test("indexes on one key with different sparse/unique/partial signatures coexist", async () => {
    await create("sig", { key: { a: 1 }, name: "basic" });
    for (
      const spec of [
        { name: "sparse", sparse: true },
        { name: "unique", unique: true },
        { name: "unique_sparse", unique: true, sparse: true },
        { name: "partial", unique: true, partialFilterExpression: { a: { $exists: true } } },
      ]
    ) {
      const before = await count("sig");
      const reply = await create("sig", { key: { a: 1 }, ...spec });
      assert.equal(reply.numIndexesAfter, before + 1, spec.name);
    }
    assert.deepEqual((await conn.db.collection("sig").indexes()).map((i) => i.name), [
      "_id_",
      "basic",
      "sparse",
      "unique",
      "unique_sparse",
      "partial",
    ]);
  });

  test("the same signature under another name is IndexOptionsConflict (85)", async () => {
    await create("sig85", { key: { a: 1 }, name: "a_1", unique: true });
    await refused(
      () => create("sig85", { key: { a: 1 }, name: "other", unique: true }),
      85,
      "Index already exists with a different name: a_1",
    );
    // Differing only in a non-signature option (expireAfterSeconds) is still the same index.
    await refused(() => create("sig85", { key: { a: 1 }, name: "ttl", unique: true, expireAfterSeconds: 10 }), 85);
    await refused(() => create("sig85", { key: { a: 1 }, name: "a_1", unique: true, expireAfterSeconds: 10 }), 85);
  });

  test("the same name with another key or signature is IndexKeySpecsConflict (86)", async () => {
    await create("sig86", { key: { a: 1 }, name: "a_1" });
    await refused(() => create("sig86", { key: { b: 1 }, name: "a_1" }), 86);
    await refused(() => create("sig86", { key: { a: 1 }, name: "a_1", unique: true }), 86);
    await refused(() => create("sig86", { key: { a: 1 }, name: "a_1", sparse: true }), 86);
  });

  test("an identical index again is a no-op; partial filters compare normalised", async () => {
    const filter = { a: { $gt: 0, $lt: 10 }, b: "blah" };
    await create("same", { key: { a: 1 }, name: "p", partialFilterExpression: filter });
    const again = await create("same", {
      key: { a: 1 },
      name: "p",
      partialFilterExpression: { $and: [{ b: "blah" }, { a: { $lt: 10 } }, { a: { $gt: 0 } }] },
    });
    assert.equal(again.note, "all indexes already exist");
    assert.equal(again.numIndexesAfter, again.numIndexesBefore);
  });

  test("unique given as a number is a unique index; other types are TypeMismatch (14)", async () => {
    const c = conn.db.collection("numeric_unique");
    await create("numeric_unique", { key: { a: 1 }, name: "a_1", unique: 1 });
    const [, index] = await c.indexes();
    assert.equal(index.unique, true);
    await c.insertOne({ a: 5 });
    await refused(() => c.insertOne({ a: 5 }), 11000);
    await create("numeric_unique", { key: { s: 1 }, name: "s_1", sparse: 1 });
    await refused(() => create("numeric_unique", { key: { b: 1 }, name: "b_1", unique: "yes" }), 14);
    await refused(() => create("numeric_unique", { key: { b: 1 }, name: "b_1", sparse: {} }), 14);
  });

  test("a plain and a unique partial index on one field: reads, uniqueness, explain", async () => {
    const c = conn.db.collection<{ _id: number; email?: unknown }>("users");
    await c.createIndex({ email: 1 });
    await c.createIndex({ email: 1 }, {
      name: "email_unique",
      unique: true,
      partialFilterExpression: { email: { $exists: true } },
    });
    await c.insertMany([{ _id: 1, email: "a" }, { _id: 2, email: "b" }, { _id: 3 }, { _id: 4 }]);
    await refused(() => c.insertOne({ _id: 5, email: "a" }), 11000);
    await c.updateOne({ _id: 3 }, { $set: { email: "c" } });
    await refused(() => c.updateOne({ _id: 4 }, { $set: { email: "c" } }), 11000);
    await c.deleteOne({ _id: 1 });
    await c.insertOne({ _id: 6, email: "a" });
    assert.deepEqual(await c.find({ email: "a" }).toArray(), [{ _id: 6, email: "a" }]);
    assert.deepEqual((await c.find({ email: { $gte: "b" } }).sort({ email: -1 }).toArray()).map((d) => d._id), [3, 2]);
    assert.deepEqual((await c.find({ email: null }).toArray()).map((d) => d._id), [4]);
    const explain = await c.find({ email: "b" }).explain("executionStats");
    assert.equal(explain.executionStats.nReturned, 1);
    assert.match(JSON.stringify(explain.queryPlanner.winningPlan), /IXSCAN/);
  });

  test("a key pattern naming two indexes is ambiguous for dropIndexes (181); names still work", async () => {
    const c = conn.db.collection("ambiguous");
    await c.createIndex({ a: 1 });
    await c.createIndex({ a: 1 }, { name: "a_sparse", sparse: true });
    await refused(() => c.dropIndex({ a: 1 } as unknown as string), 181);
    await c.dropIndex("a_sparse");
    await c.dropIndex({ a: 1 } as unknown as string);
    assert.deepEqual((await c.indexes()).map((i) => i.name), ["_id_"]);
  });
});
