import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Db, type Document, Long, MongoClient } from "mongodb";
import { planStats } from "../../src/embedded/query/plan.ts";
import { nextTurn, Operation, PAUSE, type Paused } from "../../src/embedded/query/interrupts.ts";
import { type Batch, CursorRegistry } from "../../src/embedded/cursors.ts";
import { type Connected, connectTarget, externalUri, opMsg, rawSocket, refused, roundTrip } from "./helpers.ts";

/**
 * `maxTimeMS` as MongoDB has it, and long reads that let other connections' commands run.
 * The engine's clock is the test's (`clock`): it moves only as the test says, so a command
 * expires, or a read yields, at a known point, without sleeping; `nextTurn` lets a test hold a
 * read between two of its slices and act meanwhile. Nothing here measures time.
 */

/** The engine's clock: `now` moves by `tick` at each reading (and by hand); `readings` counts them. */
class TestClock {
  now = 0;
  tick = 0;
  readings = 0;
  readonly read = (): number => {
    this.readings++;
    return this.now += this.tick;
  };
}

/**
 * The engine's turns between two slices of a read: one turn of the event loop (the engine's own), or, once
 * {@link hold} is called, a wait at the next one until {@link release}.
 */
class Turns {
  #onHeld: (() => void) | undefined;
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  taken = 0;

  readonly take = (): Promise<void> => {
    this.taken++;
    const held = this.#onHeld;
    if (held === undefined) return nextTurn();
    this.#onHeld = undefined;
    held();
    return this.#gate!;
  };

  /** Takes back a {@link hold} no read took. */
  cancel(): void {
    this.#onHeld = undefined;
  }

  /** Resolves once a read pauses between two slices; it stays paused until {@link release}. */
  hold(): Promise<void> {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
    return new Promise((resolve) => (this.#onHeld = resolve));
  }

  release(): void {
    this.#open?.();
  }
}

const DOCS = 2_000;

/** The documents of these tests: numbered ids, a name, a group of ten, and a value. */
interface Row {
  _id: number;
  name: string;
  group?: number;
  v?: number;
  touched?: boolean;
}

const rows = (n: number, from = 0): Row[] =>
  Array.from({ length: n }, (_, i) => ({ _id: from + i, name: `n${from + i}`, group: (from + i) % 10, v: from + i }));

/** A collection of {@link Row}s. */
const rowsOf = (db: Db, name: string): Collection<Row> => db.collection<Row>(name);

/** A filter no document matches, tested on every document (no index serves it). */
const NOTHING = { name: { $regex: "x$" } };
const EXPIRED = "operation exceeded time limit";

describe("embedded engine: maxTimeMS values", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("max_time_values");
    await rowsOf(conn.db, "c").insertMany(rows(3));
  });
  after(async () => {
    await conn.close();
  });

  test("0 to 2^31 - 1 are taken in every numeric type; anything else is refused with MongoDB's code and words", async () => {
    for (const value of [0, 2 ** 31 - 1, Long.fromNumber(0), Long.fromNumber(2 ** 31 - 1)]) {
      const reply = await conn.db.command({ find: "c", filter: {}, maxTimeMS: value });
      assert.equal(reply.cursor.firstBatch.length, 3);
      assert.equal((await conn.db.command({ ping: 1, maxTimeMS: value })).ok, 1);
    }
    const cases: [unknown, string][] = [
      [-1, "-1 value for maxTimeMS is out of range"],
      [Long.fromNumber(-5), "-5 value for maxTimeMS is out of range"],
      [2 ** 31, "2147483648 value for maxTimeMS is out of range"],
      [Number.POSITIVE_INFINITY, "9223372036854775807 value for maxTimeMS is out of range"],
      [-1.5, "-1 value for maxTimeMS is out of range"],
      [1.5, "maxTimeMS has non-integral value"],
      [-0.5, "maxTimeMS has non-integral value"],
      ["100", "maxTimeMS must be a number"],
      [null, "maxTimeMS must be a number"],
      [true, "maxTimeMS must be a number"],
    ];
    for (const [value, message] of cases) {
      for (const command of [{ ping: 1 }, { find: "c" }, { count: "c" }, { distinct: "c", key: "v" }]) {
        await refused(() => conn.db.command({ ...command, maxTimeMS: value }), 2, message);
      }
    }
  });

