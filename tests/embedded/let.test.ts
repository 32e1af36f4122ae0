import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

interface Item {
  _id: number;
  name: string;
  stock: number;
  out?: boolean;
}

/** `let` binds constants that `$$name` reads in `$expr` filters and in pipelines. */
describe("embedded engine: let variables", () => {
  let conn: Connected;
  let items: Collection<Item>;

  before(async () => {
    conn = await connectTarget("let");
    items = conn.db.collection<Item>("items");
  });
  beforeEach(async () => {
    await items.deleteMany({});
    await items.insertMany([
      { _id: 1, name: "pen", stock: 5 },
      { _id: 2, name: "ink", stock: 0 },
      { _id: 3, name: "pad", stock: 12 },
    ]);
  });
  after(async () => {
    await conn.close();
  });

  test("find reads a variable in $expr, also under $or, and evaluates let expressions once", async () => {
    const found = await items.find({ $expr: { $gt: ["$stock", "$$least"] } }, { let: { least: 4 }, sort: { _id: 1 } })
      .toArray();
    assert.deepEqual(found.map((d) => d._id), [1, 3]);
    const either = await items
      .find({ $or: [{ $expr: { $eq: ["$name", "$$wanted"] } }, { stock: 0 }] }, {
        let: { wanted: { $concat: ["p", "ad"] } },
      })
      .toArray();
    assert.deepEqual(either.map((d) => d._id).sort(), [2, 3]);
  });

  test("an undefined variable is refused, not treated as missing", async () => {
    await assert.rejects(items.find({ $expr: { $eq: ["$stock", "$$nope"] } }).toArray(), MongoServerError);
  });

  test("an inner $let shadows a command variable of the same name", async () => {
    const found = await items
      .find({ $expr: { $let: { vars: { x: 0 }, in: { $eq: ["$stock", "$$x"] } } } }, { let: { x: 5 } })
      .toArray();
    assert.deepEqual(found.map((d) => d._id), [2]);
  });

  test("aggregate reads variables in its leading $match, later stages and a counting pipeline", async () => {
    const out = await items
      .aggregate([{ $match: { $expr: { $lt: ["$stock", "$$cap"] } } }, {
        $project: { _id: 1, label: { $concat: ["$name", "$$suffix"] } },
      }, { $sort: { _id: 1 } }], {
        let: { cap: 10, suffix: "!" },
      })
      .toArray();
    assert.deepEqual(out, [{ _id: 1, label: "pen!" }, { _id: 2, label: "ink!" }]);
    const n = await items.countDocuments({ $expr: { $gte: ["$stock", "$$floor"] } }, { let: { floor: 1 } } as Document);
    assert.equal(n, 2);
  });

  test("updateMany and an update pipeline read variables", async () => {
    const res = await items.updateMany({ $expr: { $eq: ["$stock", "$$empty"] } }, { $set: { out: true } }, {
      let: { empty: 0 },
    });
    assert.equal(res.modifiedCount, 1);
    await items.updateOne({ _id: 3 }, [{ $set: { stock: { $add: ["$stock", "$$delta"] } } }], { let: { delta: 3 } });
    assert.equal((await items.findOne({ _id: 3 }))?.stock, 15);
    assert.equal((await items.findOne({ _id: 2 }))?.out, true);
  });

  test("deleteMany and findOneAndUpdate read variables", async () => {
    const del = await items.deleteMany({ $expr: { $lt: ["$stock", "$$min"] } }, { let: { min: 6 } });
    assert.equal(del.deletedCount, 2);
    const after = await items.findOneAndUpdate(
      { $expr: { $eq: ["$name", "$$which"] } },
      [{ $set: { stock: "$$to" } }],
      { let: { which: "pad", to: 1 }, returnDocument: "after" },
    );
    assert.deepEqual(after, { _id: 3, name: "pad", stock: 1 });
  });

  test("a variable name that MongoDB does not allow is refused", async () => {
    await assert.rejects(items.find({}, { let: { Upper: 1 } }).toArray(), MongoServerError);
  });
});
