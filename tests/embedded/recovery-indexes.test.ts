import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { MongoServerError } from "mongodb";
import { indexStats } from "../../src/embedded/store/ordered-index.ts";
import { connectTarget } from "./helpers.ts";

type Row = { _id: number; a: number; b: string; c: number };

// A restart replays every write and every createIndexes/dropIndexes ever journaled; it must
// build each surviving index once, at the end, not once per record (nor entry by entry), and
// the indexes must then serve and enforce exactly as before.
describe("embedded engine: recovery builds each index once", () => {
  test(
    "created, dropped and re-created indexes over journaled writes",
    { skip: process.env.MONGODB_URI !== undefined },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "recovery-indexes-"));
      try {
        let conn = await connectTarget("recovery_indexes", { dataDir });
        let rows = conn.db.collection<Row>("rows");
        await rows.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, a: i % 37, b: `b${i % 11}`, c: i })));
        await rows.createIndex({ a: 1 });
        await rows.createIndex({ b: 1, a: -1 });
        await rows.dropIndex("a_1");
        await rows.createIndex({ c: 1 }, { unique: true });
        await rows.insertMany(
          Array.from({ length: 500 }, (_, i) => ({ _id: 1000 + i, a: i % 37, b: `b${i % 11}`, c: 1000 + i })),
        );
        await rows.deleteMany({ _id: { $lt: 100 } });
        await conn.close();

        const before = indexStats.builds;
        conn = await connectTarget("recovery_indexes", { dataDir });
        try {
          assert.equal(indexStats.builds - before, 2, "b_1_a_-1 and c_1, once each");
          rows = conn.db.collection<Row>("rows");
          const filter = { b: "b3", a: { $gte: 30 } };
          const explained = await rows.find(filter).explain("executionStats");
          let stage = explained.queryPlanner.winningPlan;
          while (stage.inputStage) stage = stage.inputStage;
          assert.equal(stage.indexName, "b_1_a_-1", JSON.stringify(explained.queryPlanner.winningPlan));
          const seq = (id: number) => (id < 1000 ? id : id - 1000); // each batch numbered its rows from 0
          const want = Array.from({ length: 1500 }, (_, i) => i).filter((id) =>
            id >= 100 && seq(id) % 11 === 3 && seq(id) % 37 >= 30
          );
          assert.equal(explained.executionStats.totalKeysExamined, want.length);
          assert.deepEqual((await rows.find(filter).sort({ _id: 1 }).toArray()).map((r) => r._id), want);
          await assert.rejects(
            rows.insertOne({ _id: 5000, a: 1, b: "x", c: 1200 }),
            (e: unknown) => e instanceof MongoServerError && e.code === 11000,
          );
          assert.equal(await rows.countDocuments({ c: { $gte: 1400 } }), 100);
        } finally {
          await conn.close();
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );
});
