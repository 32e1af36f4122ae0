import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Collection, type Document, MongoServerError, ObjectId } from "mongodb";
import type { Change, ChangeSink } from "../../src/embedded/changes.ts";
import { type Connected, connectTarget } from "./helpers.ts";

/** Documents keyed by number, as these tests insert them. */
type Row = { _id: number; [field: string]: unknown };

const N = 1000;
const people = Array.from({ length: N }, (_, i) => ({
  _id: i,
  name: `n${String((i * 7919) % N).padStart(4, "0")}`,
  age: i % 100,
  group: `g${i % 10}`,
  score: (i * 31) % 97,
}));

/** The stage names of a winning plan, outermost first. */
function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let s: Document | undefined = plan; s; s = s.inputStage as Document | undefined) out.push(s.stage as string);
  return out;
}

function findStage(plan: Document, name: string): Document | undefined {
  for (let s: Document | undefined = plan; s; s = s.inputStage as Document | undefined) if (s.stage === name) return s;
  return undefined;
}

/** The plan and work of an explained find or aggregate (wherever MongoDB puts them). */
function planOf(explained: Document): { winning: Document; stats: Document } {
  const cursor = (explained.stages as Document[] | undefined)?.[0]?.$cursor as Document | undefined;
  const source = cursor ?? explained;
  return { winning: source.queryPlanner.winningPlan, stats: source.executionStats };
}

const byKeys = (keys: [string, 1 | -1][]) => (a: Document, b: Document) => {
  for (const [k, d] of keys) if (a[k] !== b[k]) return (a[k] < b[k] ? -1 : 1) * d;
  return a._id - b._id;
};

