import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** A stored document with a numeric `_id`. */
interface Row {
  _id: number;
  [field: string]: unknown;
}

/**
 * An aggregate never changes stored documents: a `$lookup`'s `let` values are copies of the
 * input document (not the stored one), and the joins inside `$facet` (mingo's, which take the
 * foreign collection's documents) get copies when a stage of the facet writes.
 */
describe("embedded engine: joins hand out copies of stored documents", () => {
  let conn: Connected;
  let db: Db;

  before(async () => {
    conn = await connectTarget("join_copies");
    db = conn.db;
  });
  after(async () => {
    await conn?.close();
  });

  test("a $lookup let bound to $$ROOT or a sub-document is a copy", async () => {
    const [l, f] = [db.collection<Row>("let_l"), db.collection<Row>("let_f")];
    await l.insertOne({ _id: 1, k: 1, sub: { x: 0 } });
    await f.insertOne({ _id: 10, k: 1 });
    const out = await l.aggregate([
      {
        $lookup: {
          from: "let_f",
          let: { doc: "$$ROOT", s: "$sub" },
          pipeline: [
            { $addFields: { r: "$$doc", s: "$$s" } },
            { $addFields: { "r.sub.x": 99, "s.y": 42 } },
            { $project: { _id: 1, rx: "$r.sub.x", sy: "$s.y" } },
          ],
          as: "m",
        },
      },
    ]).toArray();
    assert.deepEqual(out, [{ _id: 1, k: 1, sub: { x: 0 }, m: [{ _id: 10, rx: 99, sy: 42 }] }]);
    assert.deepEqual(await l.find().toArray(), [{ _id: 1, k: 1, sub: { x: 0 } }]);
    // A later write re-encodes the decoded document: it must still be the stored one.
    await l.updateOne({ _id: 1 }, { $set: { k: 2 } });
    assert.deepEqual(await l.find().toArray(), [{ _id: 1, k: 2, sub: { x: 0 } }]);
  });

  test("a join inside $facet followed by a writing stage leaves the foreign collection alone", async () => {
    const [l, f] = [db.collection<Row>("facet_l"), db.collection<Row>("facet_f")];
    await l.insertOne({ _id: 1, k: 1, sub: { x: 0 } });
    await f.insertOne({ _id: 10, k: 1, sub: { y: 0 } });
    const out = await l.aggregate([
      {
        $facet: {
          a: [
            { $lookup: { from: "facet_f", localField: "k", foreignField: "k", as: "m" } },
            { $unwind: "$m" },
            { $addFields: { "m.sub.y": 55 } },
          ],
          b: [{ $unionWith: "facet_f" }, { $addFields: { "sub.z": 7 } }],
        },
      },
    ]).toArray();
    assert.deepEqual(out[0].a, [{ _id: 1, k: 1, sub: { x: 0 }, m: { _id: 10, k: 1, sub: { y: 55 } } }]);
    assert.deepEqual(out[0].b, [
      { _id: 1, k: 1, sub: { x: 0, z: 7 } },
      { _id: 10, k: 1, sub: { y: 0, z: 7 } },
    ]);
    assert.deepEqual(await f.find().toArray(), [{ _id: 10, k: 1, sub: { y: 0 } }]);
    assert.deepEqual(await l.find().toArray(), [{ _id: 1, k: 1, sub: { x: 0 } }]);
  });
});
