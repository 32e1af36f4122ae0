import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** createIndexes / listIndexes / dropIndexes, and lookups answered through unique indexes. */
describe("embedded engine: indexes", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("indexes");
  });
  after(async () => {
    await conn.close();
  });

  test("create, list and drop indexes", async () => {
    const c = conn.db.collection("people");
    await c.insertOne({ _id: 1, first: "a", last: "b", age: 3 } as Document);
    assert.equal(await c.createIndex({ age: 1 }), "age_1");
    assert.equal(await c.createIndex({ last: 1, first: -1 }, { unique: true }), "last_1_first_-1");
    assert.equal(await c.createIndex({ age: 1 }), "age_1");
    const list = await c.indexes();
    assert.deepEqual(list.map((i) => [i.name, i.key, i.unique ?? false]), [
      ["_id_", { _id: 1 }, false],
      ["age_1", { age: 1 }, false],
      ["last_1_first_-1", { last: 1, first: -1 }, true],
    ]);
    await c.dropIndex("age_1");
    assert.deepEqual((await c.indexes()).map((i) => i.name), ["_id_", "last_1_first_-1"]);
    await assert.rejects(c.dropIndex("nope"), (e: unknown) => e instanceof MongoServerError && e.code === 27);
    await assert.rejects(c.dropIndex("_id_"), (e: unknown) => e instanceof MongoServerError);
    await c.dropIndexes();
    assert.deepEqual((await c.indexes()).map((i) => i.name), ["_id_"]);
  });

  test("an unknown index option is refused (197); a hidden one too, never ignored", async () => {
    const c = conn.db.collection("options");
    const refusal = (spec: Document) =>
      conn.db.command({ createIndexes: "options", indexes: [{ key: { a: 1 }, name: "a_1", ...spec }] });
    await assert.rejects(
      refusal({ colation: { locale: "en" } }),
      (e: unknown) => e instanceof MongoServerError && e.code === 197,
    );
    if (conn.target.embedded) {
      for (
        const option of [{ hidden: true }]
      ) {
        await assert.rejects(
          refusal(option),
          (e: unknown) => e instanceof MongoServerError && e.code === 238,
          JSON.stringify(option),
        );
      }
    }
    assert.deepEqual((await c.indexes().catch(() => [])).map((i) => i.name).filter((n) => n !== "_id_"), []);
    assert.equal(
      await c.createIndex({ a: 1 }, { sparse: false, background: true, collation: { locale: "en" } }),
      "a_1",
    );
  });

  test("listIndexes on a missing collection is NamespaceNotFound", async () => {
    await assert.rejects(
      conn.db.collection("missing").indexes(),
      (e: unknown) => e instanceof MongoServerError && e.code === 26,
    );
  });

  test("a compound unique index compares the combination", async () => {
    const c = conn.db.collection("pairs");
    await c.createIndex({ a: 1, b: 1 }, { unique: true });
    await c.insertMany([{ _id: 1, a: 1, b: 1 }, { _id: 2, a: 1, b: 2 }, { _id: 3, a: 2, b: 1 }] as Document[]);
    await assert.rejects(c.insertOne({ _id: 4, a: 1, b: 2 } as Document), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 11000);
      assert.deepEqual((e as Document).keyValue, { a: 1, b: 2 });
      return true;
    });
    assert.deepEqual((await c.find({ a: 1, b: 2 }).toArray()).map((d) => d._id), [2]);
    assert.deepEqual((await c.find({ a: 1, b: 3 }).toArray()).map((d) => d._id), []);
  });

  test("numbers of different widths collide in a unique index, as in MongoDB", async () => {
    const c = conn.db.collection("widths");
    await c.createIndex({ n: 1 }, { unique: true });
    await c.insertOne({ _id: 1, n: 5 } as Document);
    await assert.rejects(
      conn.db.command({ insert: "widths", documents: [{ _id: 2, n: 5.0 }] }).then((r) => {
        if (r.writeErrors) throw new MongoServerError(r.writeErrors[0]);
      }),
    );
  });

  test("documents missing a unique field collide on null", async () => {
    const c = conn.db.collection("missing_field");
    await c.createIndex({ code: 1 }, { unique: true });
    await c.insertOne({ _id: 1 } as Document);
    await assert.rejects(
      c.insertOne({ _id: 2 } as Document),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
  });

  test("equality lookups through a unique index return exactly the filter's matches", async () => {
    const c = conn.db.collection("accounts");
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertMany(
      Array.from({ length: 50 }, (_, i) => ({ _id: i, email: `u${i}@x`, active: i % 2 === 0 })) as Document[],
    );
    assert.deepEqual(await c.findOne({ email: "u7@x" }), { _id: 7, email: "u7@x", active: false });
    assert.equal(await c.findOne({ email: "u7@x", active: true }), null);
    assert.equal(await c.countDocuments({ email: "u8@x" }), 1);
    await c.updateOne({ email: "u8@x" }, { $set: { email: "renamed@x" } });
    assert.equal(await c.findOne({ email: "u8@x" }), null);
    assert.equal((await c.findOne({ email: "renamed@x" }))?._id, 8);
    await c.deleteOne({ email: "renamed@x" });
    assert.equal(await c.findOne({ email: "renamed@x" }), null);
  });

  test("non-unique indexes answer equality and $in exactly like a scan, through writes", async () => {
    const indexed = conn.db.collection("comments_indexed");
    const plain = conn.db.collection("comments_plain");
    await indexed.createIndex({ post_id: 1 });
    await indexed.createIndex({ tags: 1, score: -1 });
    const docs = Array.from({ length: 300 }, (_, i) => ({
      _id: i,
      post_id: i % 17,
      tags: i % 3 === 0 ? ["a", "b"] : i % 3 === 1 ? "a" : [],
      score: i % 5,
      ...(i % 11 === 0 ? {} : { maybe: i % 2 }),
    }));
    await indexed.insertMany(docs as Document[]);
    await plain.insertMany(docs as Document[]);
    const filters: Document[] = [
      { post_id: 3 },
      { post_id: { $in: [1, 5, 16, 99] } },
      { post_id: { $in: [] } },
      { post_id: 4, score: 2 },
      { tags: "a", score: { $in: [1, 3] } },
      { tags: { $in: ["b", "zz"] }, score: 0 },
      { post_id: 2.0 },
      { post_id: { $eq: 7 } },
    ];
    const same = async (): Promise<void> => {
      for (const filter of filters) {
        const [a, b] = await Promise.all([indexed.find(filter).toArray(), plain.find(filter).toArray()]);
        assert.deepEqual(a, b, JSON.stringify(filter));
        assert.equal(await indexed.countDocuments(filter), b.length);
        const [pa, pb] = await Promise.all([
          indexed.find(filter, { sort: { _id: -1 }, skip: 1, limit: 3 }).toArray(),
          plain.find(filter, { sort: { _id: -1 }, skip: 1, limit: 3 }).toArray(),
        ]);
        assert.deepEqual(pa, pb);
      }
    };
    await same();
    for (const c of [indexed, plain]) {
      await c.updateMany({ post_id: 3 }, { $set: { post_id: 5, tags: "b" } });
      await c.deleteMany({ post_id: 1 });
      await c.insertOne({ _id: 1000, post_id: 16, tags: ["a"], score: 1 } as Document);
    }
    await same();
  });

  test("multikey unique index: each array element is a key", async () => {
    const c = conn.db.collection("tags");
    await c.createIndex({ tags: 1 }, { unique: true });
    await c.insertOne({ _id: 1, tags: ["a", "b"] } as Document);
    await assert.rejects(
      c.insertOne({ _id: 2, tags: ["c", "b"] } as Document),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
    assert.equal((await c.findOne({ tags: "b" }))?._id, 1);
  });
});
