import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoServerError } from "mongodb";

type Row = Document & { _id: number };
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * Where an operator update puts the fields it creates. Since MongoDB 5.0 every path of an update,
 * whichever operator writes it, goes into one tree that is applied in lexicographic order of
 * field names, so created fields are appended in that order; fields that were there keep their
 * places. An upsert's document starts from the filter's equality fields in path order (the
 * server keeps them in a sorted map), `_id` first. mingo appended fields in the order the update
 * listed them, operator by operator.
 */
describe("embedded engine: the field order of operator updates", () => {
  let conn: Connected;
  let docs: Collection<Row>;

  before(async () => {
    conn = await connectTarget("update_field_order");
    docs = conn.db.collection("docs");
  });
  after(async () => {
    await conn.close();
  });

  /** Updates a fresh `{_id, ...start}` and returns the stored document. */
  const updated = async (id: number, start: Document, update: Document): Promise<Document> => {
    await docs.insertOne({ ...start, _id: id });
    await docs.updateOne({ _id: id }, update);
    return (await docs.findOne({ _id: id }))!;
  };
  const keys = (doc: unknown) => Object.keys(doc as Document);

  test("created fields follow in name order, at every depth, whichever operator wrote them", async () => {
    const one = await updated(1, { m: 1 }, { $set: { z: 1, a: 1, "n.y": 1, "n.b": 2 } });
    assert.deepEqual(keys(one), ["_id", "m", "a", "n", "z"]);
    assert.deepEqual(keys(one.n), ["b", "y"]);
    const two = await updated(2, { m: 1 }, { $inc: { q: 1 }, $set: { c: 1 }, $push: { b: 1 }, $max: { a: 3 } });
    assert.deepEqual(keys(two), ["_id", "m", "a", "b", "c", "q"]);
  });

  test("existing fields keep their places, and a set value keeps its own order", async () => {
    const one = await updated(3, { z: 1, m: 1, n: { y: 1 } }, { $set: { m: 2, a: 1, "n.x": 1, "n.c": 1 } });
    assert.deepEqual(keys(one), ["_id", "z", "m", "n", "a"]);
    assert.deepEqual(keys(one.n), ["y", "c", "x"]);
    const two = await updated(4, {}, { $set: { o: { z: 1, a: 1 } } });
    assert.deepEqual(keys(two.o), ["z", "a"]);
  });

  test("fields named like Object.prototype members are created like any other", async () => {
    const one = await updated(7, { a: 1 }, { $set: { constructor: 5, "n.valueOf": 1 } });
    assert.deepEqual(one, { _id: 7, a: 1, constructor: 5, n: { valueOf: 1 } });
  });

  test("a renamed field is created at its new name's place in the order", async () => {
    const one = await updated(5, { a: 1, z: 1 }, { $rename: { a: "m" }, $set: { b: 1, q: 1 } });
    assert.deepEqual(keys(one), ["_id", "z", "b", "m", "q"]);
  });

  test("an upsert starts from the filter's fields in path order, then the update's in name order", async () => {
    await docs.updateOne({ z: 5, b: 2, "e.y": 1, "e.c": 1 } as Document, { $set: { y: 1, a: 1 } }, { upsert: true });
    const one = (await docs.findOne({ z: 5 }))!;
    assert.deepEqual(keys(one), ["_id", "b", "e", "z", "a", "y"]);
    assert.deepEqual(keys(one.e), ["c", "y"]);
    await docs.updateOne({ _id: 6 }, { $set: { z: 1 }, $setOnInsert: { k: 1, a: 1 } }, { upsert: true });
    assert.deepEqual(keys(await docs.findOne({ _id: 6 })), ["_id", "a", "k", "z"]);
  });

  test("an upsert applies its update whatever else the filter holds, and seeds what MongoDB reads as equalities", async () => {
    const inserted = async (filter: Document, id: number) => {
      await docs.updateOne(filter, { $set: { _id: id, set: true } }, { upsert: true });
      const { _id: _ignored, ...rest } = (await docs.findOne({ _id: id }))!;
      return rest;
    };
    // The new document does not match `{n: {$gt: 1}}`; the update still applies (it was dropped).
    assert.deepEqual(await inserted({ tag: "gt", n: { $gt: 1 } }, 20), { tag: "gt", set: true });
    assert.deepEqual(await inserted({ n: { $in: [5] }, tag: "in" }, 21), { n: 5, set: true, tag: "in" });
    assert.deepEqual(await inserted({ list: [1, 2], tag: "array" }, 22), { list: [1, 2], set: true, tag: "array" });
    assert.deepEqual(await inserted({ $or: [{ tag: "or" }] }, 23), { set: true, tag: "or" });
    assert.deepEqual(await inserted({ $or: [{ tag: "either" }, { tag: "or" }], n: 1 }, 24), { n: 1, set: true });
    // On a stored document, `$set` of the `_id` it has is accepted; of another, refused (66).
    const same = await docs.updateOne({ _id: 24 }, { $set: { _id: 24, again: true } });
    assert.equal(same.modifiedCount, 1);
    await assert.rejects(docs.updateOne({ _id: 24 }, { $set: { _id: 25 } }), (e: MongoServerError) => e.code === 66);
    await assert.rejects(
      docs.updateOne({ _id: 26 }, { $set: { _id: 27 } }, { upsert: true }),
      (e: MongoServerError) => e.code === 66,
    );
  });

  test("an upsert refuses a filter that gives one path two values (54), and a positional $ it cannot resolve", async () => {
    assert.deepEqual(await docs.findOne({ tag: "all" }) ?? null, null);
    await docs.updateOne({ tag: "all", n: { $all: [3] } } as Document, { $set: { _id: 30 } }, { upsert: true });
    assert.deepEqual(await docs.findOne({ _id: 30 }), { _id: 30, n: 3, tag: "all" });
    const twice = (e: MongoServerError) => e.code === 54 && /cannot infer query fields to set/.test(e.message);
    for (
      const filter of [
        { people: { $size: 2, $all: ["u1", "u2"] } },
        { $and: [{ k: 1 }, { k: 2 }] },
        { k: 1, $or: [{ k: 2 }] },
        { k: { x: 1 }, "k.b": 2 },
      ]
    ) {
      await assert.rejects(docs.updateOne(filter as Document, { $set: { z: 1 } }, { upsert: true }), twice);
    }
    await assert.rejects(
      docs.updateOne({ spots: 1 } as Document, { $set: { "spots.$": 5 } }, { upsert: true }),
      (e: MongoServerError) => e.code === 2 && /did not find the match needed from the query/.test(e.message),
    );
  });
});

