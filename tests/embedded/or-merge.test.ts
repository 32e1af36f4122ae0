import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { collect, planRead } from "../../src/embedded/query/plan.ts";
import { Collection } from "../../src/embedded/store/collection.ts";
import { keysetFilter, sortKeys } from "../../src/plan/keyset.ts";

// The engine's own merge of an $or's branch scans, read without the driver: how many index
// entries it examines is this engine's choice (a MongoDB SORT_MERGE reads the head of every
// branch first), so this is asserted here rather than in the driver-level suites.
describe("$or merge", () => {
  const coll = new Collection("db", "things");
  for (let id = 1; id <= 110; id++) coll.put(id <= 100 ? { _id: id, g: id <= 50 ? "a" : "b" } : { _id: id });
  coll.addIndex({ name: "g_1", key: { g: 1 } });
  coll.addIndex({ name: "g_-1", key: { g: -1 } });

  function page(sort: Record<string, 1 | -1>, key: unknown[], limit: number) {
    const filter = keysetFilter(sortKeys(sort), key, "after");
    const read = planRead(coll, { filter, sort, limit })!;
    const ids = collect(read.docs).map((doc) => doc._id);
    assert.ok(
      read.plan.kind === "ixscan" && read.plan.branches,
      `a merged $or plan: ${JSON.stringify(read.plan.kind)}`,
    );
    return { ids, keys: read.stats.keysExamined };
  }

  test("a page inside the boundary's branch reads only that branch's entries", () => {
    assert.deepEqual(page({ g: 1, _id: 1 }, ["a", 10], 5), { ids: [11, 12, 13, 14, 15], keys: 5 });
    // Descending first key: the branches are g < "b", g null and g = "b" after 60.
    assert.deepEqual(page({ g: -1, _id: 1 }, ["b", 60], 5), { ids: [61, 62, 63, 64, 65], keys: 5 });
  });

  test("a page that crosses into the next branches starts them in order, each document once", () => {
    assert.deepEqual(page({ g: 1, _id: 1 }, ["a", 48], 5), { ids: [49, 50, 51, 52, 53], keys: 5 });
    const descending = page({ g: -1, _id: 1 }, ["a", 48], 20);
    assert.deepEqual(descending.ids, [49, 50, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);
    assert.equal(descending.keys, 12);
  });
});
