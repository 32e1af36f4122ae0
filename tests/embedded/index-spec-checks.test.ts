import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * createIndexes checks each spec as MongoDB 7.0 does (create_indexes.cpp validateTTLOptions,
 * index_key_validate.cpp validateIndexSpec/validateKeyPattern, parseAndValidateIndexSpecs,
 * IndexCatalogImpl::_isSpecOk): same codes, same words. The engine used to make up a name when
 * none was sent, refuse bad key values with its own text, and print specs as JSON.
 */
describe("embedded engine: createIndexes spec checks", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("index_spec_checks");
  });
  after(async () => {
    await conn.close();
  });

  async function refusal(spec: unknown, extra: Document = {}): Promise<[number, string]> {
    const error = await conn.db.command({ createIndexes: "specs", indexes: [spec], ...extra }).then(
      () => assert.fail(`created ${JSON.stringify(spec)}`),
      (e: Document) => e,
    );
    return [error.code, String(error.message)];
  }

  const inSpec = (spec: string, reason: string) => `Error in specification ${spec} :: caused by :: ${reason}`;

  test("key and name are required, of their types", async () => {
    assert.deepEqual(await refusal({ name: "x" }), [
      9,
      inSpec(`{ name: "x" }`, "The 'key' field is a required property of an index specification"),
    ]);
    assert.deepEqual(await refusal({ key: { a: 1 } }), [
      9,
      inSpec("{ key: { a: 1 } }", "The 'name' field is a required property of an index specification"),
    ]);
    assert.deepEqual(await refusal({ key: 1, name: "x" }), [
      14,
      inSpec(`{ key: 1, name: "x" }`, "The field 'key' must be an object, but got int"),
    ]);
    assert.deepEqual(await refusal({ key: { a: 1 }, name: 5 }), [
      14,
      inSpec("{ key: { a: 1 }, name: 5 }", "The field 'name' must be a string, but got int"),
    ]);
  });

  test("key patterns: empty, 0, wrong types, unknown plugins, bad field names", async () => {
    const cases: [Document, string][] = [
      [{}, "Index keys cannot be empty."],
      [{ a: 0 }, "Values in the index key pattern cannot be 0."],
      [
        { a: { b: 1 } },
        "Values in v:2 index key pattern cannot be of type object. Only numbers > 0, numbers < 0, and strings are allowed.",
      ],
      [
        { a: true },
        "Values in v:2 index key pattern cannot be of type bool. Only numbers > 0, numbers < 0, and strings are allowed.",
      ],
      [{ a: "nope" }, "Unknown index plugin 'nope'"],
      [{ a: "" }, "Values in the index key pattern cannot be empty strings"],
      [{ "": 1 }, "Index keys cannot be an empty field."],
      [{ "a..b": 1 }, "Index keys cannot contain an empty field."],
      [{ $a: 1 }, "Index key contains an illegal field name: field name starts with '$'."],
    ];
    for (const [key, reason] of cases) {
      const [code, message] = await refusal({ key, name: "k" });
      assert.equal(code, 67, JSON.stringify(key));
      assert.ok(message.startsWith("Error in specification { key: "), message);
      assert.ok(message.endsWith(` :: caused by :: ${reason}`), message);
    }
  });

  test("names: empty, '*', and '_id_' on another key", async () => {
    assert.deepEqual(await refusal({ key: { a: 1 }, name: "" }), [67, "index name cannot be empty"]);
    assert.deepEqual(await refusal({ key: { a: 1 }, name: "*" }), [2, "The index name '*' is not valid."]);
    assert.deepEqual(await refusal({ key: { a: 1 }, name: "_id_" }), [
      2,
      "The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found key: { a: 1 }",
    ]);
    const long = "n".repeat(200);
    const reply = await conn.db.command({ createIndexes: "specs", indexes: [{ key: { long: 1 }, name: long }] });
    assert.equal(reply.ok, 1, "no index name length limit since 4.2");
  });

  test("unknown options (197), unless ignoreUnknownIndexOptions", async () => {
    assert.deepEqual(await refusal({ key: { a: 1 }, name: "a_1", foo: 1 }), [
      197,
      inSpec(
        `{ key: { a: 1 }, name: "a_1", foo: 1 }`,
        `The field 'foo' is not valid for an index specification. Specification: { key: { a: 1 }, name: "a_1", foo: 1 }`,
      ),
    ]);
    const reply = await conn.db.command({
      createIndexes: "specs",
      indexes: [{ key: { b: 1 }, name: "b_1", foo: 1 }],
      ignoreUnknownIndexOptions: true,
    });
    assert.equal(reply.ok, 1);
    const listed = await conn.db.collection("specs").indexes();
    assert.equal(listed.find((i) => i.name === "b_1")?.foo, undefined);
  });

  test("the _id index takes no unique, sparse or TTL option", async () => {
    assert.deepEqual(await refusal({ key: { _id: 1 }, name: "_id_1", unique: true }), [
      197,
      `The field 'unique' is not valid for an _id index specification. Specification: { key: { _id: 1 }, name: "_id_1", unique: true, v: 2 }`,
    ]);
    const [code, message] = await refusal({ key: { _id: 1 }, name: "_id_1", expireAfterSeconds: 5 });
    assert.equal(code, 197);
    assert.match(message, /^The field 'expireAfterSeconds' is not valid for an _id index specification\./);
  });

  test("expireAfterSeconds: checked before the rest of the spec, each refusal 67", async () => {
    const spec = (value: unknown) => ({ key: { t: 1 }, name: "t_1", expireAfterSeconds: value });
    const reason = async (value: unknown) => {
      const [code, message] = await refusal(spec(value));
      assert.equal(code, 67);
      assert.ok(message.startsWith(". Index spec: { key: { t: 1 }"), message);
      return message.split(" :: caused by :: ")[1];
    };
    assert.equal(
      await reason("x"),
      "TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string'",
    );
    assert.equal(await reason(NaN), "TTL index 'expireAfterSeconds' option must not be NaN");
    assert.equal(await reason(-1), "TTL index 'expireAfterSeconds' option cannot be less than 0");
    assert.equal(await reason(2 ** 31), "TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer");
    assert.deepEqual(await refusal({ key: { t: 1, u: 1 }, name: "tu", expireAfterSeconds: 1 }), [
      67,
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: { key: { t: 1, u: 1 }, name: "tu", expireAfterSeconds: 1 }`,
    ]);
    // The TTL check runs first: a bad key with a bad expiry reports the expiry.
    const [, first] = await refusal({ key: { t: 0 }, name: "t", expireAfterSeconds: -1 });
    assert.match(first, /cannot be less than 0$/);
  });

  test("collation and partialFilterExpression must be objects", async () => {
    assert.deepEqual(await refusal({ key: { a: 1 }, name: "c", collation: "en" }), [
      14,
      inSpec(
        `{ key: { a: 1 }, name: "c", collation: "en" }`,
        "The field 'collation' must be an object, but got string",
      ),
    ]);
    assert.deepEqual(await refusal({ key: { a: 1 }, name: "c", collation: {} }), [
      2,
      inSpec(`{ key: { a: 1 }, name: "c", collation: {} }`, "The field 'collation' cannot be an empty object."),
    ]);
    const [code] = await refusal({ key: { a: 1 }, name: "p", partialFilterExpression: { a: { $ne: 1 } } });
    assert.equal(code, 67);
  });
});
