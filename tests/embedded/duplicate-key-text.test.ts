import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** A test document: numbered, with whatever fields a test gives it. */
type Row = { _id: number; [field: string]: unknown };

/**
 * The `dup key: { ... }` of a duplicate-key error prints the key that collided as the server
 * prints it: an empty array keys as BSON undefined, printed `undefined` (the engine printed
 * `null`, the text of a missing field), and an array's key is the element that collided (the
 * engine printed the array's first element).
 */
describe("embedded engine: duplicate key text", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("duplicate_key_text");
  });
  after(async () => {
    await conn.close();
  });

  const refusedWith = (text: string) => (error: Document): true => {
    assert.equal(error.code, 11000);
    assert.ok(String(error.message).endsWith(text), error.message);
    return true;
  };

  test("two {a: []} under a unique index: dup key: { a: undefined }", async () => {
    const c = conn.db.collection<Row>("empty");
    await c.createIndex({ a: 1 }, { unique: true });
    await c.insertOne({ _id: 1, a: [] });
    await assert.rejects(c.insertOne({ _id: 2, a: [] }), refusedWith("index: a_1 dup key: { a: undefined }"));
    await c.insertOne({ _id: 3 });
    await assert.rejects(c.insertOne({ _id: 4, a: null }), refusedWith("dup key: { a: null }"));
  });

  test("building a unique index over two empty arrays", async () => {
    const c = conn.db.collection<Row>("build");
    await c.insertMany([{ _id: 1, a: [] }, { _id: 2, a: [] }]);
    await assert.rejects(c.createIndex({ a: 1 }, { unique: true }), refusedWith("dup key: { a: undefined }"));
  });

  test("an array's key is the element that collided", async () => {
    const c = conn.db.collection<Row>("multikey");
    await c.createIndex({ a: 1, b: 1 }, { unique: true });
    await c.insertOne({ _id: 1, a: [5], b: "x" });
    await assert.rejects(
      c.insertOne({ _id: 2, a: [1, 5], b: "x" }),
      (error: Document) => refusedWith(`dup key: { a: 5, b: "x" }`)(error) && error.keyValue?.a === 5,
    );
  });
});
