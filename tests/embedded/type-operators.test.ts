import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  Binary,
  Code,
  type Collection,
  Decimal128,
  type Document,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  MongoServerError,
  ObjectId,
  Timestamp,
} from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; [field: string]: unknown };

// Updates are written as plain documents: the driver's typed filters refuse `$inc` on `unknown` fields.
const update = (spec: Document): Document => spec;

/** One stored value per BSON type, with the alias MongoDB's `$type` expression names it by. */
const VALUES: [number, unknown, string][] = [
  [1, new Int32(5), "int"],
  [2, new Double(5.5), "double"],
  [3, 2 ** 40, "double"], // a whole number beyond int32: the driver writes a double
  [4, -0, "double"],
  [5, Number.NaN, "double"],
  [6, Long.fromNumber(5), "long"],
  [7, Decimal128.fromString("5"), "decimal"],
  [8, "five", "string"],
  [9, { five: 5 }, "object"],
  [10, [], "array"],
  [11, new Binary(new Uint8Array([5])), "binData"],
  [12, new ObjectId("650000000000000000000005"), "objectId"],
  [13, true, "bool"],
  [14, new Date(5), "date"],
  [15, null, "null"],
  [16, /five/, "regex"],
  [17, new Timestamp({ t: 5, i: 1 }), "timestamp"],
  [18, new MinKey(), "minKey"],
  [19, new MaxKey(), "maxKey"],
  [20, new Code("return 5"), "javascript"],
  [21, 2 ** 31 - 1, "int"],
  [22, 2 ** 31, "double"],
];
const MISSING_ID = 23;

const idsOfType = (...aliases: string[]) => VALUES.filter(([, , t]) => aliases.includes(t)).map(([id]) => id);

/**
 * `$type` in filters, the `$type` and `$isNumber` expressions and `$jsonSchema`'s `bsonType`
 * name each value by the BSON type it is stored as, as MongoDB does.
 */
describe("embedded engine: BSON types", () => {
  let conn: Connected;
  let values: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("type_operators");
    values = conn.db.collection<Doc>("values");
    await values.insertMany([...VALUES.map(([_id, v]) => ({ _id, v })), { _id: MISSING_ID }]);
  });
  after(async () => {
    await conn.close();
  });

  const ids = async (filter: Document) => (await values.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);

  test("$type matches each value by its alias and by its numeric code, never a missing field", async () => {
    const codes: Record<string, number> = {
      double: 1,
      string: 2,
      object: 3,
      array: 4,
      binData: 5,
      objectId: 7,
      bool: 8,
      date: 9,
      null: 10,
      regex: 11,
      javascript: 13,
      int: 16,
      timestamp: 17,
      long: 18,
      decimal: 19,
      minKey: -1,
      maxKey: 127,
    };
    for (const [alias, code] of Object.entries(codes)) {
      assert.deepEqual(await ids({ v: { $type: alias } }), idsOfType(alias), alias);
      assert.deepEqual(await ids({ v: { $type: code } }), idsOfType(alias), `code ${code}`);
    }
  });

  test('"number" and a list of types match any of them; $not matches the rest, missing included', async () => {
    assert.deepEqual(await ids({ v: { $type: "number" } }), idsOfType("int", "long", "double", "decimal"));
    assert.deepEqual(await ids({ v: { $type: ["string", 8, "null"] } }), idsOfType("string", "bool", "null"));
    const notNumbers = await ids({ v: { $not: { $type: "number" } } });
    assert.deepEqual(
      notNumbers,
      [...VALUES.map(([id]) => id), MISSING_ID].filter((id) =>
        !idsOfType("int", "long", "double", "decimal").includes(id)
      ),
    );
  });

  test("an array matches by any element and as an array, a path through documents in arrays", async () => {
    const arrays = conn.db.collection<Doc>("arrays");
    await arrays.insertMany([
      { _id: 1, a: [1, "x"] },
      { _id: 2, a: [[1]] },
      { _id: 3, a: [{ b: "x" }, { b: 2 }] },
      { _id: 4, a: [[{ b: "x" }]] },
      { _id: 5, a: { b: [Long.fromNumber(1)] } },
      { _id: 6, a: [{ b: 1 }, "y"] },
    ]);
    const found = async (filter: Document) => (await arrays.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    assert.deepEqual(await found({ a: { $type: "string" } }), [1, 6]);
    assert.deepEqual(await found({ a: { $type: "int" } }), [1], "a nested array's elements are not looked into");
    assert.deepEqual(await found({ a: { $type: "array" } }), [1, 2, 3, 4, 6]);
    assert.deepEqual(await found({ "a.b": { $type: "string" } }), [3], "not through an array inside an array");
    assert.deepEqual(await found({ "a.b": { $type: "long" } }), [5]);
    assert.deepEqual(await found({ "a.b": { $type: "array" } }), [5]);
    assert.deepEqual(await found({ "a.1": { $type: "string" } }), [1, 6], "a numeric part picks an element");
    // Past an element picked by position, a path goes on into that element's documents.
    assert.deepEqual(await found({ "a.0.b": { $type: "string" } }), [3, 4]);
  });

  test("a bad $type operand is refused with MongoDB's messages", async () => {
    const refused = async (operand: unknown, message: string) => {
      await assert.rejects(values.find({ v: { $type: operand } } as Document).toArray(), (e: MongoServerError) => {
        assert.equal(e.code, 2, `${JSON.stringify(operand)}: ${e.message}`);
        assert.equal(e.message, message);
        return true;
      });
    };
    await refused("String", "Unknown type name alias: String");
    await refused(99, "Invalid numerical type code: 99");
    await refused(2.5, "Invalid numerical type code: 2.5");
    await refused([], "$type must match at least one type");
    await refused(true, "type must be represented as a number or a string");
  });

  test("the $type and $isNumber expressions name every value, 'missing' included", async () => {
    const rows = await values.aggregate([
      { $sort: { _id: 1 } },
      { $project: { type: { $type: "$v" }, wrapped: { $type: ["$v"] }, isNumber: { $isNumber: "$v" } } },
    ]).toArray();
    const numbers = new Set(["int", "long", "double", "decimal"]);
    const expected = [...VALUES.map(([_id, , type]) => ({ _id, type })), { _id: MISSING_ID, type: "missing" }];
    assert.deepEqual(
      rows,
      expected.map(({ _id, type }) => ({ _id, type, wrapped: type, isNumber: numbers.has(type) })),
    );
    await assert.rejects(
      values.aggregate([{ $project: { t: { $type: ["$v", "$v"] } } }]).toArray(),
      (e: MongoServerError) => e.code === 16020 && /takes exactly 1 arguments\. 2 were passed in/.test(e.message),
    );
  });

  test("$jsonSchema's bsonType tells int32 from double at the int32 boundary, and refuses unknown aliases", async () => {
    const schema = (bsonType: unknown) => ({ $jsonSchema: { required: ["v"], properties: { v: { bsonType } } } });
    assert.deepEqual(await ids(schema("int")), idsOfType("int"));
    assert.deepEqual(await ids(schema("double")), idsOfType("double"));
    assert.deepEqual(await ids(schema(["number", "string"])), idsOfType("int", "long", "double", "decimal", "string"));
    await assert.rejects(
      values.find(schema("integer")).toArray(),
      (e: MongoServerError) => e.code === 2 && /Unknown type name alias: integer/.test(e.message),
    );
  });
});