/**
 * `$push` with `$each`: `$sort` orders whole elements, or their fields, in MongoDB's BSON order
 * (null, numbers of every width by value, strings, documents, arrays, booleans...), where mingo
 * used its own order and only the first sort field; `$sort` and `$slice` apply when the field is
 * created too; malformed modifiers are refused.
 */
describe("embedded engine: $push modifiers", () => {
  let conn: Connected;
  let docs: Collection<Row>;

  before(async () => {
    conn = await connectTarget("push_modifiers");
    docs = conn.db.collection("docs");
  });
  after(async () => {
    await conn.close();
  });

  const pushed = async (id: number, start: Document, push: Document): Promise<unknown> => {
    await docs.insertOne({ ...start, _id: id });
    await docs.updateOne({ _id: id }, { $push: push });
    return (await docs.findOne({ _id: id }))!.list;
  };

  test("whole elements sort in BSON order", async () => {
    const values = [3, "a", null, { a: 1 }, [0], true, 1.5, new Date(0)];
    assert.deepEqual(
      await pushed(1, { list: [] }, { list: { $each: values, $sort: 1 } }),
      [null, 1.5, 3, "a", { a: 1 }, [0], true, new Date(0)],
    );
    assert.deepEqual(
      await pushed(2, { list: ["b"] }, { list: { $each: [2, "c"], $sort: -1, $slice: 2 } }),
      ["c", "b"],
    );
  });

  test("elements sort by every field of a pattern, missing fields as null", async () => {
    const list = [{ k: 2, t: "b" }, { k: "x" }, { k: 1 }, {}, { k: 2, t: "a" }, 7];
    assert.deepEqual(
      await pushed(3, { list }, { list: { $each: [], $sort: { k: -1, t: 1 } } }),
      [{ k: "x" }, { k: 2, t: "a" }, { k: 2, t: "b" }, { k: 1 }, {}, 7],
    );
  });

  test("a field the push creates is sorted and sliced too", async () => {
    assert.deepEqual(await pushed(4, {}, { list: { $each: [5, 1, 4, 2], $sort: 1, $slice: 3 } }), [1, 2, 4]);
  });

  test("malformed modifiers are refused and leave the document as it was", async () => {
    await docs.insertOne({ _id: 10, list: [1] });
    for (
      const modifier of <Document[]> [
        { $each: [2], $sort: 2 },
        { $each: [2], $sort: {} },
        { $each: [2], $sort: { a: "up" } },
        { $each: [2], $sort: "a" },
        { $each: [2], $bad: 1 },
      ]
    ) {
      await assert.rejects(
        docs.updateOne({ _id: 10 }, { $push: { list: modifier } } as Document),
        (error: Error & { code?: number }) => {
          assert.equal(error.code, 2, `${JSON.stringify(modifier)}: ${error.message}`);
          return true;
        },
      );
    }
    assert.deepEqual((await docs.findOne({ _id: 10 }))!.list, [1]);
  });
});