describe("embedded engine: ordered indexes, through explain", () => {
  let conn: Connected;
  let c: Collection<Row>;

  before(async () => {
    conn = await connectTarget("ordered");
    c = conn.db.collection<Row>("people");
    await c.insertMany(people);
    await c.createIndex({ name: 1 });
    await c.createIndex({ age: 1 });
    await c.createIndex({ group: 1, score: -1 });
  });
  after(async () => {
    await conn.close();
  });

  test("a sorted page reads at most skip + limit index entries, forward or in reverse, with no sort stage", async () => {
    for (const dir of [1, -1] as const) {
      const cursor = () => c.find({}, { sort: { name: dir }, skip: 200, limit: 10 });
      const { winning, stats } = planOf(await cursor().explain("executionStats"));
      assert.deepEqual(stages(winning), ["LIMIT", "SKIP", "FETCH", "IXSCAN"]);
      assert.equal(findStage(winning, "IXSCAN")!.indexName, "name_1");
      assert.equal(findStage(winning, "IXSCAN")!.direction, dir === 1 ? "forward" : "backward");
      // MongoDB reads the 200 skipped entries too (210); the engine passes over them by position.
      assert.ok(stats.totalKeysExamined >= 10 && stats.totalKeysExamined <= 210, `${stats.totalKeysExamined} keys`);
      assert.ok(stats.totalDocsExamined >= 10 && stats.totalDocsExamined <= 210, `${stats.totalDocsExamined} docs`);
      assert.equal(stats.nReturned, 10);
      const expected = [...people].sort(byKeys([["name", dir]])).slice(200, 210);
      assert.deepEqual(await cursor().toArray(), expected);
    }
  });

  test("ranges, $in and prefix regexes read only the matching entries", async () => {
    const cases: [Document, (p: (typeof people)[number]) => boolean][] = [
      [{ age: { $gte: 20, $lt: 23 } }, (p) => p.age >= 20 && p.age < 23],
      [{ $and: [{ age: { $gt: 95 } }, { age: { $lte: 97 } }] }, (p) => p.age > 95 && p.age <= 97],
      [{ age: { $in: [1, 50, 99, 1000] } }, (p) => [1, 50, 99].includes(p.age)],
      [{ name: /^n001/ }, (p) => p.name.startsWith("n001")],
      [{ name: { $regex: "^n09", $options: "" } }, (p) => p.name.startsWith("n09")],
    ];
    for (const [filter, match] of cases) {
      const expected = people.filter(match);
      const { winning, stats } = planOf(await c.find(filter).explain("executionStats"));
      assert.ok(findStage(winning, "IXSCAN"), JSON.stringify(filter));
      assert.equal(stats.totalKeysExamined, expected.length, JSON.stringify(filter));
      assert.equal(stats.totalDocsExamined, expected.length, JSON.stringify(filter));
      assert.deepEqual(await c.find(filter).toArray(), expected, JSON.stringify(filter));
    }
  });

  test("a compound index serves an equality then a sort on the next field, in either direction", async () => {
    for (const dir of [1, -1] as const) {
      const cursor = () => c.find({ group: "g3" }, { sort: { score: dir }, limit: 5 });
      const { winning, stats } = planOf(await cursor().explain("executionStats"));
      assert.equal(findStage(winning, "SORT"), undefined);
      assert.equal(findStage(winning, "IXSCAN")!.indexName, "group_1_score_-1");
      assert.equal(findStage(winning, "IXSCAN")!.direction, dir === -1 ? "forward" : "backward");
      assert.equal(stats.totalKeysExamined, 5);
      const expected = people.filter((p) => p.group === "g3").sort(byKeys([["score", dir]])).slice(0, 5);
      assert.deepEqual((await cursor().toArray()).map((d) => d.score), expected.map((p) => p.score));
    }
  });

  test("a sort the index cannot give goes through a SORT stage and is still right", async () => {
    const cursor = () => c.find({ age: { $lt: 10 } }, { sort: { score: 1, _id: 1 }, limit: 7 });
    const { winning, stats } = planOf(await cursor().explain("executionStats"));
    assert.ok(findStage(winning, "SORT"));
    assert.equal(stats.totalKeysExamined, 100);
    const expected = people.filter((p) => p.age < 10).sort(byKeys([["score", 1]])).slice(0, 7);
    assert.deepEqual(await cursor().toArray(), expected);
  });

  test("a count the index decides alone reads no document, through count, countDocuments and aggregate", async () => {
    const query = { age: { $gte: 10, $lt: 30 } };
    const explained = await conn.db.command({ explain: { count: "people", query }, verbosity: "executionStats" });
    assert.deepEqual(stages(explained.queryPlanner.winningPlan), ["COUNT", "COUNT_SCAN"]);
    assert.equal(explained.executionStats.totalDocsExamined, 0);
    assert.equal(await c.countDocuments(query), 200);
    const agg = planOf(
      await c.aggregate([{ $match: query }, { $group: { _id: 1, n: { $sum: 1 } } }]).explain("executionStats"),
    );
    assert.equal(agg.stats.totalDocsExamined, 0);
    const partial = await conn.db.command({
      explain: { count: "people", query: { ...query, score: 3 } },
      verbosity: "executionStats",
    });
    assert.ok(partial.executionStats.totalDocsExamined > 0, "a filter on an unindexed field must read documents");
  });

  test("aggregate explain reports the folded leading read", async () => {
    const pipeline = [{ $match: { group: "g1" } }, { $sort: { score: -1 } }, { $limit: 3 }, { $project: { score: 1 } }];
    const { winning, stats } = planOf(await c.aggregate(pipeline).explain("executionStats"));
    assert.equal(findStage(winning, "IXSCAN")!.indexName, "group_1_score_-1");
    assert.equal(stats.totalKeysExamined, 3);
  });

  test("explain with queryPlanner verbosity runs nothing; an unsupported command is a clear error", async () => {
    const explained = await c.find({ age: 5 }).explain("queryPlanner");
    assert.equal(explained.executionStats, undefined);
    assert.equal(findStage(explained.queryPlanner.winningPlan, "IXSCAN")!.indexName, "age_1");
    await assert.rejects(
      conn.db.command({ explain: { distinct: "people", key: "age" } }),
      (e: unknown) => e instanceof MongoServerError && /find, count and aggregate/.test(e.message),
    );
    const { version } = await conn.client.db("admin").command({ buildInfo: 1 });
    assert.equal(explained.serverInfo.version, version, "explain names the version buildInfo reports");
  });
});

