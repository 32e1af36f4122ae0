import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** A test document: numbered, with whatever fields a test gives it. */
type Row = { _id: number; [field: string]: unknown };

/**
 * arrayFilters are checked when the update is parsed, before any document is read, as MongoDB
 * 7.0 checks them (ParsedUpdate::parseArrayFilters, UpdateDriver::parse): an unused filter and
 * two filters for one identifier are 9 FailedToParse, a `$[id]` without a filter and a bad
 * identifier 2 BadValue. The engine let an unused filter pass and left the rest to mingo.
 */
describe("embedded engine: arrayFilters checks", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("array_filter_checks");
    await conn.db.collection<Row>("af").insertOne({ _id: 1, a: [1, 2, 3] });
  });
  after(async () => {
    await conn.close();
  });

  async function refusal(update: Document, arrayFilters: Document[], filter: Document = { _id: 1 }) {
    const error = await conn.db.collection<Row>("af").updateOne(filter, update, { arrayFilters }).then(
      () => assert.fail("updated"),
      (e: Document) => e,
    );
    return [error.code, String(error.message)];
  }

  test("a filter no $[id] uses", async () => {
    assert.deepEqual(await refusal({ $set: { "a.$[i]": 5 } }, [{ i: 1 }, { j: 2 }]), [
      9,
      "The array filter for identifier 'j' was not used in the update { $set: { a.$[i]: 5 } }",
    ]);
    // Refused at parse time: a statement that matches nothing is refused the same way.
    const [code] = await refusal({ $set: { "a.$[i]": 5 } }, [{ i: 1 }, { j: 2 }], { _id: 99 });
    assert.equal(code, 9);
  });

  test("a $[id] without a filter", async () => {
    assert.deepEqual(await refusal({ $set: { "a.$[x].b": 5 } }, [{ i: 1 }]), [
      2,
      "No array filter found for identifier 'x' in path 'a.$[x].b'",
    ]);
    const found = await conn.db.command({
      findAndModify: "af",
      query: { _id: 99 },
      update: { $set: { "a.$[x]": 1 } },
    }).catch((e: Document) => e);
    assert.equal(found.code, 2);
  });

  test("two filters for one identifier, bad identifiers, filters without a field name", async () => {
    assert.deepEqual(await refusal({ $set: { "a.$[i]": 5 } }, [{ i: 1 }, { i: { $gt: 2 } }]), [
      9,
      "Found multiple array filters with the same top-level field name i",
    ]);
    for (const name of ["I", "1i", "i_j"]) {
      assert.deepEqual(await refusal({ $set: { "a.$[i]": 5 } }, [{ [name]: 1 }]), [
        2,
        `The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${name}'`,
      ]);
    }
    assert.deepEqual(await refusal({ $set: { "a.$[i]": 5 } }, [{ $expr: true }]), [
      9,
      "Cannot use an expression without a top-level field name in arrayFilters",
    ]);
    assert.deepEqual(await refusal({ $set: { "a.$[i]": 5 } }, [{ i: 1, j: 2 }]), [
      9,
      "Expected a single top-level field name, found 'i' and 'j'",
    ]);
  });

  test("valid filters still apply", async () => {
    await conn.db.collection<Row>("af").updateOne({ _id: 1 }, { $set: { "a.$[i]": 0 } }, {
      arrayFilters: [{ i: { $gte: 2 } }],
    });
    assert.deepEqual(await conn.db.collection<Row>("af").findOne({ _id: 1 }), { _id: 1, a: [1, 0, 0] });
  });
});
