import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import type { Collection, Document } from "mongodb";
import { keyOf, keysetFilter, reversed, type SortKey, sortKeys } from "../../src/plan/keyset.ts";
import { type Connected, connectTarget } from "./helpers.ts";
import { mulberry32 } from "../helpers/random.ts";

// Keyset pages, as the framework's cursors send them, read about one page of index entries
// however deep they lie: checked through explain on a collection with indexes, and against an
// unindexed copy for the results. Data comes from a seeded generator (KEYSET_PLANS_SEED).
const SEED = Number(process.env.KEYSET_PLANS_SEED ?? 4242);
const N = 4000;
const PAGE = 25;
/** Entries a page may read beyond its own: the first entry of each `$or` branch's scan, and the one that ends it. */
const SLACK = 8;

type Row = { _id: number; [field: string]: unknown };

const random = mulberry32(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];

/** Heavy ties (40 names over 4,000 rows), nulls and missing fields on every sorted field. */
function row(i: number): Row {
  const doc: Row = { _id: i + 1 };
  const name = pick([...Array.from({ length: 40 }, (_, k) => `n${String(k).padStart(2, "0")}`), null, undefined]);
  const score = pick([...Array.from({ length: 30 }, (_, k) => k * 1.5), null, undefined]);
  if (name !== undefined) doc.name = name;
  if (score !== undefined) doc.score = score;
  doc.group = pick(["a", "b", "c"]);
  doc.created_at = new Date(Date.UTC(2025, 0, 1 + Math.floor(random() * 50)));
  return doc;
}

/** The sorts the framework sends (every one ends with `_id`) and the index that serves each. */
const SORTS: [Document, string][] = [
  [{ _id: 1 }, "_id_"],
  [{ _id: -1 }, "_id_"],
  [{ name: 1, _id: 1 }, "name_1"],
  [{ score: -1, _id: 1 }, "score_-1"],
  [{ created_at: -1, name: 1, _id: 1 }, "created_at_-1_name_1"],
  [{ group: 1, score: -1, _id: 1 }, "group_1_score_-1"],
];

/** Every index scan of a winning plan (several under SORT_MERGE). */
function indexScans(stage: Document | undefined): Document[] {
  if (!stage) return [];
  if (stage.stage === "IXSCAN") return [stage];
  return [
    ...indexScans(stage.inputStage),
    ...((stage.inputStages as Document[] | undefined) ?? []).flatMap(indexScans),
  ];
}

function hasStage(stage: Document | undefined, name: string): boolean {
  if (!stage) return false;
  return stage.stage === name || hasStage(stage.inputStage, name) ||
    ((stage.inputStages as Document[] | undefined) ?? []).some((s) => hasStage(s, name));
}

