import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/**
 * createIndexes refuses what MongoDB 7.0 refuses (an index on `_id` alone other than
 * `{_id: 1}`, index versions other than 1 and 2, an empty list), and a replacement-style update
 * with arrayFilters is applied (UpdateDriver::parse checks unused filters only for operators).
 */
describe("embedded engine: index specs and replacement updates", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("spec_refusals");
    await conn.db.collection("c").insertOne({ _id: 1, a: [1, 2] } as Document);
  });
  after(async () => {
    await conn?.close();
  });

  const create = (indexes: Document[]) => () => conn.db.command({ createIndexes: "c", indexes });

  test("createIndexes refuses an _id index other than {_id: 1}, bad versions and no index", async () => {
    await refused(
      create([{ key: { _id: -1 }, name: "_id_-1" }]),
      2,
      "The field 'key' for an _id index must be {_id: 1}, but got { _id: -1 }",
    );
    await refused(
      create([{ key: { _id: -1 }, name: "_id_-1u", unique: true }]),
      197,
      `The field 'unique' is not valid for an _id index specification. Specification: { key: { _id: -1 }, name: "_id_-1u", unique: true, v: 2 }`,
    );
    await refused(create([{ key: { a: 1 }, name: "a_v3", v: 3 }]), 67, /; cannot create an index with v=3$/);
    await refused(
      create([{ key: { a: 1 }, name: "a_vs", v: "2" }]),
      14,
      /The field 'v' must be a number, but got string$/,
    );
    await refused(create([]), 2, "Must specify at least one index to create");
    const names = (await conn.db.collection("c").indexes()).map((index) => index.name);
    assert.deepEqual(names, ["_id_"]);
    // v 1 and 2 are accepted.
    await create([{ key: { a: 1 }, name: "a_v1", v: 1 }])();
  });

  test("a replacement with arrayFilters is applied", async () => {
    const reply = await conn.db.command({
      update: "c",
      updates: [{ q: { _id: 1 }, u: { b: 1 }, arrayFilters: [{ x: 1 }] }],
    });
    assert.equal(reply.nModified, 1);
    const found = await conn.db.command({
      findAndModify: "c",
      query: { _id: 1 },
      update: { b: 2 },
      arrayFilters: [{ x: 1 }],
      new: true,
    });
    assert.deepEqual(found.value, { _id: 1, b: 2 });
    // An operator update still refuses a filter it does not use.
    await refused(
      () =>
        conn.db.collection<{ _id: number }>("c").updateOne({ _id: 1 }, { $set: { b: 3 } }, {
          arrayFilters: [{ x: 1 }],
        }),
      9,
    );
  });
});
