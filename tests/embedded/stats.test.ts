import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type Collection, type Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

interface Item {
  _id: number;
  n: number;
  text: string;
}

/** Raw replies: int64 counts stay Long and doubles stay Double, so their BSON types can be checked. */
const RAW = { promoteLongs: false, promoteValues: false } as const;

function typeOf(value: unknown): string {
  return (value as { _bsontype?: string })?._bsontype ?? typeof value;
}

const ITEMS: Item[] = Array.from({ length: 40 }, (_, i) => ({ _id: i, n: i % 5, text: "x".repeat(i) }));
/** The BSON bytes of the stored items, as MongoDB's `size`/`dataSize` count them. */
const ITEM_BYTES = ITEMS.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);

/** dbStats, collStats, `$collStats` and `$indexStats`, as MongoDB 7.0 answers them. */
describe("embedded engine: storage and usage statistics", () => {
  let conn: Connected;
  let items: Collection<Item>;

  before(async () => {
    conn = await connectTarget("stats");
    items = conn.db.collection<Item>("items");
    await items.insertMany(ITEMS);
    await items.createIndex({ n: 1 });
    await conn.db.createCollection("items_view", { viewOn: "items", pipeline: [{ $match: { n: 1 } }] });
    await conn.db.createCollection("plain_view", { viewOn: "items", pipeline: [] });
  });
  after(() => conn.close());

  test("dbStats counts documents, collections (system.views among them), views and indexes, with MongoDB's types", async () => {
    const stats = await conn.db.command({ dbStats: 1 }, RAW);
    assert.deepEqual(Object.keys(stats).slice(0, 11), [
      "db",
      "collections",
      "views",
      "objects",
      "avgObjSize",
      "dataSize",
      "storageSize",
      "indexes",
      "indexSize",
      "totalSize",
      "scaleFactor",
    ]);
    assert.equal(stats.db, conn.db.databaseName);
    for (const field of ["collections", "views", "objects", "indexes", "scaleFactor"]) {
      assert.equal(typeOf(stats[field]), "Long", field);
    }
    for (const field of ["avgObjSize", "dataSize", "storageSize", "indexSize", "totalSize"]) {
      assert.equal(typeOf(stats[field]), "Double", field);
    }
    const plain = await conn.db.command({ dbStats: 1 });
    assert.equal(plain.collections, 2, "items and system.views");
    assert.equal(plain.views, 2);
    assert.equal(plain.indexes, 3, "items' two, and system.views' _id index");
    const viewBytes = ["items_view", "plain_view"].reduce(
      (sum, name) => sum + BSON.calculateObjectSize(viewDefinition(conn, name)),
      0,
    );
    assert.equal(plain.objects, ITEMS.length + 2, "the items and the two view definitions");
    assert.equal(plain.dataSize, ITEM_BYTES + viewBytes);
    assert.equal(plain.avgObjSize, (ITEM_BYTES + viewBytes) / (ITEMS.length + 2));
    assert.ok(plain.storageSize >= ITEM_BYTES);
    assert.equal(plain.totalSize, plain.storageSize + plain.indexSize);
    assert.equal(plain.scaleFactor, 1);
  });

  test("dbStats divides sizes by the scale, truncated to an integer, and refuses a scale below one", async () => {
    const whole = await conn.db.command({ dbStats: 1 });
    const scaled = await conn.db.command({ dbStats: 1, scale: 2.8 });
    assert.equal(scaled.scaleFactor, 2);
    assert.equal(scaled.dataSize, whole.dataSize / 2);
    assert.equal(scaled.avgObjSize, whole.avgObjSize, "the average is not scaled");
    await refused(() => conn.db.command({ dbStats: 1, scale: 0.5 }), 2, "Scale factor must be greater than zero");
    await refused(() => conn.db.command({ dbStats: 1, scale: -100 }), 2);
    await refused(
      () => conn.db.command({ dbStats: 1, scale: "kb" }),
      14,
      "BSON field 'dbStats.scale' is the wrong type 'string', expected types '[long, int, decimal, double']",
    );
    await refused(() => conn.db.command({ dbStats: 1, scales: 1 }), 40415, /'dbStats.scales' is an unknown field/);
    await refused(() => conn.db.command({ dbstats: 1, scales: 1 }), 40415, /'dbstats.scales' is an unknown field/);
    assert.equal((await conn.db.command({ dbStats: 1, scale: null })).scaleFactor, 1);
    const huge = await conn.db.command({ dbStats: 1, scale: 1e300 }, RAW);
    assert.equal(String(huge.scaleFactor), "9223372036854775807", "clamped to int64");
    assert.equal(Number(huge.dataSize), whole.dataSize / 2 ** 63, "and divided by the clamped scale");
  });

  test("dbStats with freeStorage adds the free sizes; a database that does not exist is all zeros", async () => {
    const free = await conn.db.command({ dbStats: 1, freeStorage: 1 });
    const keys = Object.keys(free);
    assert.deepEqual(keys.slice(keys.indexOf("totalSize") + 1, keys.indexOf("scaleFactor")), [
      "freeStorageSize",
      "indexFreeStorageSize",
      "totalFreeStorageSize",
    ]);
    assert.ok(free.freeStorageSize >= 0 && free.freeStorageSize < free.storageSize);
    await refused(() => conn.db.command({ dbStats: 1, freeStorage: "yes" }), 14);
    const none = await conn.client.db(`${conn.db.databaseName}_none`).command({ dbStats: 1 }, RAW);
    const existing = await conn.db.command({ dbStats: 1 }, RAW);
    assert.deepEqual(
      Object.keys(none).slice(1),
      Object.keys(existing).slice(1),
      "the same fields as a database that exists",
    );
    for (const [field, value] of Object.entries(none)) {
      if (field === "db" || field === "ok") continue;
      assert.equal(typeOf(value), typeOf(existing[field]), field);
      assert.equal(Number(value), field === "scaleFactor" ? 1 : 0, field);
    }
  });

  test("collStats reports a collection's sizes and indexes, zeros for a missing one, and refuses a view", async () => {
    const stats = await conn.db.command({ collStats: "items" });
    assert.deepEqual(Object.keys(stats), [
      "ns",
      "size",
      "count",
      "avgObjSize",
      "numOrphanDocs",
      "storageSize",
      "freeStorageSize",
      "capped",
      "nindexes",
      "indexDetails",
      "indexBuilds",
      "totalIndexSize",
      "indexSizes",
      "totalSize",
      "scaleFactor",
      "ok",
    ]);
    assert.equal(stats.ns, `${conn.db.databaseName}.items`);
    assert.equal(stats.size, ITEM_BYTES);
    assert.equal(stats.count, ITEMS.length);
    assert.equal(stats.avgObjSize, Math.floor(ITEM_BYTES / ITEMS.length));
    assert.equal(stats.capped, false);
    assert.equal(stats.nindexes, 2);
    assert.deepEqual(Object.keys(stats.indexSizes), ["_id_", "n_1"]);
    assert.equal(stats.totalIndexSize, stats.indexSizes._id_ + stats.indexSizes.n_1);
    assert.equal(stats.totalSize, stats.storageSize + stats.totalIndexSize);
    const kb = await conn.db.command({ collStats: "items", scale: 1024 });
    assert.equal(kb.size, Math.floor(ITEM_BYTES / 1024));
    assert.equal(kb.scaleFactor, 1024);

    const missing = await conn.db.command({ collStats: "nothing" }, RAW);
    assert.deepEqual(Object.keys(missing), [
      "ns",
      "size",
      "count",
      "numOrphanDocs",
      "storageSize",
      "totalSize",
      "nindexes",
      "totalIndexSize",
      "indexDetails",
      "indexSizes",
      "scaleFactor",
      "ok",
    ]);
    assert.equal(typeOf(missing.size), "Int32");
    assert.deepEqual(
      { ...(await conn.db.command({ collstats: "nothing" })), ns: undefined },
      {
        ns: undefined,
        size: 0,
        count: 0,
        numOrphanDocs: 0,
        storageSize: 0,
        totalSize: 0,
        nindexes: 0,
        totalIndexSize: 0,
        indexDetails: {},
        indexSizes: {},
        scaleFactor: 1,
        ok: 1,
      },
    );
    await refused(() => conn.db.command({ collStats: "items_view" }), 166, /is a view, not a collection/);
    await refused(
      () => conn.db.command({ collStats: "items", scale: 0 }),
      51024,
      "BSON field 'scale' value must be >= 1, actual value '0'",
    );
    await refused(() => conn.db.command({ collStats: "items", scale: -2.8 }), 51024, /actual value '-2'/);
    await refused(
      () => conn.db.command({ collStats: "items", verbose: 1 }),
      14,
      "Field 'verbose' should be a boolean value, but found: int",
    );
    assert.equal((await conn.db.command({ collstats: "items" })).count, ITEMS.length, "the alias");
  });

  test("$collStats answers in MongoDB's field order whatever the options' order", async () => {
    const [stats] = await items.aggregate([{ $collStats: { queryExecStats: {}, count: {}, storageStats: {} } }])
      .toArray();
    assert.deepEqual(Object.keys(stats), ["ns", "host", "localTime", "storageStats", "count", "queryExecStats"]);
    assert.equal(stats.ns, `${conn.db.databaseName}.items`);
    assert.match(stats.host, /^[^:]+:\d+$/);
    assert.ok(stats.localTime instanceof Date);
    assert.equal(stats.count, ITEMS.length);
    assert.equal(stats.storageStats.size, ITEM_BYTES);
    assert.equal("ns" in stats.storageStats, false);
    const [scaled] = await items.aggregate([{ $collStats: { storageStats: { scale: 42.42 } } }]).toArray();
    assert.equal(scaled.storageStats.scaleFactor, 42);
    const [bare] = await items.aggregate([{ $collStats: {} }, { $project: { _id: 0, ns: 1 } }]).toArray();
    assert.deepEqual(bare, { ns: `${conn.db.databaseName}.items` });
  });

  test("$collStats counts collection scans, not indexed reads nor explains", async () => {
    const scans = async () =>
      (await items.aggregate([{ $collStats: { queryExecStats: {} } }], RAW).toArray())[0].queryExecStats;
    const before = await scans();
    assert.equal(typeOf(before.collectionScans.total), "Long");
    await items.find({ text: "xx" }).toArray();
    await items.find({ n: 2 }).toArray();
    await items.find({ text: "xxx" }).explain("executionStats");
    await items.countDocuments({}); // a pipeline: MongoDB scans the collection
    await conn.db.command({ count: "items" }); // the count command reads the collection's size
    const after = await scans();
    assert.equal(Number(after.collectionScans.total) - Number(before.collectionScans.total), 2);
    assert.equal(Number(after.collectionScans.nonTailable), Number(after.collectionScans.total));
  });

  test("$collStats latencyStats counts reads, writes and commands per namespace, with histograms", async () => {
    const fresh = conn.db.collection<{ _id: number }>("latency");
    await fresh.insertOne({ _id: 1 });
    await fresh.insertOne({ _id: 2 });
    await fresh.find({}).toArray();
    await fresh.createIndex({ x: 1 });
    const [stats] = await fresh.aggregate([{ $collStats: { latencyStats: { histograms: true } } }], RAW).toArray();
    const { reads, writes, commands, transactions } = stats.latencyStats;
    assert.deepEqual(Object.keys(stats.latencyStats), ["reads", "writes", "commands", "transactions"]);
    assert.equal(Number(writes.ops), 2);
    assert.equal(Number(reads.ops), 1);
    assert.ok(Number(commands.ops) >= 1, "createIndexes (and the implicit create)");
    assert.equal(Number(transactions.ops), 0);
    assert.deepEqual(transactions.histogram, []);
    for (const kind of [reads, writes, commands]) {
      assert.equal(typeOf(kind.latency), "Long");
      const counted = kind.histogram.reduce((sum: number, bucket: Document) => sum + Number(bucket.count), 0);
      assert.equal(counted, Number(kind.ops));
      const bounds = kind.histogram.map((bucket: Document) => Number(bucket.micros));
      assert.deepEqual(bounds, [...bounds].sort((a, b) => a - b));
    }
    const [plain] = await fresh.aggregate([{ $collStats: { latencyStats: {} } }]).toArray();
    assert.equal("histogram" in plain.latencyStats.reads, false);
    assert.equal(plain.latencyStats.reads.ops, 2, "the aggregate before it counts as a read");

    await fresh.drop();
    const [dropped] = await conn.db.collection("latency").aggregate([{ $collStats: { latencyStats: {} } }]).toArray();
    assert.equal(dropped.latencyStats.writes.ops, 0, "a dropped collection starts afresh");
    const never = conn.db.collection("never_created");
    await never.find({}).toArray();
    const [untracked] = await never.aggregate([{ $collStats: { latencyStats: {} } }]).toArray();
    assert.equal(untracked.latencyStats.reads.ops, 0, "a name that was never created keeps no latencies");
  });

  test("$collStats on a view reports the view's own latencies and refuses what needs a collection", async () => {
    const view = conn.db.collection("items_view");
    await view.find({}).toArray();
    const [stats] = await view.aggregate([{ $collStats: { latencyStats: {} } }]).toArray();
    assert.equal(stats.ns, `${conn.db.databaseName}.items_view`);
    assert.ok(stats.latencyStats.reads.ops >= 1);
    await refused(
      () => view.aggregate([{ $collStats: { storageStats: {} } }]).toArray(),
      166,
      /Unable to retrieve storageStats in \$collStats stage :: caused by :: Namespace .*\.items_view is a view, not a collection/,
    );
    await refused(
      () => conn.db.collection("nothing").aggregate([{ $collStats: { count: {} } }]).toArray(),
      26,
      `PlanExecutor error during aggregation :: caused by :: Unable to retrieve count in $collStats stage :: caused by :: Collection [${conn.db.databaseName}.nothing] not found.`,
    );
  });

  test("$collStats and $indexStats must come first, outside $facet, with a collection and a valid argument", async () => {
    await refused(
      () => items.aggregate([{ $match: {} }, { $collStats: {} }]).toArray(),
      40602,
      "$collStats is only valid as the first stage in a pipeline",
    );
    await refused(() => items.aggregate([{ $limit: 1 }, { $indexStats: {} }]).toArray(), 40602);
    await refused(
      () => items.aggregate([{ $facet: { a: [{ $indexStats: {} }] } }]).toArray(),
      40600,
      "$indexStats is not allowed to be used within a $facet stage",
    );
    await refused(
      () => items.aggregate([{ $collStats: null }]).toArray(),
      5447000,
      "$collStats must take a nested object but found: $collStats: null",
    );
    await refused(
      () => items.aggregate([{ $collStats: [1] }]).toArray(),
      5447000,
      "$collStats must take a nested object but found: $collStats: [ 1 ]",
    );
    await refused(
      () => items.aggregate([{ $collStats: { count: { a: 1 } } }]).toArray(),
      31170,
      "expected an empty object, but got { a: 1 }",
    );
    await refused(() => items.aggregate([{ $collStats: { storageStats: { waitForLock: "no" } } }]).toArray(), 14);
    await refused(
      () => items.aggregate([{ $collStats: { counts: {} } }]).toArray(),
      40415,
      "BSON field '$collStats.counts' is an unknown field.",
    );
    await refused(() => items.aggregate([{ $collStats: { count: 1 } }]).toArray(), 14);
    await refused(() => items.aggregate([{ $collStats: { latencyStats: { histograms: 1 } } }]).toArray(), 14);
    await refused(() => items.aggregate([{ $collStats: { storageStats: { scale: -1000 } } }]).toArray(), 51024);
    await refused(
      () => items.aggregate([{ $indexStats: { x: 1 } }]).toArray(),
      28803,
      "The $indexStats stage specification must be an empty object",
    );
    await refused(() => conn.db.aggregate([{ $collStats: {} }]).toArray(), 73);
  });

  test("$indexStats counts the operations whose plan read each index, never explains or scans", async () => {
    const counts = conn.db.collection<{ _id: number; k: number; v: number }>("counts");
    await counts.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, k: i % 4, v: i })));
    await counts.createIndex({ k: 1 });
    const ops = async () => {
      const stats = await counts.aggregate([{ $indexStats: {} }], RAW).toArray();
      for (const index of stats) assert.equal(typeOf(index.accesses.ops), "Long");
      return Object.fromEntries(stats.map((index) => [index.name, Number(index.accesses.ops)]));
    };
    assert.deepEqual(await ops(), { _id_: 0, k_1: 0 });
    await counts.find({ k: 1 }).toArray(); // k_1
    await counts.countDocuments({ k: 2 }); // k_1
    await counts.distinct("v", { k: 3 }); // k_1
    await counts.updateOne({ k: 0 }, { $set: { v: -1 } }); // k_1
    await counts.deleteOne({ _id: 19 }); // _id_
    await counts.findOne({ _id: 3 }); // _id_
    await counts.find({ k: 1 }).explain("executionStats"); // not counted
    await counts.find({ v: 5 }).toArray(); // a collection scan
    await counts.insertOne({ _id: 100, k: 1, v: 100 }); // not counted
    assert.deepEqual(await ops(), { _id_: 2, k_1: 4 });

    const listed = await counts.aggregate([{ $indexStats: {} }]).toArray();
    const k = listed.find((index) => index.name === "k_1")!;
    assert.deepEqual(Object.keys(k), ["name", "key", "host", "accesses", "spec"]);
    assert.deepEqual(k.key, { k: 1 });
    assert.deepEqual(k.spec, { v: 2, key: { k: 1 }, name: "k_1" });
    assert.ok(k.accesses.since instanceof Date);

    await counts.dropIndex("k_1");
    await counts.createIndex({ k: 1 });
    const again = (await counts.aggregate([{ $indexStats: {} }]).toArray()).find((index) => index.name === "k_1")!;
    assert.equal(again.accesses.ops, 0, "a dropped index's count goes with it");
  });

  test("$indexStats on a missing collection is empty; on a view, its collection's unless the view has stages", async () => {
    assert.deepEqual(await conn.db.collection("nothing").aggregate([{ $indexStats: {} }]).toArray(), []);
    const names = (await conn.db.collection("plain_view").aggregate([{ $indexStats: {} }]).toArray())
      .map((index) => index.name);
    assert.deepEqual(names, ["_id_", "n_1"]);
    await refused(() => conn.db.collection("items_view").aggregate([{ $indexStats: {} }]).toArray(), 40602);
  });

  test("a view whose own stages start with $collStats or $indexStats reports its collection's", async () => {
    await conn.db.createCollection("counting_view", { viewOn: "items", pipeline: [{ $collStats: { count: {} } }] });
    await conn.db.createCollection("indexes_view", { viewOn: "items", pipeline: [{ $indexStats: {} }] });
    const [counted] = await conn.db.collection("counting_view").find({}).toArray();
    assert.deepEqual([counted.ns, counted.count], [`${conn.db.databaseName}.items`, ITEMS.length]);
    const names = await conn.db.collection("indexes_view").aggregate([{ $project: { _id: 0, name: 1 } }]).toArray();
    assert.deepEqual(names, [{ name: "_id_" }, { name: "n_1" }]);
    await refused(
      () =>
        conn.db.createCollection("misplaced_view", { viewOn: "items", pipeline: [{ $match: {} }, { $collStats: {} }] }),
      40602,
    );
    await conn.db.collection("counting_view").drop();
    await conn.db.collection("indexes_view").drop();
  });

  test("listIndexes and listCollections show an index as v, key, name, then its options", async () => {
    const specs = await conn.db.collection("specs");
    await specs.createIndex({ a: -1 }, { unique: true, name: "by_a" });
    assert.deepEqual(await specs.listIndexes().toArray(), [
      { v: 2, key: { _id: 1 }, name: "_id_" },
      { v: 2, key: { a: -1 }, name: "by_a", unique: true },
    ]);
    const [info] = await conn.db.listCollections({ name: "specs" }).toArray();
    assert.deepEqual(Object.keys((info as Document).idIndex), ["v", "key", "name"]);
  });

  test("drop reports the number of indexes; listDatabases reports what each database takes", async () => {
    const doomed = conn.db.collection("doomed");
    await doomed.insertOne({ a: 1 });
    await doomed.createIndex({ a: 1 });
    await doomed.createIndex({ b: 1 });
    const dropped = await conn.db.command({ drop: "doomed" });
    assert.equal(dropped.nIndexesWas, 3);
    const { databases, totalSize } = await conn.client.db("admin").command({ listDatabases: 1 });
    const ours = databases.find((entry: Document) => entry.name === conn.db.databaseName);
    const stats = await conn.db.command({ dbStats: 1 });
    assert.ok(ours.sizeOnDisk > ITEM_BYTES, "at least the documents' bytes");
    assert.equal(ours.sizeOnDisk, stats.totalSize);
    assert.equal(totalSize, databases.reduce((sum: number, entry: Document) => sum + entry.sizeOnDisk, 0));
  });
});