describe("embedded engine: keyset pages read one page of index entries", () => {
  let conn: Connected;
  let indexed: Collection<Row>;
  let plain: Collection<Row>;
  const rows = Array.from({ length: N }, (_, i) => row(i));

  before(async () => {
    conn = await connectTarget("keyset_plans");
    indexed = conn.db.collection<Row>("indexed");
    plain = conn.db.collection<Row>("plain");
    await indexed.insertMany(rows.map((r) => ({ ...r })));
    await plain.insertMany(rows.map((r) => ({ ...r })));
    await indexed.createIndex({ name: 1 });
    await indexed.createIndex({ score: -1 });
    await indexed.createIndex({ created_at: -1, name: 1 });
    await indexed.createIndex({ group: 1, score: -1 });
  });
  after(async () => {
    await conn.close();
  });

  /** Explains a find on the indexed collection and checks its results against the unindexed one. */
  async function page(filter: Document, sort: Document, limit: number, label: string) {
    const explained = await indexed.find(filter, { sort, limit }).explain("executionStats");
    const got = await indexed.find(filter, { sort, limit }).toArray();
    assert.deepEqual(got, await plain.find(filter, { sort, limit }).toArray(), `seed ${SEED}: ${label}: results`);
    return { plan: explained.queryPlanner.winningPlan as Document, stats: explained.executionStats as Document, got };
  }

  /** Boundaries at the start, the middle, the end, and on a record whose first key is null. */
  async function boundaries(sort: Document, filter: Document): Promise<Row[]> {
    const all = await plain.find(filter, { sort }).toArray();
    const firstKey = Object.keys(sort)[0];
    const nullish = all.find((r) => r[firstKey] === undefined || r[firstKey] === null);
    return [
      all[0],
      all[Math.floor(all.length / 2)],
      all[all.length - PAGE],
      all[all.length - 1],
      ...(nullish ? [nullish] : []),
    ];
  }

  for (const [sort, indexName] of SORTS) {
    for (const [qLabel, q] of [["no q", {}], ["q through $and", { $or: [{ group: "a" }, { group: "b" }] }]] as const) {
      test(`sort ${JSON.stringify(sort)}, ${qLabel}: forward and backward pages, and the look behind, read about a page`, async () => {
        const keys: SortKey[] = sortKeys(sort);
        for (const boundary of await boundaries(sort, q)) {
          const key = keyOf(boundary, keys);
          for (const side of ["after", "before"] as const) {
            const label = `${JSON.stringify(sort)} ${qLabel} ${side} ${JSON.stringify(key)}`;
            const order = side === "after" ? sort : reversed(keys);
            const filter = { $and: [q, keysetFilter(keys, key, side)] };
            const { plan, stats, got } = await page(filter, order, PAGE + 1, label);
            if (stats.totalKeysExamined > 0) {
              // (Past the last record, a plan that reads nothing at all may win instead.)
              assert.ok(
                !hasStage(plan, "SORT") && !hasStage(plan, "COLLSCAN"),
                `seed ${SEED}: ${label}: ${JSON.stringify(plan)}`,
              );
              assert.deepEqual(
                [...new Set(indexScans(plan).map((s) => s.indexName))],
                [indexName],
                `seed ${SEED}: ${label}`,
              );
            }
            // The q matches about two thirds of the rows: a page reads about 1.5 times its size.
            const budget = Object.keys(q).length ? 2 * (PAGE + 1) + SLACK : PAGE + 1 + SLACK;
            assert.ok(
              stats.totalKeysExamined <= budget,
              `seed ${SEED}: ${label}: ${stats.totalKeysExamined} keys for ${got.length}`,
            );
            assert.ok(
              stats.totalDocsExamined <= budget,
              `seed ${SEED}: ${label}: ${stats.totalDocsExamined} docs for ${got.length}`,
            );
            // Whether anything lies behind the page: the boundary or beyond it, read from the boundary.
            const behind = { $and: [q, keysetFilter(keys, key, side === "after" ? "before" : "after", true)] };
            const look = await page(behind, side === "after" ? reversed(keys) : sort, 1, `${label} behind`);
            assert.ok(
              look.stats.totalKeysExamined <= 1 + SLACK,
              `seed ${SEED}: ${label} behind: ${look.stats.totalKeysExamined} keys`,
            );
          }
        }
      });
    }
  }

  test("explain shows one IXSCAN per branch under SORT_MERGE, with each branch's bounds", async () => {
    const keys: SortKey[] = sortKeys({ score: -1, _id: 1 });
    const { plan } = await page(keysetFilter(keys, [7.5, 100], "after"), { score: -1, _id: 1 }, 5, "shape");
    const merge = plan.inputStage.inputStage;
    assert.equal(plan.stage, "LIMIT");
    assert.equal(plan.inputStage.stage, "FETCH");
    assert.equal(merge.stage, "SORT_MERGE");
    assert.deepEqual(merge.inputStages.map((s: Document) => s.indexBounds.score), [["(7.5, -inf]"], ["[null, null]"], [
      "[7.5, 7.5]",
    ]]);
  });

  test("null bounds: {f: null} is decided by a single-key index; $ne: null keeps an empty array on a multikey one", async () => {
    const nulls = { name: null };
    const explained = await indexed.find(nulls, { sort: { name: 1, _id: 1 }, limit: 5 }).explain("executionStats");
    assert.equal(explained.queryPlanner.winningPlan.inputStage.filter, undefined, "no per-document test");
    assert.deepEqual(await indexed.find(nulls).toArray(), await plain.find(nulls).toArray());
    const mixed = conn.db.collection<Row>("mixed");
    await mixed.createIndex({ a: 1 });
    await mixed.insertMany([{ _id: 1, a: [] }, { _id: 2, a: null }, { _id: 3 }, { _id: 4, a: 1 }, {
      _id: 5,
      a: [null, 2],
    }]);
    assert.deepEqual((await mixed.find({ a: { $ne: null } }).toArray()).map((r) => r._id), [1, 4]);
    assert.equal(await mixed.countDocuments({ a: { $ne: null } }), 2);
  });

  test("a capped count stops reading at its cap, as count=estimated asks with a filter", async () => {
    const query = { group: { $in: ["a", "b", "c"] }, created_at: { $type: "date" } }; // every row, not decided by an index
    const explained = await conn.db.command({
      explain: { count: "indexed", query, limit: 100 },
      verbosity: "executionStats",
    });
    assert.ok(
      explained.executionStats.totalDocsExamined <= 100,
      `${explained.executionStats.totalDocsExamined} docs for a cap of 100`,
    );
    assert.equal(await indexed.countDocuments(query, { limit: 100 }), 100);
    assert.equal(await indexed.countDocuments(query, { skip: 3990, limit: 100 }), 10);
  });

  test("_id ranges seek in the _id order: forward, backward, with a sort the _id order gives", async () => {
    for (
      const [filter, sort] of [[{ _id: { $gt: 3000 } }, { _id: 1 }], [{ _id: { $lt: 1000 } }, { _id: -1 }], [{
        _id: { $gte: 10, $lte: 20 },
      }, { _id: 1 }]] as const
    ) {
      const { plan, stats } = await page(filter, sort, 10, JSON.stringify(filter));
      const scan = indexScans(plan)[0];
      assert.equal(scan.indexName, "_id_");
      assert.ok(
        stats.totalKeysExamined <= 10 && stats.totalDocsExamined <= 10,
        `${JSON.stringify(filter)}: ${JSON.stringify(stats)}`,
      );
    }
    const count = await conn.db.command({
      explain: { count: "indexed", query: { _id: { $gt: 3900 } } },
      verbosity: "executionStats",
    });
    assert.equal(count.executionStats.totalDocsExamined, 0, "an _id range alone is counted by position");
    assert.equal(await indexed.countDocuments({ _id: { $gt: 3900 } }), 100);
  });
});
