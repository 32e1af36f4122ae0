import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection, Document, UpdateOptions } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/** Test rows: numeric `_id`s, anything else. */
type Row = { _id: number; [field: string]: unknown };

/** `$addToSet` with `$each`, and updates through `$[]` and `$[identifier]`, as MongoDB 7.0 applies them. */
describe("embedded engine: array updates", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("array_updates");
  });
  after(async () => {
    await conn.close();
  });

  /** Updates document `id` (the driver's types know no `$[]` paths, nor `$each` on unknown fields). */
  const update = (c: Collection<Row>, id: number, spec: Document, options: UpdateOptions = {}) =>
    c.updateOne({ _id: id }, spec, options);

  /** A collection holding `doc` alone. */
  async function holding(name: string, doc: Row) {
    const c = conn.db.collection<Row>(name);
    await c.deleteMany({});
    await c.insertOne(doc);
    return c;
  }

  test("$addToSet with $each dedupes its list when it creates the field, upserts included", async () => {
    const c = await holding("add_to_set", { _id: 1 });
    await update(c, 1, { $addToSet: { a: { $each: [1, 1, 2, 1.0] } } });
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: [1, 2] });
    await update(c, 1, { $addToSet: { b: { $each: [{ k: 1 }, { k: 1 }] } } });
    assert.deepEqual((await c.findOne({ _id: 1 }))!.b, [{ k: 1 }]);
    await update(c, 2, { $addToSet: { tags: { $each: ["x", "x", "y"] } } }, { upsert: true });
    assert.deepEqual(await c.findOne({ _id: 2 }), { _id: 2, tags: ["x", "y"] });
    await update(c, 1, { $addToSet: { a: { $each: [3, 2, 3] } } });
    assert.deepEqual((await c.findOne({ _id: 1 }))!.a, [1, 2, 3]);
  });

  test("$[] and $[i] need an array: missing or not one, the update is refused (code 2)", async () => {
    const missing = await holding("missing", { _id: 1 });
    const exist = "The path 'a' must exist in the document in order to apply array updates.";
    await refused(() => update(missing, 1, { $set: { "a.$[]": 1 } }), 2, exist);
    await refused(
      () => update(missing, 1, { $set: { "a.$[i]": 1 } }, { arrayFilters: [{ i: 0 }] }),
      2,
      exist,
    );
    const scalar = await holding("scalar", { _id: 1, a: 5, s: "x" });
    await refused(
      () => update(scalar, 1, { $set: { "a.$[]": 1 } }),
      2,
      "Cannot apply array updates to non-array element a: 5",
    );
    await refused(
      () => update(scalar, 1, { $inc: { "s.$[]": 1 } }),
      2,
      'Cannot apply array updates to non-array element s: "x"',
    );
    assert.deepEqual(await scalar.findOne({ _id: 1 }), { _id: 1, a: 5, s: "x" });
  });

  test("a type error at one element refuses the whole update: nothing is written", async () => {
    const c = await holding("typed", { _id: 1, a: ["x", 1], b: [[0], 1], n: 0 });
    await refused(
      () => update(c, 1, { $inc: { "a.$[]": 1, n: 1 } }),
      14,
      "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field '0' of non-numeric type string",
    );
    await refused(
      () => update(c, 1, { $push: { "b.$[]": 2 } }),
      2,
      "The field '1' must be an array but is of type int in document {_id: 1}",
    );
    await refused(
      () => update(c, 1, { $inc: { "a.$[e]": 1 } }, { arrayFilters: [{ e: { $type: "string" } }] }),
      14,
    );
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: ["x", 1], b: [[0], 1], n: 0 });
  });

  test("elements an array filter leaves out are not checked, and the others are updated", async () => {
    const c = await holding("filtered", { _id: 1, a: ["x", 1, 5] });
    await update(c, 1, { $inc: { "a.$[n]": 10 } }, { arrayFilters: [{ n: { $type: "number" } }] });
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: ["x", 11, 15] } as Document);
    await update(c, 1, { $set: { "a.$[]": 0 } });
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: [0, 0, 0] } as Document);
  });
});
