import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Binary, type Collection, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * `$indexOfCP` (which mingo lacks), `$indexOfBytes` in UTF-8 bytes (mingo counted UTF-16
 * units), and `$toUpper`/`$toLower`, which change ASCII letters only, as in MongoDB.
 */
describe("embedded engine: string expressions measured as MongoDB measures them", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; s: string }>;

  before(async () => {
    conn = await connectTarget("string_expressions");
    rows = conn.db.collection("rows");
    await rows.insertOne({ _id: 1, s: "héllo wörld" });
  });
  after(async () => {
    await conn.close();
  });

  const evaluate = async (fields: Record<string, unknown>) => {
    const [row] = await rows.aggregate([{ $project: { _id: 0, ...fields } }]).toArray();
    return row;
  };

  test("$indexOfCP counts code points and honours start and end", async () => {
    assert.deepEqual(
      await evaluate({
        found: { $indexOfCP: ["$s", "l"] },
        astral: { $indexOfCP: ["a😀b", "b"] },
        fromStart: { $indexOfCP: ["$s", "l", 4] },
        beyondEnd: { $indexOfCP: ["abc", "c", 1, 2] },
        withinEnd: { $indexOfCP: ["abc", "c", 1, 3] },
        longStart: { $indexOfCP: ["abc", "b", Long.fromNumber(1)] },
        emptyAtEnd: { $indexOfCP: ["abc", "", 3] },
        missing: { $indexOfCP: [null, "a"] },
        absent: { $indexOfCP: ["$s", "z"] },
      }),
      {
        found: 2,
        astral: 2,
        fromStart: 9,
        beyondEnd: -1,
        withinEnd: 2,
        longStart: 1,
        emptyAtEnd: 3,
        missing: null,
        absent: -1,
      },
    );
  });

  test("$indexOfBytes counts UTF-8 bytes", async () => {
    assert.deepEqual(await evaluate({ l: { $indexOfBytes: ["$s", "l"] }, w: { $indexOfBytes: ["$s", "w"] } }), {
      l: 3,
      w: 7,
    });
  });

  test("a negative start, or a substring that is not a string, is refused with MongoDB's codes", async () => {
    for (const [expression, code] of [[{ $indexOfCP: ["abc", "b", -1] }, 40097], [{ $indexOfCP: ["abc", 5] }, 40094]]) {
      const error = await evaluate({ x: expression }).then(() => undefined, (e) => e);
      assert.ok(error instanceof MongoServerError, JSON.stringify(expression));
      assert.equal(error.code, code);
    }
  });

  test("$toUpper and $toLower change ASCII letters only", async () => {
    assert.deepEqual(await evaluate({ up: { $toUpper: "$s" }, down: { $toLower: "ÀBC" }, number: { $toUpper: 5 } }), {
      up: "HéLLO WöRLD",
      down: "Àbc",
      number: "5",
    });
  });

  test("$bsonSize and $binarySize measure bytes, as MongoDB does", async () => {
    assert.deepEqual(
      await evaluate({
        doc: { $bsonSize: { $literal: { a: 1, b: "x" } } },
        root: { $bsonSize: "$$ROOT" },
        none: { $bsonSize: "$missing" },
        text: { $binarySize: "$s" },
        bytes: { $binarySize: { $literal: new Binary(new Uint8Array([1, 2, 3])) } },
      }),
      // {_id: 1, s: "héllo wörld"}: 4 + (1 + 4 + 4) + (1 + 2 + 4 + 14) + 1 bytes.
      { doc: 21, root: 35, none: null, text: 13, bytes: 3 },
    );
    await assert.rejects(evaluate({ v: { $bsonSize: "$s" } }), (e: MongoServerError) => e.code === 31393);
    await assert.rejects(evaluate({ v: { $binarySize: 5 } }), (e: MongoServerError) => e.code === 51276);
  });
});
