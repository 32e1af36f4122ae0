import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
// The driver's own bson classes, so documents read back compare equal to those written.
import { Binary, type Db, Decimal128, type Document, Long, MongoClient, ObjectId } from "mongodb";
import { tempFolder } from "../fixtures/engine-model.ts";
import { type EngineProcess, type FixtureProcess, spawnEngine, spawnFixture } from "../fixtures/engine-spawn.ts";
import { openModel } from "../fixtures/engine-store.ts";
import { reportingSeed, seededRandom } from "../helpers/seed.ts";

/**
 * Acceptance test of durability: several clients write to an engine process, which is killed
 * with SIGKILL at a random point; after a restart every acknowledged write must be there and
 * the id counter must not have gone back (no id handed out twice). The kill points are counted
 * in acknowledgements and drawn from TEST_SEED (tests/helpers/seed.ts), so they repeat.
 */

const ROUNDS = 3;

const WRITERS = 4;
// No retries: once the engine is killed an operation should fail, not wait for it. Longs read
// back as Long so documents compare equal to what was written.
const CLIENT_OPTIONS = {
  maxPoolSize: 2,
  serverSelectionTimeoutMS: 5000,
  retryWrites: false,
  retryReads: false,
  promoteLongs: false,
};

/** Everything the engine acknowledged, over all rounds. */
interface Ledger {
  /** Counter values returned by acknowledged `$inc`s. */
  counters: number[];
  /** Acknowledged documents by _id, as they must read back. */
  docs: Map<number | string, Document>;
}

/** The documents written: numeric ids from the counter, string ids for batch inserts. */
type Item = Document & { _id: number | string };

function items(db: Db) {
  return db.collection<Item>("items");
}

/** One document with a spread of BSON types, so the round trip through the journal is checked. */
function makeDoc(id: number, round: number, writer: number): Item {
  return {
    _id: id,
    round,
    writer,
    at: new Date(1_700_000_000_000 + id),
    big: Long.fromString(`${9_000_000_000_000 + id}`),
    price: Decimal128.fromString(`${id}.25`),
    ref: new ObjectId(),
    raw: new Binary(new Uint8Array([id % 256, round, writer])),
    note: "x".repeat(id % 200),
  };
}

/** Allocates ids from the shared counter and inserts/updates documents until told to stop. */
async function writer(uri: string, ledger: Ledger, round: number, n: number, state: RoundState): Promise<void> {
  const client = new MongoClient(uri, CLIENT_OPTIONS);
  try {
    const db = client.db("crash");
    for (let i = 0; !state.killed; i++) {
      const counter = await db
        .collection<{ _id: string; n: number }>("counters")
        .findOneAndUpdate({ _id: "ids" }, { $inc: { n: 1 } }, { upsert: true, returnDocument: "after" });
      const id = counter!.n;
      state.ack(() => ledger.counters.push(id));
      const doc = makeDoc(id, round, n);
      await items(db).insertOne(doc);
      state.ack(() => ledger.docs.set(id, doc));
      if (i % 3 === 0) {
        await items(db).updateOne({ _id: id }, { $set: { touched: true } });
        state.ack(() => ledger.docs.set(id, { ...doc, touched: true }));
      }
      if (i % 5 === 0) {
        const batch = [0, 1, 2].map((k) => ({ _id: `${id}-${k}`, k, parent: id }));
        await items(db).insertMany(batch);
        state.ack(() => batch.forEach((d) => ledger.docs.set(d._id, d)));
      }
    }
  } catch (error) {
    // Errors are expected once the process is gone; before that, any error is a failure.
    if (!state.killed) state.failures.push(error);
  } finally {
    await client.close().catch(() => {});
  }
}

/** Shared by the writers of one round: counts acknowledgements and kills at the chosen one. */
class RoundState {
  killed = false;
  failures: unknown[] = [];
  private acks = 0;

  constructor(
    private readonly killAfter: number,
    private readonly engine: EngineProcess,
  ) {}

  /** Records an acknowledged write; the `killAfter`-th one pulls the plug. */
  ack(record: () => void): void {
    // A reply that arrives after the kill was still an acknowledgement: record it too.
    record();
    if (++this.acks === this.killAfter) {
      this.killed = true;
      void this.engine.stop("SIGKILL");
    }
  }
}

