import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Binary, type Collection, type Document, Long, MongoServerError, Timestamp } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";
import { dec, RAW, typed } from "./typed.ts";

type Doc = { _id: number; [field: string]: unknown };

/**
 * Math, bitwise and conversion expressions, and array and string expressions' integer
 * arguments, given Longs and Decimal128s: mingo refused every one ("must resolve to number").
 * Whole doubles are not asserted by type (the engine holds them as int32: docs/embedded-engine.md).
 */
describe("embedded engine: math, bitwise and conversion expressions on Longs and Decimal128s", () => {
  let conn: Connected;
  let rows: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("wide_math");
    rows = conn.db.collection<Doc>("rows");
    await rows.insertOne({
      _id: 1,
      l: Long.fromNumber(16),
      two: Long.fromNumber(2),
      d: dec("16"),
      d2: dec("2"),
      path: "$l",
      hex: "64b7f0c2a1b2c3d4e5f60718",
    });
  });
  after(async () => {
    await conn.close();
  });

  const project = async (fields: Document) => {
    const [row] = await rows.aggregate([{ $project: { _id: 0, ...fields } }], RAW).toArray();
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typed(v)]));
  };

  const refusal = async (expression: unknown) => {
    const error = await rows.aggregate([{ $project: { v: expression } }]).toArray().then(() => undefined, (e) => e);
    assert.ok(error instanceof MongoServerError, `expected a refusal of ${JSON.stringify(expression)}`);
    return error;
  };

  test("$sqrt of a Long is a double; of a Decimal128, a Decimal128 to 34 digits", async () => {
    assert.deepEqual(await project({ a: { $sqrt: "$two" }, b: { $sqrt: "$d" }, c: { $sqrt: "$d2" } }), {
      a: `Double(${Math.SQRT2})`,
      b: "Decimal128(4)",
      c: "Decimal128(1.414213562373095048801688724209698)",
    });
    assert.equal((await refusal({ $sqrt: { $toLong: -4 } })).code, 28714);
  });

  test("$pow of integers is an integer (a Long past int32), of a Decimal128 a Decimal128", async () => {
    assert.deepEqual(
      await project({
        a: { $pow: ["$l", 2] },
        b: { $pow: [2, 40] },
        c: { $pow: [3, 4] },
        d: { $pow: ["$d", 2] },
        e: { $pow: ["$two", -1] },
        f: { $pow: [dec("1.5"), 2] },
        g: { $pow: ["$two", 70] },
      }),
      {
        a: "Long(256)",
        b: "Long(1099511627776)",
        c: "Int32(81)",
        d: "Decimal128(256)",
        e: "Double(0.5)",
        f: "Decimal128(2.25)",
        g: `Double(${2 ** 70})`,
      },
    );
    assert.equal((await refusal({ $pow: [{ $toLong: 0 }, -1] })).code, 28764);
  });

  test("logarithms, $exp and trigonometry: a double for a Long, a Decimal128 for a Decimal128", async () => {
    const row = await project({
      ln: { $ln: "$l" },
      log: { $log: ["$l", 4] },
      log10: { $log10: "$d" },
      exp: { $exp: "$d2" },
      sin: { $sin: "$d2" },
      deg: { $radiansToDegrees: "$two" },
      atan2: { $atan2: ["$two", 3] },
    });
    assert.equal(row.ln, `Double(${Math.log(16)})`);
    assert.match(row.log10, /^Decimal128\(1\.20411998265592/);
    assert.match(row.exp, /^Decimal128\(7\.3890560989306/);
    assert.match(row.sin, /^Decimal128\(0\.90929742682568/);
    assert.equal(row.deg, `Double(${(2 * 180) / Math.PI})`);
    assert.equal(row.atan2, `Double(${Math.atan2(2, 3)})`);
    assert.match(row.log, /\(2\)$/); // log4(16), a whole double
  });

  test("bitwise expressions over Longs give Longs", async () => {
    assert.deepEqual(
      await project({
        and: { $bitAnd: ["$l", { $toLong: 24 }] },
        or: { $bitOr: ["$two", 1] },
        xor: { $bitXor: ["$l", 1] },
        not: { $bitNot: "$l" },
      }),
      { and: "Long(16)", or: "Long(3)", xor: "Long(17)", not: "Long(-17)" },
    );
  });

  test("$toString, $toDate and $toBool read a Long or a Decimal128", async () => {
    assert.deepEqual(
      await project({
        s: { $toString: "$l" },
        ds: { $toString: dec("1.50") },
        date: { $toDate: "$l" },
        zero: { $toBool: dec("0.00") },
        one: { $toBool: "$two" },
      }),
      { s: '"16"', ds: '"1.50"', date: "Date(16)", zero: "false", one: "true" },
    );
  });

  test("array and string expressions take a whole Long or Decimal128 as an index or a count", async () => {
    assert.deepEqual(
      await project({
        at: { $arrayElemAt: [[10, 20, 30], "$two"] },
        slice: { $slice: [[1, 2, 3], "$two"] },
        range: { $range: [0, { $toLong: 3 }] },
        sub: { $substrCP: ["hello", { $toLong: 1 }, dec("2")] },
      }),
      { at: "Int32(30)", slice: "[Int32(1), Int32(2)]", range: "[Int32(0), Int32(1), Int32(2)]", sub: '"el"' },
    );
  });

  test("$convert goes through the $to… expressions, and evaluates its input once", async () => {
    assert.deepEqual(
      await project({
        long: { $convert: { input: 7, to: "long" } },
        decimal: { $convert: { input: 7, to: "decimal" } },
        string: { $convert: { input: "$l", to: "string" } },
        path: { $convert: { input: "$path", to: "string" } },
        int: { $convert: { input: dec("2.5"), to: 16 } },
        bool: { $convert: { input: { $toLong: 0 }, to: "bool" } },
        failed: { $convert: { input: "abc", to: "int", onError: "bad" } },
        missing: { $convert: { input: "$nothing", to: "int", onNull: "none" } },
        oid: { $convert: { input: "$hex", to: "objectId" } },
      }),
      {
        long: "Long(7)",
        decimal: "Decimal128(7)",
        string: '"16"',
        path: '"$l"',
        int: "Int32(2)",
        bool: "false",
        failed: '"bad"',
        missing: '"none"',
        oid: "ObjectId(64b7f0c2a1b2c3d4e5f60718)",
      },
    );
  });

  test("$toObjectId reads 24 hexadecimal digits and refuses anything else (241)", async () => {
    assert.deepEqual(await project({ oid: { $toObjectId: "$hex" } }), { oid: "ObjectId(64b7f0c2a1b2c3d4e5f60718)" });
    const error = await refusal({ $toObjectId: "xyz" });
    assert.equal(error.code, 241);
    assert.match(error.message, /Failed to parse objectId 'xyz'/);
  });

  test("an ObjectId converts to its hex digits and to its creation time; binary data to no string", async () => {
    const id = { $toObjectId: "$hex" };
    assert.deepEqual(
      await project({
        text: { $toString: id },
        converted: { $convert: { input: id, to: "string" } },
        joined: { $concat: ["user-", { $toString: id }] },
        created: { $toDate: id },
        stamp: { $toDate: { $literal: new Timestamp({ t: 1_600_000_000, i: 7 }) } },
      }),
      {
        text: '"64b7f0c2a1b2c3d4e5f60718"',
        converted: '"64b7f0c2a1b2c3d4e5f60718"',
        joined: '"user-64b7f0c2a1b2c3d4e5f60718"',
        created: `Date(${0x64b7f0c2 * 1000})`,
        stamp: "Date(1600000000000)",
      },
    );
    const binary = { $literal: new Binary(new Uint8Array([1, 2])) };
    const error = await refusal({ $toString: binary });
    assert.equal(error.code, 241);
    assert.match(error.message, /Unsupported conversion from binData to string/);
    assert.deepEqual(await project({ v: { $convert: { input: binary, to: "string", onError: "none" } } }), {
      v: '"none"',
    });
  });

  test("logarithms, square roots and trigonometry outside their domain are refused with MongoDB's codes", async () => {
    const cases: [Document, number][] = [
      [{ $ln: 0 }, 28766],
      [{ $log10: -1 }, 28761],
      [{ $log: [0, 10] }, 28758],
      [{ $log: [10, 1] }, 28759],
      [{ $sqrt: -4 }, 28714],
      [{ $sqrt: { $literal: Long.fromNumber(-4) } }, 28714],
      [{ $asin: 2 }, 50989],
      [{ $acosh: 0 }, 50989],
      [{ $sin: Infinity }, 50989],
      // The argument count is checked first.
      [{ $log: [0] }, 16020],
      [{ $toDate: true }, 241],
    ];
    for (const [expression, code] of cases) {
      assert.equal((await refusal(expression)).code, code, JSON.stringify(expression));
    }
    // NaN and the bounds themselves pass; null is null.
    assert.deepEqual(await project({ a: { $asin: 1 }, n: { $ln: Number.NaN }, z: { $log10: null } }), {
      a: `Double(${Math.PI / 2})`,
      n: "Double(NaN)",
      z: "null",
    });
  });
});
