import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection } from "mongodb";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { TTL_BATCH } from "../../src/embedded/ttl.ts";
import { type Connected, connectTarget, externalUri, KeepingSink, withCode } from "./helpers.ts";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1);

/**
 * TTL indexes: `expireAfterSeconds` is accepted and checked as MongoDB checks it, and the
 * monitor deletes the documents whose indexed date (the earliest, for an array) is older than
 * that, leaving missing and non-date values. The engine refused the option before. The monitor
 * runs against an injected clock, and the test waits for its passes rather than for time.
 */
describe("embedded engine: TTL indexes", {
  skip: externalUri !== undefined && "injects a clock and a sink into the engine",
}, () => {
  let conn: Connected;
  let sessions: Collection<{ _id: string; seenAt?: unknown }>;
  const sink = new KeepingSink();
  let clock = START;
  const passes: Array<() => void> = [];

  /** Resolves after two more passes: the second starts after this call, so it sees every write made before it. */
  const twoPasses = () =>
    new Promise<void>((resolve) => {
      let left = 2;
      passes.push(function counted() {
        if (--left > 0) passes.push(counted);
        else resolve();
      });
    });

  before(async () => {
    conn = await connectTarget("ttl_indexes", {
      sink,
      ttl: { intervalMs: 1, now: () => clock, onPass: () => passes.shift()?.() },
    });
    sessions = conn.db.collection("sessions");
  });
  after(async () => {
    await conn.close();
  });

  test("expired documents are deleted; future, missing and non-date values stay", async () => {
    await sessions.createIndex({ seenAt: 1 }, { expireAfterSeconds: 3600 });
    const listed = (await sessions.indexes()).find((index) => index.name === "seenAt_1");
    assert.equal(listed?.expireAfterSeconds, 3600);
    await sessions.insertMany([
      { _id: "old", seenAt: new Date(START - 2 * HOUR) },
      { _id: "fresh", seenAt: new Date(START - HOUR / 2) },
      { _id: "array", seenAt: [new Date(START + HOUR), new Date(START - 3 * HOUR)] },
      { _id: "text", seenAt: "2020-01-01" },
      { _id: "none" },
    ]);
    await twoPasses();
    const ids = async () => (await sessions.find().toArray()).map((d) => d._id).sort();
    assert.deepEqual(await ids(), ["fresh", "none", "text"]);
    clock = START + HOUR; // "fresh" is now 1.5 h old
    await twoPasses();
    assert.deepEqual(await ids(), ["none", "text"]);
  });

  test("a pass deletes more expired documents than one batch holds", async () => {
    const logs = conn.db.collection<{ _id: number; at: Date }>("bulk");
    await logs.createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    const old = new Date(clock - HOUR);
    await logs.insertMany(Array.from({ length: TTL_BATCH * 2 + 500 }, (_, i) => ({ _id: i, at: old })));
    await twoPasses();
    assert.equal(await logs.countDocuments(), 0);
  });

  test("a partial TTL index expires only the documents its filter matches", async () => {
    const tokens = conn.db.collection<{ _id: number; at: Date; kind: string }>("tokens");
    await tokens.createIndex({ at: 1 }, { expireAfterSeconds: 1, partialFilterExpression: { kind: { $eq: "reset" } } });
    const old = new Date(clock - HOUR);
    await tokens.insertMany([{ _id: 1, at: old, kind: "reset" }, { _id: 2, at: old, kind: "api" }]);
    await twoPasses();
    assert.deepEqual((await tokens.find().toArray()).map((t) => t._id), [2]);
  });

  test("collMod changes an expiry, or makes a single-field index a TTL one", async () => {
    const reply = await conn.db.command({ collMod: "sessions", index: { name: "seenAt_1", expireAfterSeconds: 60 } });
    assert.equal(reply.expireAfterSeconds_old, 3600);
    assert.equal(reply.expireAfterSeconds_new, 60);
    await sessions.insertOne({ _id: "two minutes", seenAt: new Date(clock - 120_000) });
    await twoPasses();
    assert.equal(await sessions.countDocuments({ _id: "two minutes" }), 0);
    const logs = conn.db.collection("logs");
    await logs.createIndex({ at: 1 });
    const made = await conn.db.command({ collMod: "logs", index: { keyPattern: { at: 1 }, expireAfterSeconds: 5 } });
    assert.equal(made.expireAfterSeconds_old, undefined);
    assert.equal((await logs.indexes()).find((index) => index.name === "at_1")?.expireAfterSeconds, 5);
    await assert.rejects(
      conn.db.command({ collMod: "logs", index: { name: "nope", expireAfterSeconds: 5 } }),
      withCode(27),
    );
  });

  test("the option is checked as MongoDB checks it", async () => {
    const other = conn.db.collection("other");
    await assert.rejects(other.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 10 }), withCode(67));
    await assert.rejects(other.createIndex({ a: 1 }, { expireAfterSeconds: -1 }), withCode(67));
    await assert.rejects(
      other.createIndex({ a: 1 }, { expireAfterSeconds: "soon" as unknown as number }),
      withCode(67),
    );
    await assert.rejects(other.createIndex({ _id: 1 }, { expireAfterSeconds: 10 }), withCode(197));
    await other.createIndex({ a: 1 }, { expireAfterSeconds: 10 });
    await assert.rejects(other.createIndex({ a: 1 }, { expireAfterSeconds: 20 }), withCode(85));
  });

  test("a restart keeps the index's expiry, as collMod left it", () => {
    const catalog = new Catalog();
    for (const change of sink.accepted) catalog.applyChange(change);
    catalog.finishRecovery();
    assert.equal(catalog.get(conn.target.dbName, "sessions")?.indexes.get("seenAt_1")?.expireAfterSeconds, 60);
    assert.equal(catalog.get(conn.target.dbName, "logs")?.indexes.get("at_1")?.expireAfterSeconds, 5);
  });
});

/**
 * The monitor as it runs in production: no test hooks, the real clock. A pass that only ran
 * when a hook was given once deleted nothing at all. Each poll waits for a reply, not for time.
 */
describe("embedded engine: the TTL monitor without test hooks", {
  skip: externalUri !== undefined && "sets the engine's TTL interval",
}, () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("ttl_unhooked", { ttl: { intervalMs: 1 } });
  });
  after(() => conn.close());

  test("deletes an expired document on its own, and its reads do not count as uses of the index", async () => {
    const events = conn.db.collection<{ _id: number; at: Date }>("events");
    await events.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    await events.insertMany([{ _id: 1, at: new Date(0) }, { _id: 2, at: new Date(Date.now() + 10 * HOUR) }]);
    let left = 2;
    for (let polls = 0; left > 1 && polls < 20_000; polls++) left = await events.countDocuments({ _id: 1 }) + 1;
    assert.equal(left, 1, "the expired document was deleted");
    assert.deepEqual((await events.find().toArray()).map((doc) => doc._id), [2]);
    const stats = await events.aggregate([{ $indexStats: {} }]).toArray();
    assert.equal(stats.find((index) => index.name === "at_1")?.accesses.ops, 0);
  });
});
