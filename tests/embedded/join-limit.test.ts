import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Db, Document } from "mongodb";
import { type CollectionResolver, runPipeline } from "../../src/embedded/query/pipeline.ts";
import { type Connected, connectTarget } from "./helpers.ts";

/** An input of `n` documents `{_id: i, k: 1}` that counts how many were pulled. */
function counted(n: number): { pulled: number; it: Iterator<Document> } {
  const source = {
    pulled: 0,
    it: {
      next: (): IteratorResult<Document> =>
        source.pulled >= n ? { done: true, value: undefined } : { done: false, value: { _id: ++source.pulled, k: 1 } },
    },
  };
  return source;
}

/** A resolver whose reads each give one document, and count themselves. */
function countingResolver(): { reads: number; resolve: CollectionResolver } {
  const counts = {
    reads: 0,
    resolve: {
      docs: () => [],
      read: () => {
        counts.reads++;
        return [{ _id: "f", k: 1 }][Symbol.iterator]();
      },
    } as CollectionResolver,
  };
  return counts;
}

/**
 * A `$limit` after a `$lookup` or `$unionWith` stops the join once it has its documents, as
 * MongoDB's lazy pipeline does: asked once more (as a cursor asks to learn it is exhausted),
 * mingo's `$limit` pulled its input to the end, one planned foreign read per input document.
 */
describe("embedded engine: $limit after a join reads no further", () => {
  let conn: Connected;
  let db: Db;

  before(async () => {
    conn = await connectTarget("join_limit");
    db = conn.db;
  });
  after(async () => {
    await conn?.close();
  });

  test("the pipeline stops pulling once the limit is met", () => {
    const input = counted(1000);
    const joins = countingResolver();
    const out = runPipeline(
      [{ $lookup: { from: "f", localField: "k", foreignField: "k", as: "m" } }, { $project: { m: 1 } }, { $limit: 2 }],
      input.it,
      joins.resolve,
    );
    assert.equal(out.next().done, false);
    assert.equal(out.next().done, false);
    assert.equal(out.next().done, true);
    assert.equal(out.next().done, true);
    assert.equal(input.pulled, 2);
    assert.equal(joins.reads, 2);
    const union = counted(10);
    const unioned = runPipeline([{ $unionWith: "big" }, { $limit: 1 }], union.it, countingResolver().resolve);
    assert.equal(unioned.next().done, false);
    assert.equal(unioned.next().done, true);
    assert.equal(union.pulled, 1);
  });

  test("$lookup then $limit makes only the foreign reads the limit keeps", async () => {
    const docs: Document[] = Array.from({ length: 2000 }, (_, i) => ({ _id: i, k: i % 10 }));
    await db.collection("l").insertMany(docs);
    await db.collection("f").insertMany(Array.from({ length: 10 }, (_, i): Document => ({ _id: i, k: i })));
    await db.collection("f").createIndex({ k: 1 });
    const lookup = { $lookup: { from: "f", localField: "k", foreignField: "k", as: "m" } };
    const ops = async () => {
      const stats = await db.collection("f").aggregate([{ $indexStats: {} }]).toArray();
      return Number(stats.find((s) => s.name === "k_1")?.accesses.ops);
    };
    for (
      const pipeline of [[lookup, { $limit: 1 }], [lookup, { $unwind: "$m" }, { $project: { k: 1 } }, { $limit: 3 }]]
    ) {
      const before = await ops();
      const out = await db.collection("l").aggregate(pipeline).toArray();
      assert.equal(out.length, pipeline.length === 2 ? 1 : 3);
      assert.equal((await ops()) - before, out.length);
    }
  });
});
