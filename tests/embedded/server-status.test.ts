import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import process from "node:process";
import { type Document, MongoServerError } from "mongodb";
import {
  type Connected,
  connectTarget,
  exchange,
  opMsg,
  rawSocket,
  roundTrip,
  startTarget,
  type Target,
} from "./helpers.ts";

const RAW = { promoteLongs: false, promoteValues: false } as const;

function typeOf(value: unknown): string {
  return (value as { _bsontype?: string })?._bsontype ?? typeof value;
}

/** serverStatus through the driver, numbers as plain numbers. */
function status(conn: Connected, options: Document = {}): Promise<Document> {
  return conn.db.admin().command({ serverStatus: 1, ...options });
}

/** serverStatus, with the header and sections an engine of this kind has, as MongoDB 7.0 answers it. */
describe("embedded engine: serverStatus", () => {
  let conn: Connected;

  before(async () => {
    // No heartbeat inside a test's window: the counts below are exact.
    conn = await connectTarget("server_status", {}, { heartbeatFrequencyMS: 600_000 });
  });
  after(() => conn.close());

  test("answers MongoDB's header fields and sections, with their BSON types; a section can be left out", async () => {
    const raw = await conn.db.admin().command({ serverStatus: 1 }, RAW);
    assert.deepEqual(Object.keys(raw), [
      "host",
      "version",
      "process",
      "pid",
      "uptime",
      "uptimeMillis",
      "uptimeEstimate",
      "localTime",
      "asserts",
      "catalogStats",
      "connections",
      "mem",
      "network",
      "opLatencies",
      "opcounters",
      "storageEngine",
      "ok",
    ]);
    assert.equal(raw.version, "7.0.0");
    assert.equal(raw.process, "mongod");
    assert.equal(Number(raw.pid), process.pid);
    assert.equal(typeOf(raw.uptime), "Double");
    assert.equal(typeOf(raw.uptimeMillis), "Long");
    assert.equal(typeOf(raw.opcounters.query), "Long");
    assert.ok(raw.localTime instanceof Date);
    assert.ok(Number(raw.mem.resident) > 0);
    assert.equal(raw.storageEngine.persistent, false);
    const without = await status(conn, { mem: 0, opcounters: false, network: null, asserts: 1 });
    assert.equal("mem" in without, false);
    assert.equal("opcounters" in without, false);
    assert.equal("network" in without, false, "null reads as false, as MongoDB reads it");
    assert.equal("asserts" in without, true);
  });

  test("opcounters count inserted documents, update and delete statements, finds, getMores and other commands", async () => {
    const c = conn.db.collection<{ _id: number; a?: number }>("counted");
    const before = (await status(conn)).opcounters;
    await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    await c.find({}, { batchSize: 2 }).toArray(); // one find, one getMore (a short batch ends the cursor)
    await c.updateMany({}, { $set: { a: 1 } });
    await c.bulkWrite([{ deleteOne: { filter: { _id: 1 } } }, { deleteOne: { filter: { _id: 2 } } }]);
    await c.countDocuments({});
    // An ordered insert stops at its first failure: one document attempted of three.
    await assert.rejects(c.insertMany([{ _id: 3 }, { _id: 4 }, { _id: 5 }]), MongoServerError);
    await assert.rejects(conn.db.command({ noSuchCommand: 1 }), MongoServerError); // not counted
    const after = (await status(conn)).opcounters;
    const delta = Object.fromEntries(Object.keys(after).map((kind) => [kind, after[kind] - before[kind]]));
    assert.deepEqual(delta, { insert: 4, query: 1, update: 1, delete: 2, getmore: 1, command: 2 });
  });

  test("asserts.user counts failed commands and write errors; opLatencies counts every operation", async () => {
    const c = conn.db.collection<{ _id: number }>("asserted");
    await c.insertOne({ _id: 1 });
    const before = await status(conn, { opLatencies: { histograms: 1 } });
    await assert.rejects(c.insertOne({ _id: 1 }), MongoServerError);
    await assert.rejects(conn.db.command({ nope: 1 }), MongoServerError);
    const after = await status(conn, { opLatencies: { histograms: true } });
    assert.equal(after.asserts.user - before.asserts.user, 2);
    assert.equal(after.opLatencies.writes.ops - before.opLatencies.writes.ops, 1);
    assert.ok(
      after.opLatencies.commands.ops - before.opLatencies.commands.ops >= 2,
      "the failed command and serverStatus",
    );
    const counted = after.opLatencies.writes.histogram.reduce((sum: number, b: Document) => sum + b.count, 0);
    assert.equal(counted, after.opLatencies.writes.ops);
    assert.equal("histogram" in (await status(conn)).opLatencies.reads, false);
  });

  test("catalogStats counts collections and views across databases; active counts serverStatus' own connection", async () => {
    const before = (await status(conn)).catalogStats;
    await conn.db.createCollection("catalogued");
    await conn.client.db("server_status_other").createCollection("elsewhere");
    await conn.db.createCollection("catalogued_view", { viewOn: "catalogued", pipeline: [] });
    const after = await status(conn);
    assert.equal(after.catalogStats.collections - before.collections, 2);
    assert.equal(after.catalogStats.views - before.views, 1);
    assert.ok(after.connections.active >= 1);
    await conn.client.db("server_status_other").dropDatabase();
  });
});

/** Connections and bytes counted exactly, over raw sockets to an engine no driver talks to. */
describe("embedded engine: serverStatus connection and network counters", () => {
  let target: Target;
  const sockets: Socket[] = [];
  const open = async () => {
    const socket = await rawSocket(target.uri);
    sockets.push(socket);
    return socket;
  };

  before(async () => {
    target = await startTarget("server_status_raw", { maxConnections: 2 });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await target.close();
  });

  test("counts connections, the ones refused past the limit, requests and the bytes both ways", async (t) => {
    if (!target.embedded) return t.skip("the counts are exact only on an engine of this test's own");
    const first = await open();
    const serverStatus = opMsg({ serverStatus: 1, $db: "admin" });
    const { doc: s1, bytes: s1Bytes } = await exchange(first, serverStatus);
    assert.deepEqual(
      { current: s1.connections.current, totalCreated: Number(s1.connections.totalCreated), rejected: 0 },
      { current: 1, totalCreated: 1, rejected: Number(s1.connections.rejected) },
    );
    const ping = opMsg({ ping: 1, $db: "admin" });
    const { bytes: pongBytes } = await exchange(first, ping);
    const s2 = await roundTrip(first, serverStatus);
    assert.equal(Number(s2.network.numRequests) - Number(s1.network.numRequests), 2);
    assert.equal(Number(s2.network.bytesIn) - Number(s1.network.bytesIn), ping.length + serverStatus.length);
    assert.equal(Number(s2.network.bytesOut) - Number(s1.network.bytesOut), s1Bytes + pongBytes);

    const second = await open();
    const refused = await open();
    await new Promise((resolve) => refused.once("close", resolve));
    const s3 = await roundTrip(second, serverStatus);
    assert.equal(s3.connections.current, 2);
    assert.equal(Number(s3.connections.totalCreated), 2);
    assert.equal(Number(s3.connections.rejected), 1);
    assert.equal(s3.connections.available, 0);

    second.destroy();
    let current = 2;
    for (let tries = 0; current !== 1 && tries < 10_000; tries++) {
      await new Promise((resolve) => setImmediate(resolve));
      current = (await roundTrip(first, serverStatus)).connections.current;
    }
    assert.equal(current, 1, "a closed connection is no longer current");
  });
});