  test("aggregate's own field checks come first: its type (14), then >= 0 (51024)", async () => {
    const run = (maxTimeMS: unknown) => () =>
      conn.db.command({ aggregate: "c", pipeline: [], cursor: {}, maxTimeMS } as Document);
    const types = "expected types '[long, int, decimal, double']";
    await refused(run("100"), 14, `BSON field 'aggregate.maxTimeMS' is the wrong type 'string', ${types}`);
    await refused(run({}), 14, `BSON field 'aggregate.maxTimeMS' is the wrong type 'object', ${types}`);
    await refused(run(-1), 51024, "BSON field 'maxTimeMS' value must be >= 0, actual value '-1'");
    await refused(run(-1.5), 51024, "BSON field 'maxTimeMS' value must be >= 0, actual value '-1'");
    await refused(run(1000.5), 2, "maxTimeMS has non-integral value");
    await refused(run(2 ** 31), 2, "2147483648 value for maxTimeMS is out of range");
    await refused(run(null), 2, "maxTimeMS must be a number");
  });

  test("a getMore may not carry a maxTimeMS: it is an awaitData timeout, and no cursor here awaits data", async () => {
    const first = await conn.db.command({ find: "c", batchSize: 1 });
    const getMore = (maxTimeMS: unknown) => () =>
      conn.db.command({ getMore: first.cursor.id, collection: "c", maxTimeMS } as Document);
    const types = "expected types '[long, int, decimal, double']";
    await refused(getMore("1"), 14, `BSON field 'getMore.maxTimeMS' is the wrong type 'string', ${types}`);
    await refused(getMore(-1), 2, "-1 value for maxTimeMS is out of range");
    for (const value of [0, 100]) {
      await refused(getMore(value), 2, "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
    }
  });
});

