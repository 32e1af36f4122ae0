import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, Long } from "mongodb";
import { sortLimits } from "../../src/embedded/query/sort.ts";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * `$setWindowFields` numbers and ranks documents in MongoDB's BSON order (numbers of every width
 * by value, then strings...) and partitions them by value (`Long(1)` with `1`). mingo sorted a
 * string below a number and a `Long` as an object, and split `Long(1)` from `1`.
 */
describe("embedded engine: $setWindowFields order and partitions", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; group: unknown; k: unknown }>;

  before(async () => {
    conn = await connectTarget("window_order");
    rows = conn.db.collection("rows");
    await rows.insertMany([
      { _id: 1, group: 1, k: "a" },
      { _id: 2, group: Long.fromNumber(1), k: 2 },
      { _id: 3, group: 1, k: Long.fromNumber(1) },
      { _id: 4, group: 2, k: 2.5 },
      { _id: 5, group: 2, k: 2.5 },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  test("documents are numbered and ranked in BSON order, within value-equal partitions", async () => {
    const out = await rows.aggregate([
      {
        $setWindowFields: {
          partitionBy: "$group",
          sortBy: { k: 1 },
          output: {
            n: { $documentNumber: {} },
            r: { $rank: {} },
            run: { $count: {}, window: { documents: ["unbounded", "current"] } },
          },
        },
      },
      { $sort: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(
      out.map(({ _id, n, r, run }) => ({ _id, n, r, run })),
      [
        { _id: 1, n: 3, r: 3, run: 3 },
        { _id: 2, n: 2, r: 2, run: 2 },
        { _id: 3, n: 1, r: 1, run: 1 },
        { _id: 4, n: 1, r: 1, run: 1 },
        { _id: 5, n: 2, r: 1, run: 2 },
      ],
    );
    assert.deepEqual(Object.keys(out[0]), ["_id", "group", "k", "n", "r", "run"], "no helper field shows");
  });

  test("plain values (what mingo orders as MongoDB does, left to it) rank the same way", async () => {
    const plain = conn.db.collection<{ _id: number; team: string; score: number }>("plain");
    await plain.insertMany([
      { _id: 1, team: "b", score: 3 },
      { _id: 2, team: "a", score: 10 },
      { _id: 3, team: "b", score: 10 },
      { _id: 4, team: "b", score: 3 },
    ]);
    const out = await plain.aggregate([
      { $setWindowFields: { partitionBy: "$team", sortBy: { score: -1 }, output: { r: { $rank: {} } } } },
      { $sort: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(out.map((d) => d.r), [2, 1, 1, 2]);
  });

  test("outputs that copy the documents show no helper field, and windows are not held to the sort limit", async () => {
    const limit = sortLimits.maxEntries;
    sortLimits.maxEntries = 3;
    try {
      const out = await rows.aggregate([
        {
          $setWindowFields: {
            partitionBy: "$group",
            sortBy: { k: 1 },
            output: {
              all: { $push: "$$ROOT" },
              next: { $shift: { output: { doc: "$$CURRENT" }, by: 1, default: null } },
            },
          },
        },
      ]).toArray();
      // No $sort stage here: it is held to the sort limit, as MongoDB's is to its memory limit.
      const first = out.find((d) => d._id === 1)!;
      assert.deepEqual(first.all.map((d: Document) => Object.keys(d)), [["_id", "group", "k"], ["_id", "group", "k"], [
        "_id",
        "group",
        "k",
      ]]);
      assert.equal(first.next, null, "the string sorts last in its partition");
      assert.deepEqual(Object.keys(out.find((d) => d._id === 3)!.next.doc), ["_id", "group", "k"]);
    } finally {
      sortLimits.maxEntries = limit;
    }
  });

  test("a cap on $documentNumber keeps the first documents in BSON order", async () => {
    const kept = await rows.aggregate([
      { $setWindowFields: { sortBy: { k: 1 }, output: { n: { $documentNumber: {} } } } },
      { $match: { n: { $lte: 2 } } },
    ]).toArray() as Document[];
    assert.deepEqual(kept.map((d) => d._id).sort(), [2, 3]);
  });
});
