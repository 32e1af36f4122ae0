import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Binary, Decimal128, type Document, Long, ObjectId, Timestamp } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** BSON types survive the trip through the engine, and filters compare them correctly. */
describe("embedded engine: BSON types", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("types");
  });
  after(async () => {
    await conn.close();
  });

  test("ObjectId, Date, Long, Decimal128, Binary and more round-trip unchanged", async () => {
    const c = conn.db.collection("rt");
    const doc = {
      _id: new ObjectId(),
      at: new Date("2024-02-29T12:34:56.789Z"),
      big: Long.fromString("9007199254740993"),
      small: Long.fromNumber(5),
      price: Decimal128.fromString("1234.5678"),
      raw: new Binary(new Uint8Array([0, 1, 2, 255]), 0),
      uuid: new Binary(new Uint8Array(16).fill(7), 4),
      ts: new Timestamp({ t: 1, i: 2 }),
      nested: { list: [1, "two", null, { three: 3 }], re: /ab+c/i },
      flag: true,
      ratio: 0.25,
    };
    await c.insertOne(doc);
    const back = await c.findOne({ _id: doc._id }, { promoteLongs: false });
    assert.ok(back);
    assert.ok(back._id instanceof ObjectId && back._id.equals(doc._id));
    assert.ok(back.at instanceof Date && back.at.getTime() === doc.at.getTime());
    assert.ok(back.big instanceof Long && back.big.toString() === "9007199254740993");
    assert.ok(back.small instanceof Long && back.small.toNumber() === 5);
    assert.ok(back.price instanceof Decimal128 && back.price.toString() === "1234.5678");
    assert.ok(back.raw instanceof Binary && back.raw.sub_type === 0);
    assert.deepEqual([...back.raw.buffer], [0, 1, 2, 255]);
    assert.equal(back.uuid.sub_type, 4);
    assert.ok(back.ts instanceof Timestamp && back.ts.equals(doc.ts));
    assert.deepEqual(back.nested.list, [1, "two", null, { three: 3 }]);
    assert.equal(String(back.nested.re), "/ab+c/i");
    assert.equal(back.flag, true);
    assert.equal(back.ratio, 0.25);
  });

  test("filters compare Dates by time", async () => {
    const c = conn.db.collection("dates");
    const day = (d: number) => new Date(Date.UTC(2024, 0, d));
    await c.insertMany([1, 2, 3, 4].map((d) => ({ _id: d, at: day(d) })) as Document[]);
    assert.deepEqual((await c.find({ at: { $gt: day(2) } }).toArray()).map((d) => d._id), [3, 4]);
    assert.deepEqual((await c.find({ at: day(3) }).toArray()).map((d) => d._id), [3]);
    assert.deepEqual((await c.find({ at: { $gte: day(2), $lt: day(4) } }).toArray()).map((d) => d._id), [2, 3]);
    assert.deepEqual((await c.find().sort({ at: -1 }).limit(2).toArray()).map((d) => d._id), [4, 3]);
  });

  test("filters compare ObjectIds by value (equality, $in, ranges) and sort them", async () => {
    const c = conn.db.collection("oids");
    const ids = [0, 1, 2, 3].map((i) => new ObjectId(`00000000000000000000000${i}`));
    await c.insertMany([...ids].reverse().map((id, i) => ({ _id: id, n: 3 - i })));
    const fresh = (id: ObjectId) => new ObjectId(id.toHexString());
    assert.equal((await c.findOne({ _id: fresh(ids[2]) }))?.n, 2);
    assert.deepEqual((await c.find({ _id: { $in: [fresh(ids[3]), fresh(ids[0])] } }).toArray()).map((d) => d.n), [
      0,
      3,
    ]);
    assert.deepEqual((await c.find({ _id: { $gt: fresh(ids[1]) } }).toArray()).map((d) => d.n), [2, 3]);
    assert.deepEqual((await c.find().toArray()).map((d) => d.n), [0, 1, 2, 3]);
    await c.insertOne({ _id: new ObjectId(), n: 4, ref: fresh(ids[1]) });
    assert.equal((await c.findOne({ ref: fresh(ids[1]) }))?.n, 4);
  });

  test("numbers of different BSON widths are equal in filters on the same type", async () => {
    const c = conn.db.collection("nums");
    await c.insertMany([{ _id: 1, v: 1.5 }, { _id: 2, v: 2 }, { _id: 3, v: -7 }] as Document[]);
    assert.deepEqual((await c.find({ v: { $gt: 1 } }).toArray()).map((d) => d._id), [1, 2]);
    assert.deepEqual((await c.find({}).sort({ v: 1 }).toArray()).map((d) => d._id), [3, 1, 2]);
  });
});
