import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Collection, type Document, MongoServerError } from "mongodb";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { parseCollation } from "../../src/embedded/store/collation.ts";
import { type Connected, connectTarget } from "./helpers.ts";

/** Documents with plain numeric ids. */
type Doc = { _id: number; [field: string]: unknown };

interface Word {
  _id: number;
  w: string;
  n: number;
  seen?: boolean;
}

const EN_CI = { locale: "en", strength: 2 };

/**
 * Collation together with what a 7.0 server adds around it: `let`, the strict field lists,
 * views, `$merge`/`$out`, validators, and the catalog that keeps them across a restart.
 */
describe("embedded engine: collation with let, views, $out/$merge and validators", () => {
  let conn: Connected;
  let words: Collection<Word>;

  before(async () => {
    conn = await connectTarget("collation_fidelity");
    words = conn.db.collection<Word>("words");
    await words.insertMany([
      { _id: 1, w: "ping", n: 1 },
      { _id: 2, w: "PING", n: 2 },
      { _id: 3, w: "Ping", n: 3 },
      { _id: 4, w: "pong", n: 4 },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  async function failure(promise: Promise<unknown>): Promise<MongoServerError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`);
    return error;
  }

  const ids = (docs: Document[]) => docs.map((d) => d._id).sort();
  /** Case-insensitive on `w`, and `n` at least the `let` variable `min`. */
  const filter = { w: "PING", $expr: { $gte: ["$n", "$$min"] } };

  test("every command that defines collation and let accepts both together", async () => {
    const options = { collation: EN_CI, let: { min: 2 } };
    assert.deepEqual(ids(await words.find(filter, options).toArray()), [2, 3]);
    assert.deepEqual(ids(await words.aggregate([{ $match: filter }], options).toArray()), [2, 3]);
    assert.equal((await conn.db.command({ count: "words", query: { w: "PING" }, collation: EN_CI })).n, 3);
    assert.equal(
      (await conn.db.command({ distinct: "words", key: "w", query: { w: "PONG" }, collation: EN_CI })).values.length,
      1,
    );
    const found = await words.findOneAndUpdate(filter, { $set: { seen: true } }, { ...options, sort: { n: -1 } });
    assert.equal(found?._id, 3);
    assert.equal((await words.updateMany(filter, { $inc: { n: 10 } }, options)).modifiedCount, 2);
    assert.equal(
      (await words.deleteMany({ w: "PONG", $expr: { $eq: ["$n", "$$four"] } }, { collation: EN_CI, let: { four: 4 } }))
        .deletedCount,
      1,
    );
    await words.insertOne({ _id: 4, w: "pong", n: 4 });
    await words.updateMany({}, [{ $set: { n: "$_id" } }]);
    for (
      const explained of [
        { find: "words", filter: { w: "PING" }, collation: EN_CI },
        { count: "words", query: { w: "PING" }, collation: EN_CI },
        { aggregate: "words", pipeline: [{ $match: { w: "PING" } }], cursor: {}, collation: EN_CI },
      ]
    ) {
      assert.equal((await conn.db.command({ explain: explained, verbosity: "queryPlanner" })).ok, 1);
    }
    await conn.db.createCollection("ci_made", { collation: EN_CI });
    await conn.db.collection("ci_made").createIndex({ w: 1 }, { collation: { locale: "fr" } });
    const unknown = await failure(conn.db.command({ find: "words", filter: {}, collation: EN_CI, colation: EN_CI }));
    assert.equal(unknown.code, 40415);
  });

  test("explain plans a count under its collation and binds a find's or an aggregate's let", async () => {
    const indexed = conn.db.collection<Word>("indexed_words");
    await indexed.insertMany([{ _id: 1, w: "a", n: 1 }, { _id: 2, w: "A", n: 2 }]);
    await indexed.createIndex({ w: 1 });
    const stagesOf = (plan: Document): string[] => [plan.stage, ...(plan.inputStage ? stagesOf(plan.inputStage) : [])];
    const count = (extra: Document) =>
      conn.db.command({
        explain: { count: "indexed_words", query: { w: "a" }, ...extra },
        verbosity: "executionStats",
      });
    assert.ok(stagesOf((await count({})).queryPlanner.winningPlan).includes("COUNT_SCAN"));
    // A binary index cannot count case-insensitively: the plan must not claim it does.
    const collated = await count({ collation: EN_CI });
    assert.ok(
      !stagesOf(collated.queryPlanner.winningPlan).includes("COUNT_SCAN"),
      JSON.stringify(collated.queryPlanner.winningPlan),
    );
    const find = { find: "indexed_words", filter: { $expr: { $eq: ["$n", "$$x"] } }, let: { x: 2 } };
    assert.equal((await conn.db.command({ explain: find, verbosity: "executionStats" })).executionStats.nReturned, 1);
    const aggregate = {
      aggregate: "indexed_words",
      pipeline: [{ $match: { $expr: { $lte: ["$n", "$$x"] } } }, { $project: { x: "$$x" } }],
      let: { x: 2 },
      cursor: {},
    };
    assert.equal((await conn.db.command({ explain: aggregate, verbosity: "executionStats" })).ok, 1);
    if (conn.target.embedded) {
      await conn.db.createCollection("indexed_view", { viewOn: "indexed_words", pipeline: [] });
      const refused = await failure(conn.db.command({ explain: { find: "indexed_view", filter: {} } }));
      assert.match(refused.message, /explain over a view is not supported/);
    }
  });

  test("a view reads under its own collation, not its source's, and refuses another", async () => {
    await conn.db.createCollection("ci_words", {
      viewOn: "words",
      pipeline: [{ $project: { seen: 0 } }],
      collation: EN_CI,
    });
    const view = conn.db.collection<Doc>("ci_words");
    assert.deepEqual(ids(await view.find({ w: "ping" }).toArray()), [1, 2, 3]);
    assert.equal(await view.countDocuments({ w: "ping" }), 3);
    assert.equal((await conn.db.command({ count: "ci_words", query: { w: "ping" } })).n, 3);
    assert.deepEqual(ids(await view.find({ w: "ping" }, { collation: EN_CI }).toArray()), [1, 2, 3]);
    assert.equal((await failure(view.find({ w: "ping" }, { collation: { locale: "fr" } }).toArray())).code, 167);
    const [info] = await conn.db.listCollections({ name: "ci_words" }).toArray();
    assert.equal((info as Document).options.collation.locale, "en");
    assert.equal((info as Document).options.collation.strength, 2);

    await conn.db.createCollection("ci_source", { collation: EN_CI });
    await conn.db.collection<Doc>("ci_source").insertMany([{ _id: 1, w: "ping" }, { _id: 2, w: "PING" }]);
    assert.equal(await conn.db.collection("ci_source").countDocuments({ w: "ping" }), 2);
    // A view does not inherit its source collection's default collation.
    await conn.db.createCollection("binary_view", { viewOn: "ci_source", pipeline: [] });
    assert.deepEqual(ids(await conn.db.collection<Doc>("binary_view").find({ w: "ping" }).toArray()), [1]);
    // A view on a view (or joining one) must have that view's collation.
    assert.equal(
      (await failure(
        conn.db.createCollection("ci_on_binary", { viewOn: "binary_view", pipeline: [], collation: EN_CI }),
      )).code,
      167,
    );
    const join = [{ $lookup: { from: "ci_words", localField: "w", foreignField: "w", as: "same" } }];
    assert.equal(
      (await failure(conn.db.createCollection("binary_join", { viewOn: "words", pipeline: join }))).code,
      167,
    );
    await conn.db.createCollection("ci_on_ci", { viewOn: "ci_words", pipeline: [], collation: EN_CI });
    assert.equal(await conn.db.collection("ci_on_ci").countDocuments({ w: "PING" }), 3);
    await conn.db.command({ collMod: "ci_on_ci", viewOn: "ci_words", pipeline: [{ $match: { n: { $gt: 1 } } }] });
    assert.equal(
      await conn.db.collection("ci_on_ci").countDocuments({ w: "PING" }),
      2,
      "collMod keeps the view's collation",
    );
  });

  test("$merge matches under the aggregate's collation, on a unique index with that collation", async () => {
    const accounts = conn.db.collection<Doc>("accounts");
    await accounts.createIndex({ name: 1 }, { unique: true, collation: EN_CI });
    await accounts.insertOne({ _id: 1, name: "Ann", n: 1 });
    await conn.db.collection<Doc>("incoming").insertMany([{ _id: 7, name: "ANN", n: 5 }, { _id: 8, name: "bo", n: 6 }]);
    const merge = { $merge: { into: "accounts", on: "name", whenMatched: "merge", whenNotMatched: "insert" } };
    const binary = await failure(conn.db.collection("incoming").aggregate([{ $project: { _id: 0 } }, merge]).toArray());
    assert.equal(binary.code, 51183, "the only unique index on name orders strings under en/2, not in binary");
    await conn.db.collection("incoming").aggregate([{ $project: { _id: 0 } }, merge], { collation: EN_CI }).toArray();
    const merged = await accounts.find({}, { projection: { _id: 0 } }).sort({ n: 1 }).toArray();
    assert.deepEqual(merged, [{ name: "ANN", n: 5 }, { name: "bo", n: 6 }]);
  });

  test("a validator compares strings under the collection's collation; $out keeps both", async () => {
    await conn.db.createCollection("tickets", { collation: EN_CI, validator: { status: { $in: ["open", "closed"] } } });
    const tickets = conn.db.collection<Doc>("tickets");
    await tickets.insertOne({ _id: 1, status: "OPEN" });
    const refused = await failure(tickets.insertOne({ _id: 2, status: "pending" }));
    assert.equal(refused.code, 121);
    await conn.db.collection<Doc>("closing").insertMany([{ _id: 1, status: "Closed" }, { _id: 2, status: "CLOSED" }]);
    await conn.db.collection("closing").aggregate([{ $out: "tickets" }]).toArray();
    assert.equal(await tickets.countDocuments({ status: "closed" }), 2, "$out keeps the target's default collation");
    const [info] = await conn.db.listCollections({ name: "tickets" }).toArray();
    assert.equal((info as Document).options.collation.strength, 2);
    assert.ok((info as Document).options.validator);
    await conn.db.collection<Doc>("bad_closing").insertOne({ _id: 3, status: "lost" });
    assert.equal(
      (await failure(conn.db.collection("bad_closing").aggregate([{ $out: "tickets" }]).toArray())).code,
      121,
    );
    assert.equal(await tickets.countDocuments(), 2);
  });

  test("collations, views and validators survive a restart on a data folder", async (t) => {
    if (!conn.target.embedded) return t.skip("engine durability");
    const dataDir = await mkdtemp(join(tmpdir(), "collation-fidelity-"));
    try {
      let restarted = await connectTarget("collation_fidelity_recovery", { dataDir });
      await restarted.db.createCollection("tags", { collation: EN_CI, validator: { t: { $type: "string" } } });
      await restarted.db.command({ collMod: "tags", validator: { t: { $in: ["red", "blue"] } } });
      await restarted.db.collection<Doc>("tags").insertMany([{ _id: 1, t: "Red" }, { _id: 2, t: "BLUE" }]);
      await restarted.db.createCollection("ci_tags", { viewOn: "tags", pipeline: [], collation: EN_CI });
      await restarted.close();
      restarted = await connectTarget("collation_fidelity_recovery", { dataDir });
      const tags = restarted.db.collection<Doc>("tags");
      assert.equal(await tags.countDocuments({ t: "red" }), 1);
      assert.equal((await failure(tags.insertOne({ _id: 3, t: "green" }))).code, 121);
      await tags.insertOne({ _id: 4, t: "RED" });
      assert.equal(await restarted.db.collection("ci_tags").countDocuments({ t: "red" }), 2);
      await restarted.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("a snapshot of the catalog replays the default collation with the view and validator options", () => {
    const collation = parseCollation(EN_CI)!.spec;
    const source = new Catalog();
    source.create("db", "c", { collation, validator: { a: { $type: "string" } } });
    source.applyChange({
      op: "setOptions",
      db: "db",
      coll: "c",
      options: { collation, validator: { a: { $in: ["x"] } } },
    });
    source.create("db", "v", { collation, viewOn: "c", pipeline: [] });
    const replayed = new Catalog();
    for (const change of source.dump()) replayed.applyChange(change);
    assert.deepEqual(replayed.get("db", "c")!.options, { collation, validator: { a: { $in: ["x"] } } });
    assert.equal(replayed.get("db", "c")!.collation?.key, parseCollation(EN_CI)!.key);
    assert.deepEqual(replayed.get("db", "v")!.options, { collation, viewOn: "c", pipeline: [] });
  });
});
