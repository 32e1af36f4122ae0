import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget, externalUri } from "./helpers.ts";

/** A small document limit keeps the oversize cases cheap; MongoDB's own is 16 MiB. */
const MAX = 256 * 1024;

/** A string field filling most of a document, so two of them exceed {@link MAX}. */
const BIG = "x".repeat(MAX * 0.6);

function serverError(code: number, message: RegExp) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof MongoServerError, `expected a server error, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  };
}

/** A document `levels` deep: each level holds the next under `d`, down to `leaf`. */
/** MongoDB 7.0's nesting limit for stored documents: maxBSONDepth 200, less 20 levels kept for the server. */
const MAX_DEPTH = 180;

function nested(levels: number, leaf: Document = { x: 1 }): Document {
  let doc = leaf;
  for (let i = 1; i < levels; i++) doc = { d: doc };
  return doc;
}

/** Document limits: what MongoDB refuses to store, the engine refuses too. */
describe("embedded engine: document limits", {
  skip: externalUri !== undefined && "needs the engine's configurable limit",
}, () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("limits", { maxBsonObjectSize: MAX });
  });
  after(async () => {
    await conn.close();
  });

  test("buildInfo and hello report the configured maxBsonObjectSize", async () => {
    const info = await conn.client.db("admin").command({ buildInfo: 1 });
    const hello = await conn.client.db("admin").command({ hello: 1 });
    assert.equal(info.maxBsonObjectSize, MAX);
    assert.equal(hello.maxBsonObjectSize, MAX);
  });

  test("an update, findAndModify or upsert whose result exceeds the limit is refused and changes nothing", async () => {
    const c = conn.db.collection("size");
    await c.insertOne({ _id: 1, a: BIG } as Document);
    const tooLarge = serverError(10334, /Resulting document after update is larger than 262144/);
    await assert.rejects(c.updateOne({ _id: 1 } as Document, { $set: { b: BIG } }), tooLarge);
    await assert.rejects(c.updateOne({ _id: 1 } as Document, [{ $set: { b: "$a" } }]), tooLarge);
    await assert.rejects(c.findOneAndUpdate({ _id: 1 } as Document, { $set: { b: BIG } }), tooLarge);
    const growing = [{ $set: { a: BIG } }, { $set: { b: "$a" } }];
    await assert.rejects(c.updateOne({ _id: 2 } as Document, growing, { upsert: true }), tooLarge);
    await assert.rejects(c.findOneAndUpdate({ _id: 3 } as Document, growing, { upsert: true }), tooLarge);
    const all = await c.find().toArray();
    assert.deepEqual(all, [{ _id: 1, a: BIG }]);
    await c.updateOne({ _id: 1 } as Document, { $set: { b: "fits" } });
    assert.equal((await c.findOne({ _id: 1 } as Document))?.b, "fits");
  });

  test("documents nested deeper than 180 levels (MongoDB 7.0's storage depth) are refused on insert and update (Overflow, 15)", async () => {
    const c = conn.db.collection("depth");
    await c.insertOne({ _id: 1, ...nested(MAX_DEPTH) } as Document);
    // Empty documents and arrays add no level: this one is MAX_DEPTH levels deep.
    await c.insertOne({ _id: 2, ...nested(MAX_DEPTH, { x: {}, y: [] }) } as Document);
    await assert.rejects(
      c.insertOne({ _id: 3, ...nested(MAX_DEPTH + 1) } as Document),
      serverError(15, /exceeds 180 levels of nesting/),
    );
    const batch = await conn.db.command({
      insert: "depth",
      ordered: false,
      documents: [{ _id: 4, d: nested(MAX_DEPTH + 50) }, { _id: 5 }],
    });
    assert.equal(batch.n, 1);
    assert.deepEqual(batch.writeErrors.map((e: Document) => [e.index, e.code]), [[0, 15]]);
    await assert.rejects(
      c.updateOne({ _id: 5 } as Document, { $set: { d: nested(MAX_DEPTH) } }),
      serverError(15, /^Document exceeds maximum nesting depth of 180$/),
    );
    const innermost = "d.".repeat(MAX_DEPTH - 1);
    await assert.rejects(
      c.updateOne({ _id: 2 } as Document, { $set: { [innermost + "x"]: { z: 1 } } }),
      serverError(15, /^Document exceeds maximum nesting depth of 180$/),
    );
    await assert.rejects(
      c.updateOne({ _id: 2 } as Document, { $push: { [innermost + "y"]: [] } } as Document),
      serverError(15, /^Document exceeds maximum nesting depth of 180$/),
    );
    await c.updateOne({ _id: 2 } as Document, { $set: { [innermost + "z"]: 1 } });
    assert.deepEqual((await c.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id), [1, 2, 5]);
    assert.deepEqual(await c.findOne({ _id: 5 } as Document), { _id: 5 });
  });

  test("field names with a NUL byte are refused as BadValue, and the collection stays readable", async () => {
    const c = conn.db.collection("nul");
    await c.insertOne({ _id: 1, a: 1 } as Document);
    const nul = serverError(2, /NUL byte/);
    await assert.rejects(c.updateOne({ _id: 1 } as Document, { $rename: { a: "x\u0000y" } }), nul);
    await assert.rejects(c.findOneAndUpdate({ _id: 1 } as Document, { $rename: { a: "x\u0000y" } }), nul);
    const withNul = [{ $replaceWith: { $arrayToObject: [[["p\u0000q", 1]]] } }];
    await assert.rejects(c.updateOne({ _id: 1 } as Document, withNul), nul);
    await assert.rejects(c.updateOne({ _id: 2 } as Document, withNul, { upsert: true }), nul);
    assert.deepEqual(await c.find().toArray(), [{ _id: 1, a: 1 }]);
  });
});