describe("embedded engine: commands past their maxTimeMS", {
  skip: externalUri !== undefined && "drives the engine's clock",
}, () => {
  const clock = new TestClock();
  let conn: Connected;
  let big: Collection<Row>;

  before(async () => {
    conn = await connectTarget("max_time_expiry", { clock: clock.read });
    big = rowsOf(conn.db, "big");
    await big.insertMany(rows(DOCS));
    await big.createIndex({ v: 1 });
    await rowsOf(conn.db, "small").insertMany(rows(3));
    await conn.db.createCollection("big_view", { viewOn: "big", pipeline: [{ $match: { group: { $gte: 0 } } }] });
  });
  after(async () => {
    await conn.close();
  });

  /** Every command kind that reads or writes much, with MongoDB's context before the interruption. */
  const commands: [string, Document, string][] = [
    ["a collection scan", { find: "big", filter: NOTHING }, "Executor error during find command :: caused by :: "],
    [
      "a blocking sort",
      { find: "big", sort: { name: -1 }, limit: 5 },
      "Executor error during find command :: caused by :: ",
    ],
    [
      "an index scan",
      { find: "big", filter: { v: { $gte: 0 } }, sort: { v: 1 }, batchSize: DOCS },
      "Executor error during find command :: caused by :: ",
    ],
    [
      "an $or merge",
      // Each branch a scan of the index on v, merged: OR in explain.
      { find: "big", filter: { $or: [{ v: { $lt: 300 } }, { v: { $gte: 1700 } }], name: "none" } },
      "Executor error during find command :: caused by :: ",
    ],
    ["a view", { find: "big_view", filter: NOTHING }, "Executor error during find command :: caused by :: "],
    ["count", { count: "big", query: NOTHING }, ""],
    [
      "countDocuments",
      { aggregate: "big", pipeline: [{ $match: NOTHING }, { $group: { _id: 1, n: { $sum: 1 } } }], cursor: {} },
      "PlanExecutor error during aggregation :: caused by :: ",
    ],
    [
      "distinct",
      { distinct: "big", key: "group", query: { v: { $gte: 0 }, name: { $ne: "x" } } },
      "Executor error during distinct command :: caused by :: ",
    ],
    [
      "$group",
      { aggregate: "big", pipeline: [{ $group: { _id: "$group", n: { $sum: 1 } } }], cursor: {} },
      "PlanExecutor error during aggregation :: caused by :: ",
    ],
    [
      "$lookup",
      {
        aggregate: "small",
        pipeline: [{ $lookup: { from: "big", localField: "name", foreignField: "name", as: "same" } }],
        cursor: {},
      },
      "PlanExecutor error during aggregation :: caused by :: ",
    ],
    [
      "$unionWith",
      { aggregate: "small", pipeline: [{ $unionWith: { coll: "big", pipeline: [{ $match: NOTHING }] } }], cursor: {} },
      "PlanExecutor error during aggregation :: caused by :: ",
    ],
    [
      "$setWindowFields",
      {
        aggregate: "big",
        pipeline: [{ $setWindowFields: { sortBy: { name: 1 }, output: { rank: { $documentNumber: {} } } } }],
        cursor: {},
      },
      "PlanExecutor error during aggregation :: caused by :: ",
    ],
    [
      "$graphLookup",
      {
        aggregate: "small",
        pipeline: [{
          $graphLookup: { from: "big", startWith: "$v", connectFromField: "v", connectToField: "group", as: "g" },
        }],
        cursor: {},
      },
      "PlanExecutor error during aggregation :: caused by :: ",
    ],
    ["findAndModify", { findAndModify: "big", query: NOTHING, update: { $set: { seen: true } } }, ""],
    ["explain", { explain: { find: "big", filter: NOTHING }, verbosity: "executionStats" }, ""],
    ["update", { update: "big", updates: [{ q: NOTHING, u: { $set: { seen: true } }, multi: true }] }, ""],
    ["delete", { delete: "big", deletes: [{ q: NOTHING, limit: 0 }] }, ""],
  ];

  for (const [what, command, context] of commands) {
    test(`${what} stops with 50 MaxTimeMSExpired once its time is up, and runs to its end without maxTimeMS`, async () => {
      // Every reading of the clock moves it a second on: the first interrupt point is past 5 ms.
      clock.tick = 1000;
      try {
        await refused(() => conn.db.command({ ...command, maxTimeMS: 5 }), 50, context + EXPIRED);
        assert.equal((await conn.db.command(command)).ok, 1);
      } finally {
        clock.tick = 0;
      }
    });
  }

  test("explain holds the smaller of its own maxTimeMS and the explained command's", async () => {
    clock.tick = 1000;
    try {
      const inner = { find: "big", filter: NOTHING };
      await refused(() => conn.db.command({ explain: { ...inner, maxTimeMS: 5 }, verbosity: "executionStats" }), 50);
      const both = { explain: { ...inner, maxTimeMS: 5 }, verbosity: "executionStats", maxTimeMS: 1_000_000 };
      await refused(() => conn.db.command(both), 50, EXPIRED);
    } finally {
      clock.tick = 0;
    }
  });

  test("an expired write fails as a whole, not as a write error, and keeps what it wrote before", async () => {
    const inserts = rowsOf(conn.db, "inserted");
    clock.tick = 1000;
    try {
      await refused(() => conn.db.command({ insert: "inserted", documents: rows(300), maxTimeMS: 5 }), 50, EXPIRED);
    } finally {
      clock.tick = 0;
    }
    // The documents before the first interrupt point are stored, as MongoDB's interrupted insert keeps its first ones.
    assert.equal(await inserts.countDocuments(), 127);
  });

  test("createIndexes checks its time before each build, and an index it stops is not created", async () => {
    clock.tick = 1000;
    try {
      const command = { createIndexes: "big", indexes: [{ key: { name: 1 }, name: "name_1" }], maxTimeMS: 5 };
      await refused(() => conn.db.command(command), 50, EXPIRED);
    } finally {
      clock.tick = 0;
    }
    assert.deepEqual((await big.indexes()).map((index) => index.name), ["_id_", "v_1"]);
  });

  test("a cursor's maxTimeMS counts over its getMores, not the time between them; past it the cursor is gone", async () => {
    // The same reads without maxTimeMS run to the end, however the clock moves.
    const unlimited = await conn.db.command({ find: "big", filter: {}, batchSize: 10 });
    clock.tick = 1000;
    try {
      let id = unlimited.cursor.id as Long | number;
      let read = unlimited.cursor.firstBatch.length;
      while (Number(id) !== 0) {
        const more = await conn.db.command({ getMore: id, collection: "big", batchSize: 500 });
        read += more.cursor.nextBatch.length;
        id = more.cursor.id;
      }
      assert.equal(read, DOCS);
    } finally {
      clock.tick = 0;
    }
    const first = await conn.db.command({ find: "big", filter: {}, batchSize: 10, maxTimeMS: 100 });
    const id = first.cursor.id as Long;
    // Each getMore crosses an interrupt point and spends time (20 ms a reading), far less than 100 ms.
    clock.tick = 20;
    let batches = 0;
    try {
      for (;;) {
        // Idle time between getMores does not count: were it counted, the first getMore would fail.
        clock.now += 60_000;
        await conn.db.command({ getMore: id, collection: "big", batchSize: 150 });
        batches++;
        assert.ok(batches < 10, "the cursor's time limit was never reached");
      }
    } catch (error) {
      assert.equal((error as { code?: number }).code, 50, String(error));
      assert.equal(
        (error as Error).message,
        "Executor error during getMore :: caused by :: operation exceeded time limit",
      );
    } finally {
      clock.tick = 0;
    }
    assert.ok(batches >= 1, `${batches} getMores before the limit`);
    await refused(() => conn.db.command({ getMore: id, collection: "big" }), 43);
  });

  test("a page of 20 through an index is answered without reading the clock; a long read reads it as it goes", async () => {
    const readings = clock.readings;
    const page = await big.find({ v: { $gte: 500 } }).sort({ v: 1 }).limit(20).toArray();
    assert.deepEqual(page.map((doc) => doc._id), rows(20, 500).map((doc) => doc._id));
    assert.equal(clock.readings, readings);
    // 2,000 documents: a reading at its pauses (one every 128 documents), to end its slices.
    await big.find(NOTHING).toArray();
    const read = clock.readings - readings;
    assert.ok(read > 0 && read <= DOCS / 128, `${read} readings`);
  });
});

