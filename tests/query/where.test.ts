import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "bson";
import { ApiError } from "../../src/errors.ts";
import { parseWhere } from "../../src/query/where.ts";
import { limits, User } from "./models.ts";

const where = (q: string | null) => parseWhere(q, User, limits);
const like = (source: string, i = false) => (i ? { $regex: source, $options: "i" } : { $regex: source });
const END = "(?![\\s\\S])";

function rejects(q: string, message: RegExp): void {
  assert.throws(() => where(q), (error: unknown) => {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${error}`);
    assert.equal(error.status, 400);
    assert.match(error.message, message);
    return true;
  });
}

describe("parseWhere: empty input", () => {
  for (const q of [null, "", "  ", "{}", "[]", "[[]]", "[{}]"]) {
    test(`${JSON.stringify(q)} is no filter`, () => assert.deepEqual(where(q), {}));
  }
});

describe("parseWhere: operators", () => {
  const cases: [string, Document][] = [
    ['{"name":"Karl"}', { name: "Karl" }],
    ['{"id":3}', { _id: 3 }],
    ['{"name.$not":"Karl"}', { name: { $nin: ["Karl", null] } }],
    ['{"age.$gt":18}', { age: { $gt: 18 } }],
    ['{"age.$gte":18}', { age: { $gte: 18 } }],
    ['{"age.$lt":18}', { age: { $lt: 18 } }],
    ['{"age.$lte":18}', { age: { $lte: 18 } }],
    ['{"id.$in":[1,2]}', { _id: { $in: [1, 2] } }],
    ['{"id.$in":[]}', { _id: { $in: [] } }],
    ['{"id.$notIn":[1,2]}', { _id: { $nin: [1, 2, null] } }],
    ['{"age.$between":[18,65]}', { age: { $gte: 18, $lte: 65 } }],
    ['{"age.$notBetween":[18,65]}', { $or: [{ age: { $lt: 18 } }, { age: { $gt: 65 } }] }],
    ['{"name.$like":"Ka*"}', { name: like(`^Ka[\\s\\S]*${END}`) }],
    ['{"name.$like":"Ka%"}', { name: like(`^Ka[\\s\\S]*${END}`) }],
    ['{"name.$notLike":"Ka*"}', { name: { $ne: null, $not: like(`^Ka[\\s\\S]*${END}`) } }],
    ['{"name.$iLike":"ka*"}', { name: like(`^ka[\\s\\S]*${END}`, true) }],
    ['{"name.$notILike":"ka*"}', { name: { $ne: null, $not: like(`^ka[\\s\\S]*${END}`, true) } }],
    ['{"name":null}', { name: null }],
    ['{"name.$not":null}', { name: { $ne: null } }],
    ['{"score.$gt":1.5}', { score: { $gt: 1.5 } }],
    ['{"active":true}', { active: true }],
    ['{"active.$in":[true,false]}', { active: { $in: [true, false] } }],
    ['{"tags":"red"}', { tags: "red" }],
    ['{"created_at.$gte":"2024-01-31"}', { created_at: { $gte: new Date("2024-01-31T00:00:00Z") } }],
    ['{"updated_at.$lt":"2024-01-31T12:30:00+02:00"}', { updated_at: { $lt: new Date("2024-01-31T10:30:00Z") } }],
    ['{"born":"2024-01-31T12:30:00"}', { born: new Date("2024-01-31T12:30:00Z") }],
    ['{"born.$between":["2024-01-01","2024-12-31T23:59:59.999Z"]}', {
      born: { $gte: new Date("2024-01-01T00:00:00Z"), $lte: new Date("2024-12-31T23:59:59.999Z") },
    }],
  ];
  for (const [q, expected] of cases) test(q, () => assert.deepEqual(where(q), expected));
});

describe("parseWhere: sequences, groups and precedence", () => {
  const cases: [string, string, Document][] = [
    ["keys of one object are ANDed", '{"name":"Karl","age.$gt":18}', {
      $and: [{ name: "Karl" }, { age: { $gt: 18 } }],
    }],
    ["an array is ANDed by default", '[{"name":"John"},{"surname":"Locke"}]', {
      $and: [{ name: "John" }, { surname: "Locke" }],
    }],
    ["$and. is accepted", '[{"name":"John"},{"$and.surname":"Locke"}]', {
      $and: [{ name: "John" }, { surname: "Locke" }],
    }],
    ["$or. joins with OR", '[{"name":"Karl"},{"$or.surname":"Popper"}]', {
      $or: [{ name: "Karl" }, { surname: "Popper" }],
    }],
    ["AND binds tighter than OR", '[{"a":1},{"$or.b":2},{"c":3}]'.replace(/"([abc])"/g, '"$1"'), {}],
    ["a prefix on the first condition is ignored", '[{"$or.name":"Karl"},{"surname":"Popper"}]', {
      $and: [{ name: "Karl" }, { surname: "Popper" }],
    }],
    ["an object is a group of its keys", '[{"name":"a","$or.surname":"b"},{"age":3}]', {
      $and: [{ $or: [{ name: "a" }, { surname: "b" }] }, { age: 3 }],
    }],
    ["a group joins with AND by default", '[{"name":"a"},[{"surname":"b"},{"$or.age":3}]]', {
      $and: [{ name: "a" }, { $or: [{ surname: "b" }, { age: 3 }] }],
    }],
    ["a group's first $or. joins the group with OR", '[{"name":"a"},[{"$or.surname":"b"},{"age":3}]]', {
      $or: [{ name: "a" }, { $and: [{ surname: "b" }, { age: 3 }] }],
    }],
    [
      "a group's first $and. joins the group with AND",
      '[{"name":"a"},{"$or.age":1},[{"$and.surname":"b"},{"$or.age":3}]]',
      { $or: [{ name: "a" }, { $and: [{ age: 1 }, { $or: [{ surname: "b" }, { age: 3 }] }] }] },
    ],
    [
      "the Axe docs example of two OR groups",
      '[[{"name":"John"},{"$or.surname":"Locke"}],[{"$or.age":18},{"$or.id":666}]]',
      { $or: [{ name: "John" }, { surname: "Locke" }, { age: 18 }, { _id: 666 }] },
    ],
    ["the join prefix works at every depth", '[{"name":"a"},[{"surname":"b"},[{"$or.age":1},{"score":2}]]]', {
      $and: [{ name: "a" }, { $or: [{ surname: "b" }, { $and: [{ age: 1 }, { score: 2 }] }] }],
    }],
    ["a nested group's prefix decides how the enclosing group joins", '[{"name":"a"},[[{"$or.age":1}],{"score":2}]]', {
      $or: [{ name: "a" }, { $and: [{ age: 1 }, { score: 2 }] }],
    }],
    ["empty groups are skipped", '[{"name":"a"},[],{"$or.age":1}]', { $or: [{ name: "a" }, { age: 1 }] }],
    ["the Axe client's nested where() shape", '[{"id":1},[{"$and.name":"x"},{"$or.age.$gte":20}]]', {
      $and: [{ _id: 1 }, { $or: [{ name: "x" }, { age: { $gte: 20 } }] }],
    }],
    ["the Axe client's orWhere() group", '[{"id":1},[{"$or.name":"x"},{"age.$gte":20}]]', {
      $or: [{ _id: 1 }, { $and: [{ name: "x" }, { age: { $gte: 20 } }] }],
    }],
  ];
  cases[4] = ["AND binds tighter than OR", '[{"name":"a"},{"$or.surname":"b"},{"age":3}]', {
    $or: [{ name: "a" }, { $and: [{ surname: "b" }, { age: 3 }] }],
  }];
  for (const [name, q, expected] of cases) test(`${name}: ${q}`, () => assert.deepEqual(where(q), expected));
});

describe("parseWhere: rejected input", () => {
  const cases: [string, string, RegExp][] = [
    ["malformed JSON", '{"name":', /Malformed JSON in q/],
    ["a scalar q", "42", /must be an object/],
    ["a null member", "[null]", /must be an object/],
    ["a string member", '["name"]', /must be an object/],
    ["unknown field", '{"nope":1}', /^Undefined column names: nope$/],
    ["every unknown field is named", '[{"nope":1},{"$or.zip.$gt":2}]', /^Undefined column names: nope,zip$/],
    ["hidden field", '{"password":"x"}', /^Undefined column names: password$/],
    ["hidden field with like", '{"password.$like":"a*"}', /^Undefined column names: password$/],
    [
      "hidden field through an $or group",
      '[{"name":"a"},[{"$or.password.$like":"*"}]]',
      /^Undefined column names: password$/,
    ],
    ["relation path", '{"team.name":"x"}', /^Undefined column names: team.name$/],
    ["deleted_at on a model without soft delete", '{"deleted_at":null}', /^Undefined column names: deleted_at$/],
    ["unknown operator", '{"age.$ne":1}', /Unknown operator "\$ne" in q key "age.\$ne"; allowed: \$not/],
    ["operator chain", '{"age.$not.$gt":1}', /Unknown operator "\$not.\$gt"/],
    ["missing field", '{".$gt":1}', /Missing field name/],
    ["empty key", '{"":1}', /Missing field name/],
    ["string against integer", '{"age":"18"}', /"age".*expected an integer, got a string/],
    ["fraction against integer", '{"age.$gt":17.5}', /expected an integer/],
    ["huge number against integer", '{"age":1e400}', /expected an integer/],
    ["number against string", '{"name":1}', /expected a string, got a number/],
    ["string against boolean", '{"active":"true"}', /expected true or false/],
    ["number against date", '{"created_at":1700000000000}', /expected an ISO 8601 date/],
    ["impossible date", '{"created_at":"2024-02-30"}', /expected an ISO 8601 date/],
    ["not a date", '{"created_at.$gt":"yesterday"}', /expected an ISO 8601 date/],
    ["bad zone", '{"created_at":"2024-01-01T00:00:00+25:00"}', /expected an ISO 8601 date/],
    ["$between with 3 values", '{"age.$between":[1,2,3]}', /"age.\$between".*exactly 2 values, got 3/],
    ["$between with 1 value", '{"age.$notBetween":[1]}', /exactly 2 values, got 1/],
    ["$between with a scalar", '{"age.$between":5}', /expected a \[low, high\] array/],
    ["$in with a scalar", '{"id.$in":5}', /expected an array/],
    ["$in with a string list (typed)", '{"id.$in":["1"]}', /"id.\$in\[0\]".*expected an integer/],
    ["$in with null", '{"id.$in":[1,null]}', /expected an integer, got null/],
    ["$in with a nested array", '{"id.$in":[[1]]}', /got an array/],
    ["array for a scalar operator", '{"age.$gt":[1]}', /expected an integer, got an array/],
    ["null with an ordering operator", '{"age.$gt":null}', /cannot take null/],
    ["null with $in", '{"age.$in":null}', /cannot take null/],
    ["like on an integer field", '{"age.$like":"1*"}', /like-operators need a string field/],
    ["like with a number", '{"name.$like":1}', /expected a string pattern/],
    ["ordering a boolean", '{"active.$gt":false}', /booleans only support/],
    ["too many wildcards", `{"name.$like":"${"a*".repeat(21)}"}`, /21 wildcards; at most 20/],
  ];
  for (const [name, q, message] of cases) test(`${name}: ${q}`, () => rejects(q, message));
});

describe("parseWhere: raw MongoDB operators are refused at every level", () => {
  const operators = [
    "$where",
    "$expr",
    "$regex",
    "$function",
    "$accumulator",
    "$ne",
    "$eq",
    "$exists",
    "$elemMatch",
    "$or",
    "$and",
    "$nor",
    "$text",
    "$jsonSchema",
    "$options",
    "$size",
    "$type",
    "$comment",
  ];
  for (const op of operators) {
    test(`${op} as a key, a prefixed key, a nested key, a suffix and an operand`, () => {
      rejects(`{"${op}":"1"}`, /Unsupported operator/);
      rejects(`{"${op}":[{"name":"x"}]}`, /Unsupported operator/);
      rejects(`[{"name":"x"},{"$or.${op}":"1"}]`, /Unsupported operator/);
      rejects(`[[[{"name":"x"},{"${op}":"1"}]]]`, /Unsupported operator/);
      rejects(`[[{"name":"x"},{"$and.${op}.name":"1"}]]`, /Unsupported operator/);
      rejects(`{"name.${op}":"x"}`, /Unknown operator/);
      rejects(`{"name":{"${op}":"x"}}`, /objects are not allowed/);
      rejects(`{"name.$not":{"${op}":"x"}}`, /objects are not allowed/);
      rejects(`{"name.$in":[{"${op}":"x"}]}`, /got an object/);
      rejects(`{"name.$between":[{"${op}":"a"},"b"]}`, /got an object/);
    });
  }
  test("prototype names are neither fields nor operators", () => {
    rejects('{"__proto__":{"$where":"1"}}', /objects are not allowed/);
    rejects('{"__proto__":1}', /Undefined column names: __proto__/);
    rejects('{"name.constructor":1}', /Undefined column names: name.constructor/);
    rejects('{"name.$constructor":1}', /Unknown operator/);
    rejects('{"name.$__proto__":1}', /Unknown operator/);
  });
});

describe("parseWhere: limits", () => {
  test("q up to maxQueryLength bytes is parsed; one byte more is refused", () => {
    const pad = (bytes: number) => `{"name":"${"x".repeat(bytes - 11)}"}`;
    assert.equal(pad(4096).length, 4096);
    assert.deepEqual(Object.keys(where(pad(4096))), ["name"]);
    rejects(pad(4097), /length of q in bytes exceeds the limit of 4096/);
  });
  test("length is counted in UTF-8 bytes, not characters", () => {
    const q = `{"name":"${"é".repeat(2043)}"}`; // 2054 characters, 4097 bytes
    assert.ok(q.length < 4096);
    rejects(q, /length of q in bytes exceeds/);
  });
  test("50 conditions pass, 51 are refused", () => {
    const conditions = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ "$or.id": i })));
    assert.equal((where(conditions(50)).$or as unknown[]).length, 50);
    rejects(conditions(51), /number of conditions in q exceeds the limit of 50/);
  });
  test("keys inside one object count as conditions", () => {
    const keys = ["", "$or.", "$and."].flatMap((prefix) =>
      ["id", "age"].flatMap((field) =>
        ["", ".$not", ".$gt", ".$gte", ".$lt", ".$lte"].map((op) => `${prefix}${field}${op}`)
      )
    );
    const object = (n: number) => Object.fromEntries(keys.slice(0, n).map((key) => [key, 1]));
    assert.equal(keys.length, 36);
    assert.ok(where(JSON.stringify([object(36), object(14)])));
    rejects(JSON.stringify([object(36), object(15)]), /number of conditions in q exceeds the limit of 50/);
  });
  test("groups nest 5 deep; a sixth level is refused", () => {
    assert.deepEqual(where('[[[[[{"id":1}]]]]]'), { _id: 1 });
    rejects('[[[[[[{"id":1}]]]]]]', /nesting depth of q exceeds the limit of 5/);
  });
  test("deep nesting within the byte limit is refused, not a stack overflow", () => {
    rejects("[".repeat(2000) + "]".repeat(2000), /nesting depth/);
  });
  test("an $in list of 1000 passes, 1001 is refused", () => {
    const list = (n: number) => JSON.stringify({ "id.$in": Array.from({ length: n }, (_, i) => i) });
    assert.equal((where(list(1000))._id as { $in: unknown[] }).$in.length, 1000);
    rejects(list(1001), /has 1001 values, more than the limit of 1000/);
  });
  test("limits are configurable", () => {
    const tight = { ...limits, maxConditions: 2, maxDepth: 1, maxInList: 2, maxQueryLength: 40 };
    assert.throws(() => parseWhere('[{"id":1},{"id":2},{"id":3}]', User, tight), /limit of 2/);
    assert.throws(() => parseWhere('[[{"id":1}]]', User, tight), /limit of 1/);
    assert.throws(() => parseWhere('{"id.$in":[1,2,3]}', User, tight), /limit of 2/);
    assert.throws(() => parseWhere(`{"name":"${"x".repeat(40)}"}`, User, tight), /limit of 40/);
  });
});
