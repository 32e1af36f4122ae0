import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget, withCode } from "./helpers.ts";

/**
 * The positional `$` names the element MongoDB's matcher recorded: each leaf of the query's AND
 * records the first element of its array it matched, and the last leaf in the normalised order
 * (by match type, then path) wins. The engine handed these filters to mingo, which refused a
 * `$` whose array sat in `$and` or under a dotted path ("You must include the array field").
 */
describe("embedded engine: positional $ updates", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("positional_updates");
  });
  after(async () => {
    await conn.close();
  });

  async function updated(doc: Document, filter: Document, update: Document): Promise<Document | null> {
    const coll = conn.db.collection<Document>("p");
    await coll.deleteMany({});
    await coll.insertOne(doc);
    await coll.updateOne(filter, update);
    return await coll.findOne({}, { projection: { _id: 0 } });
  }

  test("a condition on a dotted path through the array", async () => {
    const doc = { _id: 1, a: [{ x: 0 }, { x: 1 }, { x: 1 }] };
    assert.deepEqual(await updated(doc, { "a.x": 1 }, { $set: { "a.$.z": 9 } }), {
      a: [{ x: 0 }, { x: 1, z: 9 }, { x: 1 }],
    });
  });

  test("a condition inside $and (and a one-branch $or)", async () => {
    const doc = { _id: 1, a: [{ x: 0 }, { x: 1 }] };
    assert.deepEqual(await updated(doc, { $and: [{ "a.x": 1 }] }, { $set: { "a.$.z": 9 } }), {
      a: [{ x: 0 }, { x: 1, z: 9 }],
    });
    assert.deepEqual(await updated(doc, { $and: [{ _id: 1 }, { $or: [{ "a.x": 1 }] }] }, { $inc: { "a.$.x": 5 } }), {
      a: [{ x: 0 }, { x: 6 }],
    });
  });

  test("two conditions on one array: the later path in the normalised order names the element", async () => {
    const first = { _id: 1, a: [{ x: 1, y: 0 }, { x: 1, y: 2 }] };
    assert.deepEqual(await updated(first, { "a.x": 1, "a.y": 2 }, { $set: { "a.$.z": 9 } }), {
      a: [{ x: 1, y: 0 }, { x: 1, y: 2, z: 9 }],
    });
    // a.x matches element 1, a.y element 0: a.y sorts after a.x, so element 0 is the one.
    const second = { _id: 1, a: [{ x: 0, y: 2 }, { x: 1, y: 2 }] };
    assert.deepEqual(await updated(second, { "a.y": 2, "a.x": 1 }, { $set: { "a.$.z": 9 } }), {
      a: [{ x: 0, y: 2, z: 9 }, { x: 1, y: 2 }],
    });
  });

  test("$elemMatch names the element it matched, beside a condition elsewhere", async () => {
    const doc = { _id: 1, tag: "t", a: [{ x: 1, y: 1 }, { x: 1, y: 2 }] };
    const filter = { tag: "t", a: { $elemMatch: { x: 1, y: 2 } } };
    assert.deepEqual(await updated(doc, filter, { $set: { "a.$.y": 3 } }), {
      tag: "t",
      a: [{ x: 1, y: 1 }, { x: 1, y: 3 }],
    });
  });

  test("a query that matched no array element refuses the $ with code 2", async () => {
    const coll = conn.db.collection<Document>("p");
    await coll.deleteMany({});
    await coll.insertOne({ _id: 1, a: [{ x: 1 }] } as Document);
    await assert.rejects(coll.updateOne({ _id: 1 } as Document, { $set: { "a.$.x": 2 } }), (error: Document) => {
      withCode(2)(error);
      assert.equal(error.message, "The positional operator did not find the match needed from the query.");
      return true;
    });
    assert.deepEqual(await coll.findOne({}), { _id: 1, a: [{ x: 1 }] });
  });
});