describe("embedded engine: long reads yield to other connections", {
  skip: externalUri !== undefined && "drives the engine's clock and turns",
}, () => {
  const clock = new TestClock();
  const turns = new Turns();
  let conn: Connected;
  let other: MongoClient;

  before(async () => {
    conn = await connectTarget("yields", { clock: clock.read, nextTurn: turns.take }, { monitorCommands: true });
    other = await new MongoClient(conn.target.uri).connect();
    await rowsOf(conn.db, "wide").insertMany(rows(10_000));
    // The other client's pool holds a connection already: the findOne below needs no handshake.
    await rowsOf(other.db(conn.db.databaseName), "wide").findOne({ _id: 0 });
    // Ten milliseconds a reading: every slice ends after a few pauses (each 128 documents).
    clock.tick = 10;
  });
  after(async () => {
    await other.close();
    await conn.close();
  });

  test("a cheap findOne sent while a long scan runs on another connection is answered before the scan ends", async () => {
    const db = conn.db;
    const examinedBefore = planStats.examined;
    let examinedWhenAnswered = -1;
    const order: string[] = [];
    const started = new Promise<void>((resolve) => db.client.once("commandStarted", () => resolve()));
    const long = db.collection("wide").find(NOTHING).toArray().then(() => order.push("scan"));
    // The findOne leaves once the scan's command has been sent, on a connection of another client.
    await started;
    await nextTurn();
    const cheap = rowsOf(other.db(db.databaseName), "wide").findOne({ _id: 7 }).then((doc) => {
      examinedWhenAnswered = planStats.examined;
      order.push("findOne");
      assert.equal(doc?.name, "n7");
    });
    await Promise.all([long, cheap]);
    assert.deepEqual(order, ["findOne", "scan"]);
    // Work counts, not times: the scan had started, and not finished, when the findOne was answered.
    const examinedByScan = planStats.examined - examinedBefore;
    assert.equal(examinedByScan, 10_000);
    assert.ok(examinedWhenAnswered > examinedBefore, "the scan had not started");
    assert.ok(examinedWhenAnswered < examinedBefore + examinedByScan, "the scan had finished");
  });

  /** Runs `read`, and once it pauses between two slices, `meanwhile` on the other client; then lets the read go on. */
  async function whilePaused<T>(read: () => Promise<T>, meanwhile: () => Promise<unknown>): Promise<T> {
    const paused = turns.hold().then(() => "paused");
    const result = read();
    const first = await Promise.race([paused, result.then(() => "done", () => "done")]);
    if (first !== "paused") {
      turns.cancel();
      assert.fail("the read ran to its end without pausing");
    }
    try {
      await meanwhile();
    } finally {
      turns.release();
    }
    return await result;
  }

  test("writes between two slices of a read leave it consistent: each document present throughout comes once, in order", async () => {
    const coll = rowsOf(conn.db, "moving");
    await coll.insertMany(rows(DOCS));
    const there = rowsOf(other.db(conn.db.databaseName), "moving");
    const docs = await whilePaused(() => coll.find({ name: { $regex: "^n" } }).toArray(), async () => {
      await there.deleteMany({ _id: { $in: [5, 1500, 1501] } });
      await there.updateOne({ _id: 1700 }, { $set: { name: "n1700", touched: true } });
      await there.insertMany([{ _id: 1499.5, name: "nnew" }, { _id: -1, name: "nbefore" }]);
    });
    const ids = docs.map((doc) => doc._id as number);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), "in _id order");
    assert.equal(new Set(ids).size, ids.length, "no document twice");
    const untouched = rows(DOCS).map((doc) => doc._id as number).filter((id) => ![5, 1500, 1501].includes(id));
    for (const id of untouched) assert.ok(ids.includes(id), `document ${id} missing`);
    // Deleted ahead of the read: not returned; updated ahead of it: read as it is now.
    assert.ok(!ids.includes(1500) && !ids.includes(1501));
    assert.equal(docs.find((doc) => doc._id === 1700)?.touched, true);
  });

  test("an index read stays consistent across writes that move its entries between two slices", async () => {
    const coll = rowsOf(conn.db, "indexed_moving");
    await coll.insertMany(rows(DOCS));
    await coll.createIndex({ v: 1 });
    const there = rowsOf(other.db(conn.db.databaseName), "indexed_moving");
    const read = () => coll.find({ v: { $gte: 0 }, name: { $regex: "^n" } }).sort({ v: 1 }).hint("v_1").toArray();
    const docs = await whilePaused(read, async () => {
      await there.updateMany({ _id: { $gte: 1000, $lt: 1010 } }, { $inc: { v: 10_000 } });
      await there.deleteMany({ v: { $gte: 1900, $lt: 1950 } });
    });
    const vs = docs.map((doc) => doc.v as number);
    assert.deepEqual(vs, [...vs].sort((a, b) => a - b), "in index order");
    assert.equal(new Set(docs.map((doc) => doc._id)).size, docs.length, "no document twice");
    assert.ok(!vs.some((v) => v >= 1900 && v < 1950), "documents deleted ahead of the read are not returned");
    for (const v of [0, 999, 1500, 1899, 1999]) assert.ok(vs.includes(v), `entry ${v} missing`);
  });

  test("a drop between two slices kills the read: QueryPlanKilled, as after a getMore", async () => {
    const reads: [string, (c: Collection<Row>) => Promise<unknown>][] = [
      ["dropped_find", (c) => c.find(NOTHING).toArray()],
      ["dropped_count", (c) => c.countDocuments(NOTHING)],
      ["dropped_distinct", (c) => c.distinct("group", NOTHING)],
      ["dropped_aggregate", (c) => c.aggregate([{ $match: NOTHING }, { $sort: { name: 1 } }]).toArray()],
    ];
    for (const [name, read] of reads) {
      const coll = rowsOf(conn.db, name);
      await coll.insertMany(rows(DOCS));
      await assert.rejects(
        whilePaused(() => read(coll), () => other.db(conn.db.databaseName).collection(name).drop()),
        (error: Error & { code?: number }) => {
          assert.equal(error.code, 175, `${name}: ${error.message}`);
          assert.match(error.message, /^collection dropped\. UUID /);
          return true;
        },
      );
    }
  });

  test("dropping the index a read goes through, between two slices, kills it", async () => {
    const coll = rowsOf(conn.db, "index_dropped");
    await coll.insertMany(rows(DOCS));
    await coll.createIndex({ v: 1 });
    const read = () => coll.find({ v: { $gte: 0 }, name: { $regex: "x$" } }).hint("v_1").toArray();
    await assert.rejects(
      whilePaused(read, () => other.db(conn.db.databaseName).collection("index_dropped").dropIndex("v_1")),
      (error: Error & { code?: number }) =>
        error.code === 175 && error.message === "query plan killed :: index 'v_1' dropped",
    );
  });

  test("dropping a collection a $lookup or $unionWith reads, between two slices, kills the aggregate too", async () => {
    await rowsOf(conn.db, "parents").insertMany(rows(3));
    const pipelines: Document[][] = [
      [{ $lookup: { from: "children", localField: "group", foreignField: "group", as: "kids" } }],
      [{ $unionWith: { coll: "children", pipeline: [{ $match: NOTHING }] } }],
    ];
    for (const pipeline of pipelines) {
      await rowsOf(conn.db, "children").insertMany(rows(DOCS));
      await assert.rejects(
        whilePaused(
          () => conn.db.collection("parents").aggregate(pipeline).toArray(),
          () => other.db(conn.db.databaseName).collection("children").drop(),
        ),
        (error: Error & { code?: number }) => error.code === 175 && /^collection dropped\. UUID /.test(error.message),
      );
    }
  });

  test("a getMore paused between slices refuses another getMore (143) and is interrupted by killCursors (237)", async () => {
    await rowsOf(conn.db, "pinned").insertMany(rows(DOCS));
    const [a, b] = [await rawSocket(conn.target.uri), await rawSocket(conn.target.uri)];
    try {
      const $db = conn.db.databaseName;
      const found = await roundTrip(
        a,
        opMsg({ find: "pinned", filter: { name: { $regex: "^n" } }, batchSize: 1, $db }),
      );
      const id = found.cursor.id as Long;
      const paused = turns.hold().then(() => "paused");
      const getMore = roundTrip(a, opMsg({ getMore: id, collection: "pinned", batchSize: 1_000, $db }, 2));
      if ((await Promise.race([paused, getMore.then(() => "done")])) !== "paused") {
        turns.cancel();
        assert.fail("the getMore ran to its end without pausing");
      }
      try {
        const busy = await roundTrip(b, opMsg({ getMore: id, collection: "pinned", $db }, 3));
        assert.equal(busy.code, 143);
        assert.equal(busy.errmsg, `cursor id ${id.toString()} is already in use`);
        const killed = await roundTrip(b, opMsg({ killCursors: "pinned", cursors: [id], $db }, 4));
        assert.deepEqual(killed.cursorsKilled.map(String), [id.toString()]);
      } finally {
        turns.release();
      }
      const interrupted = await getMore;
      assert.equal(interrupted.code, 237);
      assert.equal(interrupted.errmsg, "Executor error during getMore :: caused by :: operation was interrupted");
      assert.equal((await roundTrip(b, opMsg({ getMore: id, collection: "pinned", $db }, 5))).code, 43);
    } finally {
      a.destroy();
      b.destroy();
    }
  });
});

describe("embedded engine: a cursor a getMore fills across slices", () => {
  test("is not swept as idle meanwhile, and answers once the getMore is done", async () => {
    let now = 0;
    const turns = new Turns();
    const registry = new CursorRegistry(1 << 20, 10 * 60_000, () => now, turns.take);
    // A read pausing after every document, on a clock moving a second at each reading: every pause ends a slice.
    function* source(): Generator<Paused<Document>> {
      for (let i = 0; i < 10; i++) {
        yield { _id: i };
        yield PAUSE;
      }
    }
    let ticks = 0;
    const operation = () => new Operation(() => (ticks += 1000));
    const first = registry.first("db.c", source(), { batchSize: 1, operation: operation() }) as Batch;
    assert.equal(first.docs.length, 1);
    const held = turns.hold();
    const more = registry.more(first.cursorId, 5, operation());
    assert.ok(more instanceof Promise, "the getMore went on after a turn");
    await held;
    now = 11 * 60_000;
    assert.equal(registry.sweep(), 0);
    turns.release();
    assert.equal((await more).docs.length, 5);
    assert.equal(registry.sweep(), 1);
    registry.close();
  });
});