/** `$inc` and `$mul` keep MongoDB's result types (int32, Long, Decimal128), and conflicting paths are refused. */
describe("embedded engine: update arithmetic and conflicting update paths", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("int32_arithmetic");
  });
  after(async () => {
    await conn.close();
  });

  test("int32 arithmetic stays int32 while it fits and becomes a Long past the range", async () => {
    const c = conn.db.collection<Doc>("counters");
    await c.insertOne({ _id: 1, up: 2 ** 31 - 1, down: -(2 ** 31), big: 100000, small: 7, zero: 0, fits: 2 ** 30 });
    await c.updateOne(
      { _id: 1 },
      update({ $inc: { up: 1, down: -1, small: 3, fits: 2 ** 30 - 1 }, $mul: { big: 100000, zero: -1 } }),
    );
    const raw = await c.findOne({ _id: 1 }, { promoteValues: false, promoteLongs: false }) as Document;
    assert.ok(raw.up instanceof Long && raw.up.toString() === "2147483648", `up: ${raw.up}`);
    assert.ok(raw.down instanceof Long && raw.down.toString() === "-2147483649", `down: ${raw.down}`);
    assert.ok(raw.big instanceof Long && raw.big.toString() === "10000000000", `big: ${raw.big}`);
    assert.ok(raw.small instanceof Int32 && raw.small.value === 10, `small: ${raw.small}`);
    assert.ok(raw.fits instanceof Int32 && raw.fits.value === 2 ** 31 - 1, `fits: ${raw.fits}`);
    assert.ok(raw.zero instanceof Int32 && Object.is(raw.zero.value, 0), `0 × -1 is the int 0, not -0: ${raw.zero}`);
    const promoted = await c.findOne({ _id: 1 });
    assert.equal(promoted?.up, 2 ** 31, "the driver still reads a small Long as a number");
  });

  test("a Decimal128 result beyond 34 digits is rounded to 34, half to even, as MongoDB rounds it", async () => {
    const c = conn.db.collection<Doc>("decimals");
    const big = Decimal128.fromString("12345678901234567890");
    await c.insertOne({ _id: 1, d: big });
    await c.updateOne({ _id: 1 }, update({ $mul: { d: big } }));
    // 12345678901234567890² = 152415787532388367501905199875019052100 (39 digits)
    assert.equal(String((await c.findOne({ _id: 1 }))?.d), "1.524157875323883675019051998750191E+38");
  });

  test("an update writing one path twice, or a path and a field inside it, is refused and changes nothing", async () => {
    const c = conn.db.collection<Doc>("conflicts");
    await c.insertOne({ _id: 1, a: 1, o: { b: 1 }, r: 1 });
    const refused = async (update: Document, path: string, at: string, upsert = false) => {
      await assert.rejects(c.updateOne({ _id: upsert ? 2 : 1 }, update, { upsert }), (e: MongoServerError) => {
        assert.equal(e.code, 40, `${JSON.stringify(update)}: ${e.message}`);
        assert.equal(e.message, `Updating the path '${path}' would create a conflict at '${at}'`);
        return true;
      });
    };
    await refused({ $inc: { a: 1 }, $set: { a: 5 } }, "a", "a");
    await refused({ $inc: { a: 1 }, $mul: { a: 2 } }, "a", "a");
    await refused({ $set: { o: {} }, $inc: { "o.b": 1 } }, "o.b", "o");
    await refused({ $rename: { r: "a" }, $set: { a: 2 } }, "a", "a");
    await refused({ $set: { a: 1 }, $setOnInsert: { a: 2 } }, "a", "a", true);
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: 1, o: { b: 1 }, r: 1 });
    assert.equal(await c.countDocuments({ _id: 2 }), 0);

    // Siblings, and paths that share only a prefix of characters ("a" and "ab"), do not conflict.
    await c.updateOne({ _id: 1 }, update({ $inc: { "o.b": 1, "o.c": 1, ab: 1 }, $set: { aa: 1, a: 7 } }));
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: 7, o: { b: 2, c: 1 }, r: 1, ab: 1, aa: 1 });
  });
});