/** A view's definition as MongoDB keeps it in `system.views`. */
function viewDefinition(conn: Connected, name: string): Document {
  const pipeline = name === "items_view" ? [{ $match: { n: 1 } }] : [];
  return { _id: `${conn.db.databaseName}.${name}`, viewOn: "items", pipeline };
}

describe("embedded engine: dbStats of an engine with a data folder", () => {
  test("reports the filesystem's used and total sizes, zeros for a database that does not exist", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "stats-"));
    const conn = await connectTarget("stats_disk", { dataDir });
    try {
      await conn.db.collection<{ _id: number }>("a").insertOne({ _id: 1 });
      const stats = await conn.db.command({ dbStats: 1 }, RAW);
      assert.equal(typeOf(stats.fsUsedSize), "Double");
      assert.ok(Number(stats.fsTotalSize) > 0 && Number(stats.fsUsedSize) <= Number(stats.fsTotalSize));
      const none = await conn.client.db("stats_nowhere").command({ dbStats: 1 });
      assert.equal(none.fsTotalSize, 0);
      const memory = await connectTarget("stats_memory");
      try {
        const inMemory = await memory.db.command({ dbStats: 1 });
        assert.equal("fsTotalSize" in inMemory, false, "an engine in memory has no filesystem to report");
      } finally {
        await memory.close();
      }
    } finally {
      await conn.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
