import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, MongoServerError } from "mongodb";
import { validateCommands } from "../../src/embedded/commands/validate.ts";
import type { CommandContext } from "../../src/embedded/commands/context.ts";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { checkCollection } from "../../src/embedded/store/collection-check.ts";
import type { Collection } from "../../src/embedded/store/collection.ts";
import type { OrderedIndex } from "../../src/embedded/store/ordered-index.ts";
import { type Connected, connectTarget } from "./helpers.ts";

function indexNamed(coll: Collection, name: string): OrderedIndex {
  const index = [...coll.orderedIndexes()].find((candidate) => candidate.spec.name === name);
  assert.ok(index, name);
  return index;
}

/** A collection of 30 documents with a plain, a compound and a multikey index. */
function sample(catalog = new Catalog()): Collection {
  const coll = catalog.create("validate", "sample");
  for (let i = 0; i < 30; i++) coll.put({ _id: i, a: i % 4, b: `b${i}`, tags: [`t${i % 3}`, `u${i % 2}`] });
  coll.addIndex({ name: "a_1", key: { a: 1 } });
  coll.addIndex({ name: "a_1_b_-1", key: { a: 1, b: -1 } });
  coll.addIndex({ name: "tags_1", key: { tags: 1 } });
  return coll;
}

describe("checkCollection: indexes against documents", () => {
  test("a consistent collection has no problems, and counts every key of a multikey index", () => {
    const check = checkCollection(sample());
    assert.equal(check.records, 30);
    assert.deepEqual(Object.fromEntries(check.keysPerIndex), { _id_: 30, a_1: 30, "a_1_b_-1": 30, tags_1: 60 });
    assert.deepEqual(check.errors, []);
    assert.equal(check.invalidIndexes.size, 0);
  });

  test("an entry removed behind the index's back is missing; one a document does not produce is extra", () => {
    const coll = sample();
    indexNamed(coll, "a_1").entries.remove([2], 6);
    const tags = indexNamed(coll, "tags_1");
    const number = coll.docs.numbers()[coll.docs.numbers().length - 1];
    tags.entries.insert(["zz"], number, coll.docs.table.id(number));
    const check = checkCollection(coll);
    assert.deepEqual(check.missingIndexEntries, [{ indexName: "a_1", idKey: { _id: 6 }, indexKey: { a: 2 } }]);
    assert.deepEqual(check.extraIndexEntries, [{ indexName: "tags_1", idKey: { _id: 29 }, indexKey: { tags: "zz" } }]);
    assert.deepEqual([...check.invalidIndexes].sort(), ["a_1", "tags_1"]);
    assert.ok(check.errors.includes("Detected 1 missing index entries."), check.errors.join("; "));
    assert.ok(check.errors.includes("Detected 1 extra index entries."));
    assert.equal(check.keysPerIndex.get("a_1"), 29);
  });

  test("an entry naming a document no longer stored is extra, not a crash; a flat index holding one twice is invalid", () => {
    const coll = sample();
    const a = indexNamed(coll, "a_1");
    coll.docs.delete(5); // the document goes; its index entries stay behind
    const check = checkCollection(coll);
    assert.ok(check.invalidIndexes.has("a_1"));
    assert.ok(check.extraCount >= 1, JSON.stringify(check.extraIndexEntries));
    assert.ok(!a.multikey);
    const twice = sample();
    const n = twice.docs.numberOf(3)!;
    indexNamed(twice, "a_1").entries.insert([3], n, 3);
    assert.deepEqual([...checkCollection(twice).invalidIndexes], ["a_1"]);
  });

  test('a multikey index under a case-insensitive collation holds one key for "a" and "A", and checks out', () => {
    const coll = new Catalog().create("validate", "collated");
    coll.put({ _id: 1, t: ["a", "A", "b"] });
    coll.put({ _id: 2, t: ["B", "c"] });
    coll.addIndex({ name: "t_1", key: { t: 1 }, collation: { locale: "en", strength: 2 } });
    const check = checkCollection(coll);
    assert.deepEqual(check.errors, []);
    assert.equal(check.keysPerIndex.get("t_1"), 4, "a, b for the first; b, c for the second");
  });

  test("a stale index is invalid even when its entries look right", () => {
    const coll = sample();
    indexNamed(coll, "a_1_b_-1").stale = true;
    assert.deepEqual([...checkCollection(coll).invalidIndexes], ["a_1_b_-1"]);
  });

  test("validate with repair builds inconsistent indexes again and reports what it found as warnings", () => {
    const catalog = new Catalog();
    const coll = sample(catalog);
    indexNamed(coll, "a_1").entries.remove([3], 7);
    const ctx = (body: Document) => ({ engine: { catalog }, db: "validate", body }) as unknown as CommandContext;
    const broken = validateCommands.validate(ctx({ validate: "sample" })) as Document;
    assert.equal(broken.valid, false);
    assert.equal(broken.repaired, false);
    assert.deepEqual(broken.indexDetails.a_1, { valid: false });
    coll.usage.usedIndex("a_1");
    const order = coll.allIndexes().map((spec) => spec.name);
    const repaired = validateCommands.validate(ctx({ validate: "sample", repair: 1 })) as Document;
    assert.equal(repaired.valid, true);
    assert.equal(repaired.repaired, true);
    assert.deepEqual(repaired.errors, []);
    assert.ok(repaired.warnings.includes("Repaired: Detected 1 missing index entries."), repaired.warnings.join("; "));
    assert.ok(indexNamed(coll, "a_1").entries.has([3], 7));
    assert.deepEqual(coll.allIndexes().map((spec) => spec.name), order, "rebuilt in place");
    assert.equal(coll.usage.accesses("a_1")?.ops, 1, "its usage kept");
  });
});

