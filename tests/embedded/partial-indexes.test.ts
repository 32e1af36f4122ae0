import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection } from "mongodb";
import { type Connected, connectTarget, withCode } from "./helpers.ts";

type User = { _id: number; email?: string | null; status?: string; age?: number };

/**
 * Sparse and partial indexes: a unique one refuses duplicates only among the documents it
 * covers (those with the field, or those its filter matches), as MongoDB's does; the filter is
 * checked for the operators MongoDB allows; and reads find every document, covered or not. The
 * engine refused both options before (code 238).
 */
describe("embedded engine: sparse and partial indexes", () => {
  let conn: Connected;
  let users: Collection<User>;

  before(async () => {
    conn = await connectTarget("partial_indexes");
    users = conn.db.collection("users");
  });
  after(async () => {
    await conn.close();
  });

  test("a partial unique index refuses duplicates among the documents its filter matches only", async () => {
    await users.insertMany([
      { _id: 1, email: "a@x", status: "deleted" },
      { _id: 2, email: "a@x", status: "deleted" },
      { _id: 3, email: "a@x", status: "active" },
    ]);
    await users.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { status: { $eq: "active" } } });
    const listed = (await users.indexes()).find((index) => index.name === "email_1");
    assert.deepEqual(listed?.partialFilterExpression, { status: { $eq: "active" } });
    await assert.rejects(users.insertOne({ _id: 4, email: "a@x", status: "active" }), withCode(11000));
    await users.insertOne({ _id: 5, email: "a@x", status: "deleted" });
    await assert.rejects(users.updateOne({ _id: 1 }, { $set: { status: "active" } }), withCode(11000));
    assert.deepEqual((await users.find({ email: "a@x" }).toArray()).map((u) => u._id), [1, 2, 3, 5]);
  });

  test("creating one over covered duplicates is refused; over uncovered ones it is not", async () => {
    const people = conn.db.collection<User>("people");
    await people.insertMany([{ _id: 1, email: "b@x", age: 10 }, { _id: 2, email: "b@x", age: 12 }, {
      _id: 3,
      email: "b@x",
      age: 30,
    }]);
    await assert.rejects(
      people.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { age: { $lt: 18 } } }),
      withCode(11000),
    );
    await people.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { age: { $gte: 18 } } });
    await people.insertOne({ _id: 4, email: "b@x", age: 13 });
  });

  test("a sparse unique index lets documents without the field repeat, and null is a value", async () => {
    const cards = conn.db.collection<User>("cards");
    await cards.createIndex({ email: 1 }, { unique: true, sparse: true });
    await cards.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3, email: null }]);
    await assert.rejects(cards.insertOne({ _id: 4, email: null }), withCode(11000));
    assert.equal((await cards.indexes()).find((index) => index.name === "email_1")?.sparse, true);
  });

  test("coverage is read as a filter reads it: arrays, collation, any operand MongoDB allows", async () => {
    const tagged = conn.db.collection<{ _id: number; email: string; tags?: unknown; b?: unknown; status?: string }>(
      "tagged",
    );
    await tagged.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { tags: { $exists: true } } });
    await tagged.insertOne({ _id: 1, email: "a", tags: [] });
    await assert.rejects(tagged.insertOne({ _id: 2, email: "a", tags: [] }), withCode(11000));
    const typed = conn.db.collection<{ _id: number; email: string; b?: unknown }>("typed");
    await typed.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { b: { $type: 4 } } });
    await typed.insertOne({ _id: 1, email: "a", b: [1] });
    await assert.rejects(typed.insertOne({ _id: 2, email: "a", b: [2] }), withCode(11000));
    const shaped = conn.db.collection<{ _id: number; email: string; b?: unknown }>("shaped");
    await shaped.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { b: { x: 1 } } });
    await shaped.insertMany([{ _id: 1, email: "a", b: { x: 1 } }, { _id: 2, email: "a", b: { x: 2 } }]);
    await assert.rejects(shaped.insertOne({ _id: 3, email: "a", b: { x: 1 } }), withCode(11000));
    const folded = conn.db.collection<{ _id: number; email: string; status: string }>("folded");
    await folded.createIndex({ email: 1 }, {
      unique: true,
      collation: { locale: "en", strength: 2 },
      partialFilterExpression: { status: "active" },
    });
    await folded.insertOne({ _id: 1, email: "a", status: "ACTIVE" });
    await assert.rejects(folded.insertOne({ _id: 2, email: "A", status: "Active" }), withCode(11000));
    const empty = conn.db.collection<{ _id: number; a: unknown[] }>("empty");
    await empty.createIndex({ a: 1 }, { unique: true, sparse: true });
    await empty.insertOne({ _id: 1, a: [] });
    await assert.rejects(empty.insertOne({ _id: 2, a: [] }), withCode(11000));
  });

  test("indexes on one key may differ in their filter, and $merge will not match on a partial one", async () => {
    const twice = conn.db.collection<{ _id: number; k: number; live: boolean }>("twice");
    await twice.createIndex({ k: 1 }, { name: "live", unique: true, partialFilterExpression: { live: true } });
    await twice.createIndex({ k: 1 }, { name: "gone", partialFilterExpression: { live: false } });
    assert.deepEqual((await twice.indexes()).map((index) => index.name), ["_id_", "live", "gone"]);
    await twice.insertMany([{ _id: 1, k: 1, live: false }, { _id: 2, k: 1, live: false }]);
    await assert.rejects(
      conn.db.aggregate([{ $documents: [{ k: 1 }] }, { $merge: { into: "twice", on: "k" } }]).toArray(),
      withCode(51183),
    );
  });

  test("filters and option mixes MongoDB does not allow are refused", async () => {
    const other = conn.db.collection("other");
    for (const partialFilterExpression of [{ a: { $exists: false } }, { a: { $ne: 1 } }, { $nor: [{ a: 1 }] }]) {
      await assert.rejects(other.createIndex({ a: 1 }, { partialFilterExpression }), withCode(67));
    }
    await assert.rejects(
      other.createIndex({ a: 1 }, { sparse: true, partialFilterExpression: { a: { $gt: 1 } } }),
      withCode(67),
    );
  });
});
