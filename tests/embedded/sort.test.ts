import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { sortStats } from "../../src/embedded/query/sort.ts";
import { connectTarget, externalUri, type Connected } from "./helpers.ts";

const N = 5000;

/** Comparisons the engine's sort makes while `run` runs (the engine shares this process). */
async function comparisons<T>(run: () => Promise<T>): Promise<{ result: T; compared: number }> {
  const before = sortStats.compared;
  const result = await run();
  return { result, compared: sortStats.compared - before };
}

/**
 * Pages sorted on a field other than `_id`. The stored order is the opposite of the sort
 * order, the worst case for a sorted insertion buffer (every document lands at its front).
 */
describe("embedded engine: sorted pages", { skip: externalUri !== undefined && "counts the engine's own comparisons" }, () => {
  let conn: Connected;
  // s descends as _id ascends, with pairs of ties that must come back in _id order.
  const rows = Array.from({ length: N }, (_, i) => ({ _id: i, s: Math.floor((N - i) / 2) }));
  const ascending = [...rows].sort((a, b) => a.s - b.s || a._id - b._id).map((r) => r._id);

  before(async () => {
    conn = await connectTarget("sort");
    await conn.db.collection("rows").insertMany(rows as Document[]);
  });
  after(async () => {
    await conn.close();
  });

  test("a skip past every match returns nothing without comparing a document", async () => {
    const c = conn.db.collection("rows");
    for (const skip of [N, 1e12]) {
      const { result, compared } = await comparisons(() => c.find({}, { sort: { s: 1 }, skip, limit: 10 }).toArray());
      assert.deepEqual(result, []);
      assert.equal(compared, 0, `skip ${skip}`);
    }
  });

  test("a deep page is the right one and costs O(n log n) comparisons, not O(n * skip)", async () => {
    const c = conn.db.collection("rows");
    const { result, compared } = await comparisons(() => c.find({}, { sort: { s: 1 }, skip: 4000, limit: 10 }).toArray());
    assert.deepEqual(result.map((d) => d._id), ascending.slice(4000, 4010));
    assert.ok(compared <= 2 * N * Math.log2(N), `${compared} comparisons`);
  });

  test("shallow pages, descending sorts and unlimited reads keep ties in _id order", async () => {
    const c = conn.db.collection("rows");
    const { result, compared } = await comparisons(() => c.find({}, { sort: { s: 1 }, skip: 3, limit: 5 }).toArray());
    assert.deepEqual(result.map((d) => d._id), ascending.slice(3, 8));
    assert.ok(compared <= N * 2 * Math.log2(16), `${compared} comparisons for a top-8`);
    const descending = await c.find({ s: { $lt: 4 } }, { sort: { s: -1 } }).toArray();
    assert.deepEqual(descending.map((d) => d._id), [N - 7, N - 6, N - 5, N - 4, N - 3, N - 2, N - 1]);
    const all = await c.find({}, { sort: { s: 1 }, skip: N - 3 }).toArray();
    assert.deepEqual(all.map((d) => d._id), ascending.slice(N - 3));
  });
});