/** The validate command through the driver, as MongoDB 7.0 answers it. */
describe("embedded engine: validate", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("validate");
  });
  after(() => conn.close());

  test("a consistent collection is valid, with its records and each index's keys", async () => {
    const c = conn.db.collection<{ _id: number; a: number; tags: string[] }>("good");
    await c.insertMany(Array.from({ length: 12 }, (_, i) => ({ _id: i, a: i % 3, tags: ["x", `y${i}`] })));
    await c.createIndex({ a: 1 });
    await c.createIndex({ tags: 1 });
    await c.deleteOne({ _id: 0 });
    await c.updateOne({ _id: 1 }, { $set: { a: 9, tags: ["z"] } });
    const result = await conn.db.command({ validate: "good", full: true });
    assert.deepEqual(Object.keys(result), [
      "ns",
      "nInvalidDocuments",
      "nNonCompliantDocuments",
      "nrecords",
      "nIndexes",
      "keysPerIndex",
      "indexDetails",
      "valid",
      "repaired",
      "warnings",
      "errors",
      "extraIndexEntries",
      "missingIndexEntries",
      "corruptRecords",
      "ok",
    ]);
    assert.equal(result.ns, `${conn.db.databaseName}.good`);
    assert.equal(result.nrecords, 11);
    assert.equal(result.nIndexes, 3);
    assert.deepEqual(result.keysPerIndex, { _id_: 11, a_1: 11, tags_1: 21 });
    assert.deepEqual(result.indexDetails, { _id_: { valid: true }, a_1: { valid: true }, tags_1: { valid: true } });
    assert.equal(result.valid, true);
    assert.deepEqual(result.errors, []);
  });

  test("documents that break a validator added later are counted: an error, a warning, or nothing, as it is set", async () => {
    const c = conn.db.collection<{ _id: number; age: unknown }>("people");
    await c.insertMany([{ _id: 1, age: 30 }, { _id: 2, age: "old" }, { _id: 3, age: -1 }]);
    const message = "Detected one or more documents not compliant with the collection's schema.";
    await conn.db.command({ collMod: "people", validator: { age: { $type: "number", $gte: 0 } } });
    const refused = await conn.db.command({ validate: "people" });
    assert.equal(refused.nNonCompliantDocuments, 2);
    assert.deepEqual([refused.valid, refused.errors, refused.warnings], [false, [message], []]);
    await conn.db.command({ collMod: "people", validationAction: "warn" });
    const warned = await conn.db.command({ validate: "people" });
    assert.deepEqual([warned.valid, warned.errors, warned.warnings], [true, [], [message]]);
    await conn.db.command({ collMod: "people", validationLevel: "off" });
    const off = await conn.db.command({ validate: "people" });
    assert.deepEqual([off.nNonCompliantDocuments, off.valid, off.warnings], [0, true, []]);
  });

  test("a collated multikey index is valid, and answers each document once", async () => {
    const c = conn.db.collection<{ _id: number; t: string[] }>("collated");
    await c.insertMany([{ _id: 1, t: ["a", "A", "b"] }, { _id: 2, t: ["B"] }]);
    const collation = { locale: "en", strength: 2 };
    await c.createIndex({ t: 1 }, { collation });
    const result = await conn.db.command({ validate: "collated" });
    assert.deepEqual([result.valid, result.keysPerIndex.t_1], [true, 3]);
    assert.deepEqual((await c.find({ t: "A" }, { collation }).toArray()).map((doc) => doc._id), [1]);
    assert.equal(await c.countDocuments({ t: "b" }, { collation }), 2);
  });

  test("a missing collection and a view are refused as MongoDB refuses them", async () => {
    await assert.rejects(conn.db.command({ validate: "nothing" }), (error: unknown) => {
      assert.ok(error instanceof MongoServerError);
      assert.equal(error.code, 26);
      assert.equal(error.message, `Collection '${conn.db.databaseName}.nothing' does not exist to validate.`);
      return true;
    });
    await conn.db.createCollection("good_view", { viewOn: "good", pipeline: [] });
    await assert.rejects(conn.db.command({ validate: "good_view" }), (error: unknown) => {
      assert.ok(error instanceof MongoServerError);
      assert.equal(error.code, 166);
      assert.equal(error.message, "Cannot validate a view");
      return true;
    });
  });
});