describe("embedded engine: ordered indexes follow MongoDB's order and semantics", () => {
  let conn: Connected;
  const oid = new ObjectId("000000000000000000000001");
  const values: unknown[] = [3, "b", null, 2.5, { x: 1 }, true, new Date(5), oid, "a", -1, [7, "z"], []];
  const docs = [...values.map((v, i) => ({ _id: i, v })), { _id: 100 }, { _id: 101, v: [1, 1, 2] }, {
    _id: 102,
    v: [0, 9],
  }];

  before(async () => {
    conn = await connectTarget("ordered_types");
    await conn.db.collection<Row>("plain").insertMany(docs as Row[]);
    await conn.db.collection<Row>("indexed").insertMany(docs as Row[]);
    await conn.db.collection<Row>("indexed").createIndex({ v: 1 });
  });
  after(async () => {
    await conn.close();
  });

  test("sorts, ranges and null lookups agree with a scan across types, null, missing and arrays", async () => {
    const filters: Document[] = [
      {},
      { v: null },
      { v: { $gt: 2 } },
      { v: { $lte: "b" } },
      { v: { $gte: new Date(0) } },
      { v: { $in: [1, "a", null] } },
      { v: /^[a-z]/ },
      { v: 7 },
      { v: { $exists: false } },
    ];
    for (const filter of filters) {
      for (const sort of [{ v: 1, _id: 1 }, { v: -1, _id: -1 }] as Document[]) {
        const want = await conn.db.collection<Row>("plain").find(filter, { sort }).toArray();
        const got = await conn.db.collection<Row>("indexed").find(filter, { sort }).toArray();
        assert.deepEqual(got, want, `${JSON.stringify(filter)} ${JSON.stringify(sort)}`);
      }
    }
    const ids = (await conn.db.collection<Row>("indexed").find({}, { sort: { v: 1, _id: 1 } }).toArray()).map((d) =>
      d._id
    );
    // MongoDB's order: [] (keyed undefined), null and missing, numbers (arrays by their smallest element), strings,
    // objects, ObjectId, booleans, dates.
    assert.deepEqual(ids, [11, 2, 100, 9, 102, 101, 3, 0, 10, 8, 1, 4, 7, 5, 6]);
  });

  test("a multikey index returns each document once and counts it once", async () => {
    const indexed = conn.db.collection<Row>("indexed");
    assert.deepEqual((await indexed.find({ v: { $in: [1, 2, 7, "z"] } }).toArray()).map((d) => d._id), [10, 101]);
    assert.equal(await indexed.countDocuments({ v: { $gte: 2, $lte: 7 } }), 5);
    // On an array, each condition may be met by a different element: [0, 9] matches both.
    assert.deepEqual((await indexed.find({ v: { $gt: 5, $lt: 2 } }).toArray()).map((d) => d._id), [102]);
    assert.equal(await indexed.countDocuments({ $and: [{ v: { $gt: 5 } }, { v: { $lt: 2 } }] }), 1);
    const explained = await indexed.find({ v: { $gt: 0 } }).explain("executionStats");
    assert.equal(findStage(explained.queryPlanner.winningPlan, "IXSCAN")!.isMultiKey, true);
  });

  test("unique indexes keep their duplicate-key errors, compound ones on the combination", async () => {
    const u = conn.db.collection<Row>("unique");
    await u.createIndex({ a: 1, b: -1 }, { unique: true });
    await u.insertMany([{ _id: 1, a: 1, b: 1 }, { _id: 2, a: 1, b: 2 }]);
    await assert.rejects(
      u.insertOne({ _id: 3, a: 1.0, b: 2 }),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
    await assert.rejects(
      u.updateOne({ _id: 1 }, { $set: { b: 2 } }),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
    await u.updateOne({ _id: 1 }, { $set: { b: 3 } });
    assert.deepEqual(await u.find({ a: 1 }, { sort: { b: -1 } }).toArray(), [{ _id: 1, a: 1, b: 3 }, {
      _id: 2,
      a: 1,
      b: 2,
    }]);
  });
});

/** A sink that refuses appends while `failing`, standing in for a full disk. */
class FailingSink implements ChangeSink {
  failing = false;
  append(_changes: readonly Change[]): Promise<void> {
    return this.failing ? Promise.reject(new Error("disk full")) : Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe("embedded engine: indexes stay consistent through writes, rollback, recovery and drops", () => {
  /** Indexed reads of `c` equal a scan's (the hint-free plan uses the index). */
  async function assertConsistent(c: Collection<Row>): Promise<void> {
    const all = await c.find({}, { sort: { _id: 1 } }).toArray();
    for (
      const [filter, match] of [
        [{ k: { $gte: 10, $lt: 40 } }, (d: Document) => typeof d.k === "number" && d.k >= 10 && d.k < 40],
        [{ k: { $in: [5, 77] } }, (d: Document) => d.k === 5 || d.k === 77],
      ] as const
    ) {
      assert.deepEqual(await c.find(filter, { sort: { _id: 1 } }).toArray(), all.filter(match));
      assert.equal(await c.countDocuments(filter), all.filter(match).length);
    }
    const sorted = [...all].sort((a, b) => Number(a.k ?? -Infinity) - Number(b.k ?? -Infinity) || a._id - b._id);
    assert.deepEqual(await c.find({}, { sort: { k: 1, _id: 1 } }).toArray(), sorted);
  }

  test("after updates, deletes and a refused journal append", async () => {
    const sink = new FailingSink();
    const conn = await connectTarget("ordered_writes", { sink });
    try {
      const c = conn.db.collection<Row>("items");
      await c.createIndex({ k: 1 });
      await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, k: i % 90 })));
      await c.updateMany({ k: { $lt: 20 } }, { $inc: { k: 50 } } as Document);
      await c.deleteMany({ k: { $in: [60, 61, 62] } });
      await c.updateOne({ _id: 7 }, { $unset: { k: "" } });
      await assertConsistent(c);
      sink.failing = true;
      await assert.rejects(c.updateMany({}, { $set: { k: 1 } }));
      await assert.rejects(c.deleteMany({ k: { $gte: 30 } }));
      await assert.rejects(c.insertOne({ _id: 1000, k: 33 }));
      sink.failing = false;
      assert.equal(await c.countDocuments({ k: 51 }), 7);
      assert.equal(await c.countDocuments({ k: 1 }), 0);
      await assertConsistent(c);
    } finally {
      await conn.close();
    }
  });

  test("across a snapshot and recovery, and through dropIndexes", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "ordered-indexes-"));
    try {
      let conn = await connectTarget("ordered_recovery", { dataDir });
      let c = conn.db.collection<Row>("items");
      await c.createIndex({ k: 1 });
      await c.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, k: (i * 13) % 50 })));
      await c.deleteMany({ k: 3 });
      await conn.close();
      conn = await connectTarget("ordered_recovery", { dataDir });
      try {
        c = conn.db.collection<Row>("items");
        const explained = await c.find({ k: { $gt: 45 } }).explain("executionStats");
        assert.equal(findStage(explained.queryPlanner.winningPlan, "IXSCAN")!.indexName, "k_1");
        await assertConsistent(c);
        await c.dropIndexes();
        const after = await c.find({ k: { $gt: 45 } }).explain("executionStats");
        assert.equal(after.queryPlanner.winningPlan.stage, "COLLSCAN");
        await assertConsistent(c);
      } finally {
        await conn.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
