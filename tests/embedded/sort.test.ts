import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document, FindOptions } from "mongodb";
import { sortLimits, sortStats } from "../../src/embedded/query/sort.ts";
import { type Connected, connectTarget, externalUri } from "./helpers.ts";

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
describe(
  "embedded engine: sorted pages",
  { skip: externalUri !== undefined && "counts the engine's own comparisons" },
  () => {
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
      const { result, compared } = await comparisons(() =>
        c.find({}, { sort: { s: 1 }, skip: 4000, limit: 10 }).toArray()
      );
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
  },
);

/**
 * A sort holds at most `sortLimits.maxEntries` documents, however large the collection: a page
 * within it goes through the bounded heap, and a sort needing more is refused with MongoDB's
 * code 292 rather than gathering every match. The limit is lowered here so the test stays small.
 */
describe(
  "embedded engine: sort memory limit",
  { skip: externalUri !== undefined && "lowers the engine's own limit" },
  () => {
    let conn: Connected;
    const saved = sortLimits.maxEntries;
    const rows = Array.from({ length: N }, (_, i) => ({ _id: i, s: (i * 7919) % N }));

    before(async () => {
      conn = await connectTarget("sortlimit");
      await conn.db.collection("rows").insertMany(rows as Document[]);
      sortLimits.maxEntries = 1000;
    });
    after(async () => {
      sortLimits.maxEntries = saved;
      await conn.close();
    });

    test("pages within the limit are served, in order", async () => {
      const c = conn.db.collection("rows");
      const page = await c.find({}, { sort: { s: -1 }, skip: 990, limit: 10 }).toArray();
      assert.deepEqual(page.map((d) => d.s), Array.from({ length: 10 }, (_, i) => N - 1 - 990 - i));
      const narrow = await c.find({ s: { $lt: 800 } }, { sort: { s: 1 }, skip: 790 }).toArray();
      assert.deepEqual(narrow.map((d) => d.s), [790, 791, 792, 793, 794, 795, 796, 797, 798, 799]);
      const deepButFew = await c.find({ s: { $lt: 800 } }, { sort: { s: 1 }, skip: 5000, limit: 10 }).toArray();
      assert.deepEqual(deepButFew, []);
    });

    test("an unlimited or too deep sort over more matches is refused with code 292", async () => {
      const c = conn.db.collection("rows");
      const deep: FindOptions[] = [{ sort: { s: 1 } }, { sort: { s: 1 }, skip: 1500, limit: 10 }];
      for (const options of deep) {
        await assert.rejects(
          c.find({}, options).toArray(),
          (error: { code?: number; codeName?: string; message: string }) => {
            assert.equal(error.code, 292);
            assert.equal(error.codeName, "QueryExceededMemoryLimitNoDiskUseAllowed");
            assert.match(error.message, /Sort exceeded memory limit.*index/);
            return true;
          },
        );
      }
      await assert.rejects(c.aggregate([{ $sort: { s: 1 } }]).toArray(), { code: 292 });
    });
  },
);
