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
