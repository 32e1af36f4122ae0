import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/**
 * A projection is an inclusion or an exclusion, decided by its first field other than `_id`
 * (MongoDB's projection_parser.cpp): the other kind later on is refused with 31254 or 31253.
 */
describe("embedded engine: inclusion and exclusion projections do not mix", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("projection_kinds");
    await conn.db.collection("rows").insertOne({ _id: 1, a: 1, b: 2, c: { d: 3, e: 4 } } as Document);
  });
  after(async () => {
    await conn.close();
  });

  const find = (projection: Document) => conn.db.collection("rows").find({}, { projection }).toArray();
  const project = (projection: Document) => conn.db.collection("rows").aggregate([{ $project: projection }]).toArray();

  test("an exclusion in an inclusion projection is 31254, in find and $project", async () => {
    const message = "Cannot do exclusion on field b in inclusion projection";
    await refused(() => find({ a: 1, b: 0 }), 31254, message);
    await refused(() => project({ a: 1, b: 0 }), 31254, message);
    await refused(() => find({ a: true, "c.d": 1, b: false }), 31254, message);
  });

  test("an inclusion in an exclusion projection is 31253, nested fields named as written", async () => {
    await refused(() => find({ a: 0, b: 1 }), 31253, "Cannot do inclusion on field b in exclusion projection");
    await refused(() => project({ a: 0, b: 1 }), 31253, "Cannot do inclusion on field b in exclusion projection");
    await refused(() => find({ a: 0, c: { d: 1 } }), 31253, "Cannot do inclusion on field d in exclusion projection");
  });

  test("the error's codeName is MongoDB's", async () => {
    await assert.rejects(find({ a: 1, b: 0 }), (e: Document) => e.codeName === "Location31254");
    await assert.rejects(find({ a: 0, b: 1 }), (e: Document) => e.codeName === "Location31253");
  });

  test("_id may be excluded from an inclusion projection, and included in an exclusion one", async () => {
    assert.deepEqual(await find({ a: 1, _id: 0 }), [{ a: 1 }]);
    assert.deepEqual(await project({ _id: 0, a: 1 }), [{ a: 1 }]);
    assert.deepEqual(await find({ _id: 1, a: 0, c: 0 }), [{ _id: 1, b: 2 }]);
    assert.deepEqual(await find({ a: 0, "c.d": 0 }), [{ _id: 1, b: 2, c: { e: 4 } }]);
  });
});