/** Checks that everything in `ledger` is in the engine, and that ids keep increasing. */
async function verify(uri: string, ledger: Ledger): Promise<void> {
  const client = new MongoClient(uri, CLIENT_OPTIONS);
  try {
    const db = client.db("crash");
    const stored = new Map<unknown, Document>();
    for (const doc of await items(db).find().toArray()) stored.set(doc._id, doc);
    for (const [id, expected] of ledger.docs) {
      const actual = stored.get(id);
      assert.ok(actual, `acknowledged document ${id} is missing after restart`);
      // An update still in flight at the crash may have landed: `touched` may be extra.
      const { touched, ...rest } = actual;
      const { touched: mustBeTouched, ...expectedRest } = expected;
      assert.deepStrictEqual(rest, expectedRest);
      if (mustBeTouched) assert.equal(touched, true, `acknowledged update of ${id} is missing`);
    }
    const highest = Math.max(0, ...ledger.counters);
    const counter = await db.collection<{ _id: string; n: number }>("counters").findOne({ _id: "ids" });
    assert.ok((counter?.n ?? 0) >= highest, `counter went back from ${highest} to ${counter?.n}`);
    const next = await db
      .collection<{ _id: string; n: number }>("counters")
      .findOneAndUpdate({ _id: "ids" }, { $inc: { n: 1 } }, { returnDocument: "after" });
    assert.ok(next!.n > highest);
    await items(db).insertOne({ _id: next!.n, probe: true });
    ledger.counters.push(next!.n);
    ledger.docs.set(next!.n, { _id: next!.n, probe: true });
  } finally {
    await client.close();
  }
}

describe("crash recovery of an engine process", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let engine: EngineProcess | undefined;

  before(async () => ({ dir, cleanup } = await tempFolder("crash")));
  after(async () => {
    await engine?.stop("SIGKILL");
    await cleanup();
  });

  test("keeps every acknowledged write across SIGKILLs", { timeout: 180_000 }, () =>
    reportingSeed(async () => {
      const random = seededRandom(1);
      const ledger: Ledger = { counters: [], docs: new Map() };
      for (let round = 1; round <= ROUNDS; round++) {
        engine = await spawnEngine(dir);
        if (round === 1) {
          await assert.rejects(spawnEngine(dir), new RegExp(`in use by another engine \\(pid ${engine.pid}\\)`));
        } else {
          await verify(engine.uri, ledger);
        }
        // At least 90 acknowledgements: each writer's loop stores a document per 3 of them at
        // worst, so every round adds over 20 documents whatever the seed (checked at the end).
        const state = new RoundState(90 + Math.floor(random() * 200), engine);
        const writers = Array.from({ length: WRITERS }, (_, n) => writer(engine!.uri, ledger, round, n, state));
        await Promise.all(writers);
        assert.deepEqual(state.failures, [], `round ${round}: writes failed before the kill`);
        assert.ok(state.killed, `round ${round}: the writers stopped before the kill`);
        const exit = await engine.stop("SIGKILL");
        assert.equal(exit.signal, "SIGKILL");
        engine = undefined;
      }

      // A last restart checks the final crash, then a clean stop releases the folder.
      engine = await spawnEngine(dir);
      await verify(engine.uri, ledger);
      const stopping = engine;
      engine = undefined;
      await stopping.stop("SIGTERM");
      assert.ok(stopping.lines().includes("stopped"), `clean stop failed: ${stopping.stderr()}`);
      assert.ok(!(await readdir(dir)).includes("engine.lock"), "a clean stop releases the lock");
      assert.ok(ledger.docs.size > ROUNDS * 20);
    }));
});

describe("crash recovery of the durable store in the middle of compactions", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let child: FixtureProcess | undefined;

  before(async () => ({ dir, cleanup } = await tempFolder("crash-store")));
  after(async () => {
    await child?.stop("SIGKILL");
    await cleanup();
  });

  test(
    "keeps every acknowledged write and delete across SIGKILLs",
    { timeout: 180_000 },
    () =>
      reportingSeed(async () => {
        const random = seededRandom(2);
        // Entries that are never deleted, and acknowledged deletes.
        const kept = new Set<string>();
        const deleted = new Set<string>();
        for (let round = 1; round <= ROUNDS; round++) {
          // A 16 KiB threshold: a compaction every few dozen writes, so kills often hit one.
          const running = await spawnFixture("engine-store-process.ts", [dir, String(16 << 10)]);
          child = running;
          const killAfter = 100 + Math.floor(random() * 600);
          let acks = 0;
          const killed = new Promise<void>((resolve) => {
            running.onLine((line) => {
              const [kind, id] = line.split(" ");
              if (kind === "put") kept.add(id);
              if (kind === "del") deleted.add(id);
              if (++acks === killAfter) resolve();
            });
          });
          let killing = false;
          const early = running.exited.then((exit) => {
            if (killing) return;
            throw new Error(`store process died on its own (${JSON.stringify(exit)}): ${running.stderr()}`);
          });
          await Promise.race([killed, early]);
          killing = true;
          await running.stop("SIGKILL");
          child = undefined;

          const { model, store } = await openModel(dir);
          await store.close();
          for (const id of kept) assert.ok(model.has("t", "log", id), `round ${round}: acknowledged ${id} is missing`);
          for (const id of deleted) assert.ok(!model.has("t", "log", id), `round ${round}: deleted ${id} is back`);
        }
        assert.ok(kept.size >= ROUNDS * 50 && deleted.size > 0);
      }),
  );
});
