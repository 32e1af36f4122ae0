import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Db, type Document, MongoServerError } from "mongodb";
import type { Change, ChangeSink } from "../../src/embedded/changes.ts";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { Ledger } from "../../src/embedded/store/ledger.ts";
import { type Connected, connectTarget, externalUri } from "./helpers.ts";

interface Pending {
  changes: readonly Change[];
  settle(ok: boolean): void;
}

/**
 * A sink standing in for the journal: it keeps what it accepted (what a restart would
 * recover), refuses appends while `failing`, and with `holding` parks them until the test
 * settles each one, so overlapping writes can be completed in any order.
 */
class TestSink implements ChangeSink {
  readonly accepted: Change[][] = [];
  readonly parked: Pending[] = [];
  failing = false;
  holding = false;
  #arrived: (() => void) | undefined;

  append(changes: readonly Change[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const settle = (ok: boolean) => {
        if (ok) this.accepted.push([...changes]);
        if (ok) resolve();
        else reject(new Error("disk full"));
      };
      if (this.holding) {
        this.parked.push({ changes, settle });
        this.#arrived?.();
      } else settle(!this.failing);
    });
  }

  /** Resolves once `n` appends are parked. */
  async parkedCount(n: number): Promise<void> {
    while (this.parked.length < n) await new Promise<void>((resolve) => (this.#arrived = resolve));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The state a restart would rebuild from what the sink accepted, as `{ collection: docs }`. */
function recovered(sink: TestSink, db: string): Record<string, Document[]> {
  const catalog = new Catalog();
  for (const changes of sink.accepted) for (const change of changes) catalog.applyChange(change);
  catalog.finishRecovery();
  const out: Record<string, Document[]> = {};
  for (const coll of catalog.collections(db)) out[coll.name] = [...coll.docs.iterate()];
  return out;
}

/** The same, as readers see it through the driver. */
async function visible(db: Db): Promise<Record<string, Document[]>> {
  const out: Record<string, Document[]> = {};
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    out[name] = await db.collection(name).find().toArray();
  }
  return out;
}

function sorted(state: Record<string, Document[]>): Record<string, Document[]> {
  return Object.fromEntries(Object.entries(state).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const refused = (e: unknown): boolean => e instanceof MongoServerError && /disk full/.test(e.message);

/** A write the sink refuses is undone in memory before the client hears of the failure. */
describe("embedded engine: writes the sink refuses", {
  skip: externalUri !== undefined && "injects a failing sink into the engine",
}, () => {
  let conn: Connected;
  const sink = new TestSink();

  before(async () => {
    conn = await connectTarget("rollback", { sink });
  });
  after(async () => {
    await conn.close();
  });

  async function assertMatchesRestart(): Promise<void> {
    assert.deepEqual(sorted(await visible(conn.db)), sorted(recovered(sink, conn.target.dbName)));
  }

  async function refusedWhileFailing(write: () => Promise<unknown>): Promise<void> {
    sink.failing = true;
    try {
      await assert.rejects(write(), refused);
    } finally {
      sink.failing = false;
    }
    await assertMatchesRestart();
  }

  test("every kind of document write is undone", async () => {
    const c = conn.db.collection("docs");
    await c.insertMany([{ _id: 1, n: 1, tags: ["a"] }, { _id: 2, n: 2 }] as Document[]);
    await c.createIndex({ n: 1 }, { unique: true });
    await refusedWhileFailing(() => c.insertMany([{ _id: 3, n: 3 }, { _id: 4, n: 4 }] as Document[]));
    await refusedWhileFailing(() => c.updateMany({}, { $inc: { n: 10 } }));
    await refusedWhileFailing(() => c.updateOne({ _id: 9 } as Document, { $set: { n: 9 } }, { upsert: true }));
    await refusedWhileFailing(() => c.replaceOne({ _id: 1 } as Document, { n: 5 }));
    await refusedWhileFailing(() => c.deleteMany({}));
    await refusedWhileFailing(() => c.findOneAndUpdate({ _id: 2 } as Document, { $set: { n: 7 } }));
    await refusedWhileFailing(() => c.findOneAndDelete({ _id: 2 } as Document));
    await refusedWhileFailing(() => c.findOneAndUpdate({ _id: 8 } as Document, { $set: { n: 8 } }, { upsert: true }));
    assert.deepEqual(await c.find().toArray(), [{ _id: 1, n: 1, tags: ["a"] }, { _id: 2, n: 2 }]);
    // The index followed every undo: lookups and uniqueness answer as before.
    assert.deepEqual(await c.find({ n: 2 }).toArray(), [{ _id: 2, n: 2 }]);
    assert.equal(await c.countDocuments({ n: 11 }), 0);
    await assert.rejects(
      c.insertOne({ _id: 5, n: 1 } as Document),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
  });

  test("collection, index and database changes are undone", async () => {
    await refusedWhileFailing(() => conn.db.collection("fresh").insertOne({ _id: 1 } as Document));
    await refusedWhileFailing(() => conn.db.createCollection("made"));
    const kept = conn.db.collection("kept");
    await kept.insertOne({ _id: 1, k: 1 } as Document);
    await kept.createIndex({ k: 1 }, { unique: true, name: "k_unique" });
    await refusedWhileFailing(() => kept.drop());
    await refusedWhileFailing(() => kept.createIndex({ j: 1 }));
    await refusedWhileFailing(() => kept.dropIndex("k_unique"));
    await refusedWhileFailing(() => conn.db.dropDatabase());
    assert.deepEqual((await kept.indexes()).map((i) => i.name), ["_id_", "k_unique"]);
    await assert.rejects(
      kept.insertOne({ _id: 2, k: 1 } as Document),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
  });

  test("overlapping writes to one document end as a restart would see them, whatever fails", async () => {
    const c = conn.db.collection("counter");
    for (const outcome of [[false, true], [true, false], [false, false], [true, true]]) {
      await c.deleteMany({});
      await c.insertOne({ _id: 1, n: 0 } as Document);
      sink.holding = true;
      const first = c.updateOne({ _id: 1 } as Document, { $inc: { n: 1 } });
      await sink.parkedCount(1);
      const second = c.findOneAndUpdate({ _id: 1 } as Document, { $inc: { n: 1 } }, { returnDocument: "after" });
      await sink.parkedCount(2);
      sink.holding = false;
      const [a, b] = sink.parked.splice(0);
      a.settle(outcome[0]);
      b.settle(outcome[1]);
      const results = await Promise.allSettled([first, second]);
      assert.deepEqual(results.map((r) => r.status === "fulfilled"), outcome);
      await assertMatchesRestart();
    }
  });

  test("a collection made by a refused write stays when a later write into it succeeds", async () => {
    sink.holding = true;
    const first = conn.db.collection("late").insertOne({ _id: 1 } as Document);
    await sink.parkedCount(1);
    const second = conn.db.collection("late").insertOne({ _id: 2 } as Document);
    await sink.parkedCount(2);
    sink.holding = false;
    const [a, b] = sink.parked.splice(0);
    a.settle(false);
    b.settle(true);
    await assert.rejects(first, refused);
    await second;
    await assertMatchesRestart();
    assert.deepEqual(await conn.db.collection("late").find().toArray(), [{ _id: 2 }]);
  });
});

/** The chains behind the rollback, on one piece of state. */
describe("embedded engine: undo ledger", () => {
  test("each outcome order restores what the durable writes leave, and nothing stays pending", () => {
    for (
      const [firstOk, secondOk, firstSettlesFirst] of [
        [false, true, true],
        [true, false, true],
        [false, false, true],
        [true, true, true],
        [false, true, false],
        [true, false, false],
        [false, false, false],
        [true, true, false],
      ]
    ) {
      const ledger = new Ledger();
      let state = "v0";
      const slot = [{}, "x"] as const;
      const restore = (previous: unknown) => (state = previous as string);
      const [w1, w2] = [{}, {}];
      ledger.record(w1, slot, state, restore);
      state = "v1";
      ledger.record(w2, slot, state, restore);
      state = "v2";
      const settle = (w: object, ok: boolean) => (ok ? ledger.settle(w, [slot]) : ledger.rollBack(w, [slot]));
      if (firstSettlesFirst) (settle(w1, firstOk), settle(w2, secondOk));
      else (settle(w2, secondOk), settle(w1, firstOk));
      const expected = secondOk ? "v2" : firstOk ? "v1" : "v0";
      assert.equal(state, expected, `w1 ${firstOk}, w2 ${secondOk}, w1 first ${firstSettlesFirst}`);
      assert.equal(ledger.pending, 0);
    }
  });
});
