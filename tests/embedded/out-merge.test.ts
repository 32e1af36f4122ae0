import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, MongoClient, MongoServerError } from "mongodb";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { type Connected, connectTarget } from "./helpers.ts";

interface Sale {
  _id: number;
  region: string;
  amount: number;
}

interface Total {
  _id: string | number;
  total?: number;
  note?: string;
  runs?: number;
  code?: string;
}

/** $out and $merge write a pipeline's output into a collection of the same database. */
describe("embedded engine: $out and $merge", () => {
  let conn: Connected;
  let sales: Collection<Sale>;
  let totals: Collection<Total>;

  before(async () => {
    conn = await connectTarget("out_merge");
    sales = conn.db.collection<Sale>("sales");
    totals = conn.db.collection<Total>("totals");
    await sales.insertMany([
      { _id: 1, region: "north", amount: 5 },
      { _id: 2, region: "south", amount: 7 },
      { _id: 3, region: "north", amount: 1 },
    ]);
  });
  beforeEach(async () => {
    await totals.drop().catch(() => undefined);
  });
  after(async () => {
    await conn.close();
  });

  const byRegion = [{ $group: { _id: "$region", total: { $sum: "$amount" } } }];

  async function failure(promise: Promise<unknown>): Promise<MongoServerError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`);
    return error;
  }

  test("$out replaces the target's documents, keeps its indexes, and returns no documents", async () => {
    await totals.insertOne({ _id: "stale", total: 0 });
    await totals.createIndex({ total: 1 }, { name: "by_total" });
    const returned = await sales.aggregate([...byRegion, { $out: "totals" }]).toArray();
    assert.deepEqual(returned, []);
    assert.deepEqual(await totals.find().sort({ _id: 1 }).toArray(), [{ _id: "north", total: 6 }, {
      _id: "south",
      total: 7,
    }]);
    assert.ok((await totals.indexes()).some((i) => i.name === "by_total"));
    // The index is maintained: a read through it sees the new documents.
    assert.deepEqual(await totals.find({ total: { $gt: 6 } }).hint("by_total").toArray(), [{ _id: "south", total: 7 }]);
  });

  test("$out and $merge answer with a closed cursor, so the driver sends no getMore", async () => {
    // MongoDB runs the whole pipeline in the aggregate command and returns cursor id 0, whatever the batch size.
    for (const stage of [{ $out: "totals" }, { $merge: { into: "totals" } }]) {
      for (const cursor of [{}, { batchSize: 0 }]) {
        const reply = await conn.db.command({ aggregate: "sales", pipeline: [...byRegion, stage], cursor });
        assert.equal(String(reply.cursor.id), "0", `${Object.keys(stage)[0]} with cursor ${JSON.stringify(cursor)}`);
        assert.deepEqual(reply.cursor.firstBatch, []);
      }
    }
  });

  test("$out is all or nothing: a unique-index violation leaves the target unchanged", async () => {
    await totals.insertOne({ _id: "keep", total: 1 });
    await totals.createIndex({ total: 1 }, { unique: true });
    const error = await failure(
      sales.aggregate([{ $project: { total: { $literal: 3 } } }, { $out: "totals" }]).toArray(),
    );
    assert.equal(error.code, 11000);
    assert.deepEqual(await totals.find().toArray(), [{ _id: "keep", total: 1 }]);
  });

  test("$out into {db, coll} of the same database, and documents without _id get one", async () => {
    await sales.aggregate([{ $project: { _id: 0, region: 1 } }, { $out: { db: conn.db.databaseName, coll: "totals" } }])
      .toArray();
    const docs = await totals.find().toArray();
    assert.equal(docs.length, 3);
    assert.equal(new Set(docs.map((d) => String(d._id))).size, 3);
  });

  test("$merge defaults: merge fields into matches by _id, insert the rest", async () => {
    await totals.insertMany([{ _id: "north", note: "kept" }, { _id: "east", total: 0 }]);
    await sales.aggregate([...byRegion, { $merge: { into: "totals" } }]).toArray();
    assert.deepEqual(await totals.find().sort({ _id: 1 }).toArray(), [
      { _id: "east", total: 0 },
      { _id: "north", note: "kept", total: 6 },
      { _id: "south", total: 7 },
    ]);
  });

  test("$merge whenMatched replace / keepExisting and whenNotMatched discard", async () => {
    await totals.insertMany([{ _id: "north", note: "old" }]);
    await sales.aggregate([...byRegion, {
      $merge: { into: "totals", whenMatched: "replace", whenNotMatched: "discard" },
    }]).toArray();
    assert.deepEqual(await totals.find().toArray(), [{ _id: "north", total: 6 }]);
    await sales.aggregate([{ $group: { _id: "$region", total: { $max: 100 } } }, {
      $merge: { into: "totals", whenMatched: "keepExisting" },
    }]).toArray();
    assert.deepEqual(await totals.find().sort({ _id: 1 }).toArray(), [{ _id: "north", total: 6 }, {
      _id: "south",
      total: 100,
    }]);
  });

  test("$merge whenMatched fail and whenNotMatched fail report errors", async () => {
    await totals.insertOne({ _id: "north", total: 0 });
    const matched = await failure(
      sales.aggregate([...byRegion, { $merge: { into: "totals", whenMatched: "fail" } }]).toArray(),
    );
    assert.equal(matched.code, 11000);
    const notMatched = await failure(
      sales.aggregate([...byRegion, { $merge: { into: "totals", whenNotMatched: "fail" } }]).toArray(),
    );
    assert.equal(notMatched.code, 13113);
  });

  test("$merge with a pipeline, $$new and the stage's let", async () => {
    await totals.insertMany([{ _id: "north", total: 1, runs: 1 }]);
    await sales.aggregate([...byRegion, {
      $merge: {
        into: "totals",
        whenMatched: [{ $set: { total: { $add: ["$total", "$$new.total"] }, runs: { $add: ["$runs", 1] } } }],
      },
    }]).toArray();
    assert.deepEqual(await totals.find().sort({ _id: 1 }).toArray(), [{ _id: "north", total: 7, runs: 2 }, {
      _id: "south",
      total: 7,
    }]);
    await sales
      .aggregate([...byRegion, {
        $merge: {
          into: "totals",
          let: { add: "$total" },
          whenMatched: [{ $set: { total: { $add: ["$total", "$$add"] } } }],
          whenNotMatched: "discard",
        },
      }])
      .toArray();
    assert.deepEqual((await totals.find().sort({ _id: 1 }).toArray()).map((d) => d.total), [13, 14]);
  });

  test("$merge on a field needs a unique index on it, then matches through it", async () => {
    await totals.insertOne({ _id: 1, code: "north", total: 0 });
    const noIndex = await failure(
      sales.aggregate([{ $group: { _id: null, code: { $first: "north" } } }, { $project: { _id: 0, code: 1 } }, {
        $merge: { into: "totals", on: "code" },
      }]).toArray(),
    );
    assert.equal(noIndex.code, 51183);
    await totals.createIndex({ code: 1 }, { unique: true });
    await sales
      .aggregate([{ $group: { _id: "$region", total: { $sum: "$amount" } } }, {
        $project: { _id: 0, code: "$_id", total: 1 },
      }, { $merge: { into: "totals", on: "code" } }])
      .toArray();
    const docs = await totals.find().sort({ code: 1 }).toArray();
    assert.deepEqual(docs.map((d) => [d.code, d.total]), [["north", 6], ["south", 7]]);
    assert.equal(docs[0]._id, 1);
  });

  test("$merge writes are checked against unique indexes like any write", async () => {
    await totals.createIndex({ total: 1 }, { unique: true });
    await totals.insertOne({ _id: "x", total: 6 });
    const error = await failure(sales.aggregate([...byRegion, { $merge: { into: "totals" } }]).toArray());
    assert.equal(error.code, 11000);
  });

  test("$out or $merge anywhere but last, or inside $facet, is refused; another database is refused", async () => {
    assert.equal((await failure(sales.aggregate([{ $out: "totals" }, { $match: {} }]).toArray())).code, 40601);
    await failure(sales.aggregate([{ $facet: { a: [{ $out: "totals" }] } }]).toArray());
    await failure(sales.aggregate([{ $out: { db: "elsewhere", coll: "totals" } }]).toArray());
    assert.equal(await totals.countDocuments(), 0);
  });

  test("$out and $merge move the write counter of their target, and a plain aggregate does not", async () => {
    const engine = await startEmbeddedEngine();
    const client = await new MongoClient(engine.uri).connect();
    try {
      const db = client.db("counted");
      await db.collection<{ _id: number; v: number }>("src").insertMany([{ _id: 1, v: 1 }, { _id: 2, v: 2 }]);
      const before = engine.collectionChangeCount("counted", "dst");
      await db.collection("src").aggregate([{ $match: {} }]).toArray();
      assert.equal(engine.collectionChangeCount("counted", "dst"), before);
      await db.collection("src").aggregate([{ $out: "dst" }]).toArray();
      const afterOut = engine.collectionChangeCount("counted", "dst");
      assert.ok(afterOut > before);
      await db.collection("src").aggregate([{ $merge: "dst" }]).toArray();
      assert.ok(engine.collectionChangeCount("counted", "dst") > afterOut);
    } finally {
      await client.close();
      await engine.close();
    }
  });
});
