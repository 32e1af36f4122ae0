import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

type Row = { _id: number; [field: string]: unknown };

/** Several `$[identifier]` paths through one array, merged per element as MongoDB 7.0 does (update_array_node.cpp). */
describe("embedded engine: array filters sharing an array", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("shared_array_filters");
  });
  after(async () => {
    await conn.close();
  });

  async function updated(doc: Row, spec: Document, arrayFilters: Document[]) {
    const c = conn.db.collection<Row>("c");
    await c.deleteMany({});
    await c.insertOne(doc);
    await c.updateOne({ _id: doc._id }, spec, { arrayFilters });
    return await c.findOne({ _id: doc._id });
  }

  test("two identifiers on one array update their own elements", async () => {
    assert.deepEqual(
      await updated({ _id: 1, a: [1, 2, 3] }, { $set: { "a.$[i]": 10, "a.$[j]": 20 } }, [{ i: 1 }, { j: 2 }]),
      { _id: 1, a: [10, 20, 3] },
    );
    assert.deepEqual(
      await updated({ _id: 1, a: [1, 2, 3] }, { $set: { "a.$[i]": 10 }, $inc: { "a.$[j]": 5 } }, [{ i: 1 }, { j: 3 }]),
      { _id: 1, a: [10, 2, 8] },
    );
    assert.deepEqual(
      await updated({ _id: 1, a: [1, 2, 3] }, { $set: { "a.$[i]": 10, "a.$[j]": 20 } }, [{ i: 1 }, { j: 9 }]),
      { _id: 1, a: [10, 2, 3] },
    );
    const nested = {
      _id: 1,
      a: [{ x: 0, b: [{ y: 0, c: 0 }] }, { x: 1, b: [{ y: 0, c: 0 }] }],
    };
    assert.deepEqual(
      await updated(nested, { $set: { "a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].c": 2 } }, [{ "i.x": 0 }, { "j.x": 1 }, {
        "k.y": 0,
      }]),
      { _id: 1, a: [{ x: 0, b: [{ y: 0, c: 1 }] }, { x: 1, b: [{ y: 0, c: 2 }] }] },
    );
  });

  test("two identifiers reaching one element conflict (code 40)", async () => {
    await refused(
      () => updated({ _id: 1, a: [1, 2, 3] }, { $set: { "a.$[i]": 10, "a.$[j]": 20 } }, [{ i: 1 }, { j: 1 }]),
      40,
      "Update created a conflict at 'a.0'",
    );
    const nested = { _id: 1, a: [{ x: 0, b: [{ y: 0, c: 0 }] }] };
    await refused(
      () =>
        updated(nested, { $set: { "a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].c": 2 } }, [{ "i.x": 0 }, { "j.x": 0 }, {
          "k.y": 0,
        }]),
      40,
      "Update created a conflict at 'a.0.b.$[k].c'",
    );
    const c = conn.db.collection<Row>("c");
    assert.deepEqual(await c.findOne({ _id: 1 }), nested);
  });

  test("a field reached through $[identifier] and by index conflicts at the array (code 40), nothing written", async () => {
    const doc = { _id: 1, a: [1, 2, 3] };
    const c = conn.db.collection<Row>("c");
    const both = [{ i: 1 }, { j: 3 }];
    const cases: [Document, Document[], string][] = [
      [
        { $set: { "a.$[i]": 10, "a.$[j]": 30, "a.0": 99 } },
        both,
        "Updating the path 'a.0' would create a conflict at 'a'",
      ],
      [
        { $set: { "a.$[i]": 10, "a.$[j]": 30 }, $unset: { "a.1": "" } },
        both,
        "Updating the path 'a.1' would create a conflict at 'a'",
      ],
      [{ $set: { "a.0": 99, "a.$[i]": 10 } }, [{ i: 1 }], "Updating the path 'a.$[i]' would create a conflict at 'a'"],
    ];
    for (const [spec, arrayFilters, message] of cases) {
      await refused(() => updated(doc, spec, arrayFilters), 40, message);
      assert.deepEqual(await c.findOne({ _id: 1 }), doc);
    }
  });

  test("array filters of paths sharing an array match under the update's collation", async () => {
    const c = conn.db.collection<Row>("c");
    await c.deleteMany({});
    await c.insertOne({ _id: 1, a: ["A", "B", "C"] });
    await c.updateOne({ _id: 1 }, { $set: { "a.$[i]": "x", "a.$[j]": "y" } }, {
      arrayFilters: [{ i: "a" }, { j: "b" }],
      collation: { locale: "en", strength: 2 },
    });
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: ["x", "y", "C"] });
  });
});
