import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Binary, type Collection, type Document, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * The `$bits…` query operators match whole numbers (Longs and negative ones included) and
 * BinData only. mingo's matched strings, nulls and missing fields for the "clear" operators.
 */
describe("embedded engine: $bitsAllSet, $bitsAllClear, $bitsAnySet, $bitsAnyClear", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; a?: unknown }>;

  before(async () => {
    conn = await connectTarget("bit_operators");
    rows = conn.db.collection("rows");
    await rows.insertMany([
      { _id: 1, a: 0b1011 },
      { _id: 2, a: Long.fromString("4294967296") }, // bit 32
      { _id: 3, a: -1 },
      { _id: 4, a: 2.5 },
      { _id: 5, a: "abc" },
      { _id: 6, a: null },
      { _id: 7 },
      { _id: 8, a: [0b100, "x"] },
      { _id: 9, a: new Binary(new Uint8Array([0b0000_0001, 0b1000_0000])) }, // bits 0 and 15
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const ids = async (filter: Document) => (await rows.find(filter).sort({ _id: 1 }).toArray()).map((r) => r._id);

  test("clear bits are only looked for in numbers and BinData", async () => {
    assert.deepEqual(await ids({ a: { $bitsAnyClear: 4 } }), [1, 2, 9]);
    assert.deepEqual(await ids({ a: { $bitsAllClear: [2, 40] } }), [1, 2, 9]);
  });

  test("set bits, by mask, by positions and by BinData; negative numbers are sign-extended", async () => {
    assert.deepEqual(await ids({ a: { $bitsAllSet: [0, 1, 3] } }), [1, 3]);
    assert.deepEqual(await ids({ a: { $bitsAnySet: [32] } }), [2, 3]);
    assert.deepEqual(await ids({ a: { $bitsAllSet: [100] } }), [3]);
    assert.deepEqual(await ids({ a: { $bitsAnySet: 4 } }), [3, 8]);
    assert.deepEqual(await ids({ a: { $bitsAllSet: [0, 15] } }), [3, 9]);
    assert.deepEqual(await ids({ a: { $bitsAllSet: new Binary(new Uint8Array([0b1011])) } }), [1, 3]);
  });

  test("a negative or fractional mask is refused", async () => {
    for (const mask of [-1, 1.5, [-2], "x"]) {
      const error = await ids({ a: { $bitsAllSet: mask } }).then(() => undefined, (e) => e);
      assert.ok(error instanceof MongoServerError, JSON.stringify(mask));
    }
  });
});
