import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; [field: string]: unknown };

/** Malformed filters get MongoDB's errors; `$comment` is ignored; arrays compare whole against an array. */
describe("embedded engine: filters MongoDB refuses, and what it accepts", () => {
  let conn: Connected;
  let docs: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("filter_checks");
    docs = conn.db.collection<Doc>("docs");
    await docs.insertMany([
      { _id: 1, a: [1, 2, 3], s: "Hello", n: 5 },
      { _id: 2, a: [], s: "world", n: 10 },
      { _id: 3, a: [[1, 2]], n: -1 },
      { _id: 4, a: [{ k: 1 }], sub: [{ b: 5 }, { b: 6 }] },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const ids = async (filter: Document) => (await docs.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);

  test("malformed $size, $mod, $regex and $and/$or/$nor are refused with MongoDB's messages", async () => {
    const cases: [Document, number, RegExp][] = [
      [{ a: { $size: -1 } }, 2, /^\$size may not be negative$/],
      [{ a: { $size: "1" } }, 2, /^\$size needs a number$/],
      [{ a: { $size: 1.5 } }, 2, /^\$size must be a whole number$/],
      [{ n: { $mod: [0, 0] } }, 2, /^divisor cannot be 0$/],
      [{ n: { $mod: [5] } }, 2, /^malformed mod, not enough elements$/],
      [{ n: { $mod: [5, 1, 2] } }, 2, /^malformed mod, too many elements$/],
      [{ n: { $mod: 5 } }, 2, /^malformed mod, needs to be an array$/],
      [{ n: { $not: { $mod: ["x", 1] } } }, 2, /^malformed mod, divisor not a number$/],
      [{ s: { $regex: "(" } }, 51091, /^Regular expression is invalid: /],
      [{ s: { $regex: "a", $options: "z" } }, 51108, /^invalid flag in regex options: z$/],
      [{ $and: [] }, 2, /^\$and\/\$or\/\$nor must be a nonempty array$/],
      [{ $or: [{ n: 5 }, 3] }, 2, /^\$or\/\$and\/\$nor entries need to be full objects$/],
      [{ $nor: { n: 5 } }, 2, /^\$nor must be an array$/],
      [{ $or: [{ $and: [] }] }, 2, /nonempty array/],
    ];
    for (const [filter, code, message] of cases) {
      await assert.rejects(docs.find(filter).toArray(), (e: MongoServerError) => {
        assert.equal(e.code, code, `${JSON.stringify(filter)}: ${e.message}`);
        assert.match(e.message, message);
        return true;
      });
    }
  });

  test("a top-level $comment is ignored, as MongoDB ignores it", async () => {
    assert.deepEqual(await ids({ $comment: "why this query runs", n: { $gt: 0 } }), [1, 2]);
    assert.deepEqual(await ids({ $or: [{ n: 5, $comment: "inner" }, { n: -1 }] }), [1, 3]);
    const notes = conn.db.collection<Doc>("notes");
    await notes.insertOne({ _id: 1, list: [1, 2] });
    await notes.updateOne({ _id: 1, list: 2, $comment: "positional" }, { $set: { "list.$": 20 } });
    await notes.updateOne({ _id: 2, $comment: "upsert" }, { $set: { n: 1 } }, { upsert: true });
    assert.deepEqual(await notes.find().sort({ _id: 1 }).toArray(), [{ _id: 1, list: [1, 20] }, { _id: 2, n: 1 }]);
  });

  test("a dotted path does not descend into an array directly inside an array, with or without an index", async () => {
    const nested = conn.db.collection<Doc>("nested");
    await nested.insertMany([
      { _id: 1, a: [[1, 2]] },
      { _id: 2, a: [{ k: 2 }] },
      { _id: 3, a: [{ k: [2, 3] }] },
      { _id: 4, a: { k: [[2]] } },
      { _id: 5, a: [{ k: 1 }, [{ k: 2 }]] },
    ]);
    const found = async (filter: Document) => (await nested.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    for (const indexed of [false, true]) {
      if (indexed) await nested.createIndex({ "a.k": 1 });
      const label = indexed ? "with an index" : "without an index";
      assert.deepEqual(await found({ "a.k": 2 }), [2, 3], label);
      assert.deepEqual(await found({ "a.k": { $gte: 2 } }), [2, 3], label);
      assert.deepEqual(await found({ "a.k": { $in: [2, 9] } }), [2, 3], label);
      assert.deepEqual(await found({ "a.k": { $ne: 2 } }), [1, 4, 5], label);
      assert.deepEqual(await found({ "a.k": [2] }), [4], `${label}: a leaf array's element that is an array`);
    }
  });

  test("against an array, an array field compares whole and by its array elements", async () => {
    // [1, 2, 3] > [1] whole; [[1, 2]] holds [1, 2] > [1]; [{k: 1}] > [1] (an object ranks above a number)
    assert.deepEqual(await ids({ a: { $gt: [1] } }), [1, 3, 4]);
    assert.deepEqual(await ids({ a: { $lt: [1] } }), [2]);
    assert.deepEqual(await ids({ "sub.b": { $gt: [1] } }), [], "a dotted path's values are not one array");
  });
});
