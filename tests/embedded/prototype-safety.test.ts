import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BSON, type Document } from "bson";
import type { Collection } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";
import { assertPrototypesUntouched, type PrototypeState, prototypeState, READ_OPTIONS } from "./prototype-names.ts";

/**
 * `__proto__`, `constructor`, `prototype` (and the other names every JavaScript object answers
 * to) are fields like any other, as in MongoDB, through every operator: stored as literal
 * fields, read only where a document has them, and never written into `Object.prototype`.
 * Specs are written as extended JSON so that `__proto__` is a field of them, as a client's
 * BSON makes it.
 */

// deno-lint-ignore no-explicit-any -- specs and documents of any shape, parsed from extended JSON
const J = (text: string): any => BSON.EJSON.parse(text, { relaxed: true });
const text = (value: unknown): string => BSON.EJSON.stringify(value as Document, { relaxed: true });

let connected: Connected;
/** Documents keyed by number, with any fields. */
type Row = { _id: number; [field: string]: unknown };
let coll: Collection<Row>;
let state: PrototypeState;
let n = 0;

before(async () => {
  connected = await connectTarget("prototype_safety");
});
after(async () => await connected?.close());
beforeEach(async () => {
  coll = connected.db.collection<Row>(`c${n++}`);
  await coll.insertOne(J('{"_id": 1, "a": {"b": 1}, "arr": [{"x": 1}, {"x": 2}], "s": "str"}') as Row);
  state = prototypeState();
});
afterEach(() => assertPrototypesUntouched(state, "after the test"));

async function stored(): Promise<string> {
  return text(await coll.find({}, READ_OPTIONS).sort({ _id: 1 }).toArray());
}

async function aggregated(pipeline: string, options: Document = {}): Promise<string> {
  return text(await coll.aggregate(J(pipeline) as unknown as Document[], { ...READ_OPTIONS, ...options }).toArray());
}

describe("upserts", () => {
  test("the attacker's upsert stores a literal __proto__ field and later writes work", async () => {
    await coll.deleteMany({});
    await coll.updateOne(J('{"__proto__.q": 1}'), { $setOnInsert: { z: 1 } }, { upsert: true });
    const [doc] = await coll.find({}, { ...READ_OPTIONS, projection: { _id: 0 } }).toArray();
    assert.equal(text(doc), '{"__proto__":{"q":1},"z":1}');
    assert.equal(({} as Record<string, unknown>).q, undefined);
    await coll.insertOne({ _id: 2, ok: true });
    assert.equal(await coll.countDocuments({ ok: true }), 1);
  });

  test("an upsert seeds constructor.prototype as nested fields", async () => {
    await coll.updateOne(J('{"_id": 7, "constructor.prototype.polluted": 1}'), { $set: { z: 1 } }, { upsert: true });
    assert.equal(text(await coll.findOne({ _id: 7 })), '{"_id":7,"constructor":{"prototype":{"polluted":1}},"z":1}');
  });

  test("an equality on a whole __proto__ document seeds it", async () => {
    await coll.updateOne(J('{"_id": 8, "__proto__": {"q": 1}}'), { $set: { z: 1 } }, { upsert: true });
    assert.equal(text(await coll.findOne({ _id: 8 }, READ_OPTIONS)), '{"_id":8,"__proto__":{"q":1},"z":1}');
  });
});

describe("update operators", () => {
  const BASE = '"_id":1,"a":{"b":1},"arr":[{"x":1},{"x":2}],"s":"str"';
  const cases: [string, string, string][] = [
    ["$set through __proto__", '{"$set": {"__proto__.q": 1}}', `{${BASE},"__proto__":{"q":1}}`],
    [
      "$set through constructor.prototype",
      '{"$set": {"a.constructor.prototype.x": 1}}',
      '{"_id":1,"a":{"b":1,"constructor":{"prototype":{"x":1}}},"arr":[{"x":1},{"x":2}],"s":"str"}',
    ],
    ["$set of toString", '{"$set": {"toString": 5}}', `{${BASE},"toString":5}`],
    ["$inc", '{"$inc": {"constructor.n": 2}}', `{${BASE},"constructor":{"n":2}}`],
    ["$mul", '{"$mul": {"__proto__": 3}}', `{${BASE},"__proto__":0}`],
    ["$min", '{"$min": {"prototype": 3}}', `{${BASE},"prototype":3}`],
    ["$max", '{"$max": {"a.__proto__": 3}}', '{"_id":1,"a":{"b":1,"__proto__":3},"arr":[{"x":1},{"x":2}],"s":"str"}'],
    ["$push", '{"$push": {"__proto__.list": 1}}', `{${BASE},"__proto__":{"list":[1]}}`],
    ["$addToSet", '{"$addToSet": {"constructor": {"$each": [1, 1, 2]}}}', `{${BASE},"constructor":[1,2]}`],
    ["$bit", '{"$bit": {"__proto__": {"or": 5}}}', `{${BASE},"__proto__":5}`],
    ["$currentDate", '{"$currentDate": {"__proto__.at": true}}', ""],
  ];
  for (const [name, update, expected] of cases) {
    test(name, async () => {
      await coll.updateOne({ _id: 1 }, J(update));
      if (expected !== "") assert.equal(await stored(), `[${expected}]`);
      else assert.ok(((await coll.findOne({ _id: 1 }, READ_OPTIONS))!.__proto__ as { at: unknown }).at instanceof Date);
    });
  }

  test("$rename onto __proto__ moves the field there", async () => {
    await coll.updateOne({ _id: 1 }, J('{"$rename": {"a": "__proto__"}}'));
    assert.equal(await stored(), '[{"_id":1,"arr":[{"x":1},{"x":2}],"s":"str","__proto__":{"b":1}}]');
  });

  test("$set through every element and through array filters", async () => {
    await coll.updateOne({ _id: 1 }, J('{"$set": {"arr.$[].constructor": 0, "arr.$[e].__proto__": 9}}'), {
      arrayFilters: [J('{"e.x": 2}')],
    });
    assert.equal(
      await stored(),
      '[{"_id":1,"a":{"b":1},"arr":[{"x":1,"constructor":0},{"x":2,"constructor":0,"__proto__":9}],"s":"str"}]',
    );
  });

  test("an array filter on a constructor field sees only owned fields", async () => {
    await coll.updateOne({ _id: 1 }, J('{"$set": {"arr.$[e].y": 1}}'), {
      arrayFilters: [J('{"e.constructor": {"$exists": true}}')],
    });
    assert.equal(await stored(), '[{"_id":1,"a":{"b":1},"arr":[{"x":1},{"x":2}],"s":"str"}]');
  });

  test("$unset of a constructor the document lacks changes nothing", async () => {
    const result = await coll.updateOne({ _id: 1 }, J('{"$unset": {"constructor": ""}}'));
    assert.equal(result.modifiedCount, 0);
  });

  test("$pull and $pullAll on __proto__ arrays", async () => {
    await coll.updateOne({ _id: 1 }, J('{"$set": {"__proto__": [1, 2, 3], "constructor": [4, 5]}}'));
    await coll.updateOne({ _id: 1 }, J('{"$pull": {"__proto__": {"$gte": 2}}, "$pullAll": {"constructor": [4]}}'));
    assert.equal(
      await stored(),
      '[{"_id":1,"a":{"b":1},"arr":[{"x":1},{"x":2}],"s":"str","__proto__":[1],"constructor":[5]}]',
    );
  });

  test("a pipeline update builds __proto__ and constructor fields", async () => {
    await coll.updateOne({ _id: 1 }, J('[{"$set": {"__proto__": {"q": "$s"}, "constructor.prototype": 1}}]'));
    assert.equal(
      await stored(),
      '[{"_id":1,"a":{"b":1},"arr":[{"x":1},{"x":2}],"s":"str","__proto__":{"q":"str"},"constructor":{"prototype":1}}]',
    );
  });

  test("a replacement keeps __proto__ as a field", async () => {
    await coll.replaceOne({ _id: 1 }, J('{"__proto__": {"q": 1}}'));
    assert.equal(await stored(), '[{"_id":1,"__proto__":{"q":1}}]');
  });
});

describe("reads", () => {
  beforeEach(async () => {
    await coll.insertOne(J('{"_id": 2, "__proto__": {"q": 2}, "constructor": "c", "toString": 3}'));
  });

  test("filters see only the fields a document owns", async () => {
    const ids = async (filter: string) => (await coll.find(J(filter)).toArray()).map((doc) => doc._id);
    assert.deepEqual(await ids('{"constructor": {"$exists": true}}'), [2]);
    assert.deepEqual(await ids('{"__proto__": {"$exists": false}}'), [1]);
    assert.deepEqual(await ids('{"__proto__.q": 2}'), [2]);
    assert.deepEqual(await ids('{"toString": null}'), [1]);
    assert.deepEqual(await ids('{"constructor.name": "Object"}'), []);
    assert.deepEqual(await ids('{"$expr": {"$eq": ["$constructor", "c"]}}'), [2]);
  });

  test("sorts and indexes read __proto__ and constructor as fields", async () => {
    await coll.insertOne(J('{"_id": 3, "__proto__": {"q": 1}, "constructor": "a"}'));
    const order = async (sort: string) => (await coll.find({}).sort(J(sort)).toArray()).map((doc) => doc._id);
    assert.deepEqual(await order('{"__proto__.q": 1, "_id": 1}'), [1, 3, 2]);
    await coll.createIndex(J('{"constructor": 1}'));
    assert.deepEqual(await order('{"constructor": -1, "_id": 1}'), [2, 3, 1]);
    assert.deepEqual((await coll.find(J('{"constructor": "a"}')).toArray()).map((doc) => doc._id), [3]);
    await coll.createIndex(J('{"__proto__.q": 1}'), { unique: true });
    await refused(() => coll.insertOne(J('{"_id": 4, "__proto__": {"q": 1}}')), 11000);
  });

  test("distinct reads __proto__ fields", async () => {
    assert.deepEqual(await coll.distinct("__proto__.q"), [2]);
    assert.deepEqual(await coll.distinct("constructor"), ["c"]);
  });

  test("find projections include and exclude __proto__", async () => {
    const projected = async (projection: string) =>
      text(await coll.find({ _id: 2 }, { ...READ_OPTIONS, projection: J(projection) }).toArray());
    assert.equal(await projected('{"__proto__": 1}'), '[{"_id":2,"__proto__":{"q":2}}]');
    assert.equal(await projected('{"__proto__": 0, "_id": 0}'), '[{"constructor":"c","toString":3}]');
    assert.equal(await projected('{"p": "$__proto__.q", "constructor": 1}'), '[{"_id":2,"constructor":"c","p":2}]');
  });
});

describe("pipeline stages and expressions", () => {
  const cases: [string, string, string][] = [
    ["$replaceRoot", '[{"$replaceRoot": {"newRoot": {"__proto__": {"q": "$s"}}}}]', '[{"__proto__":{"q":"str"}}]'],
    ["$replaceWith", '[{"$replaceWith": {"constructor": "$a"}}]', '[{"constructor":{"b":1}}]'],
    [
      "$addFields",
      '[{"$addFields": {"__proto__.q": 1}}, {"$project": {"__proto__": 1}}]',
      '[{"_id":1,"__proto__":{"q":1}}]',
    ],
    [
      "$project",
      '[{"$project": {"_id": 0, "constructor": {"prototype": "$s"}}}]',
      '[{"constructor":{"prototype":"str"}}]',
    ],
    [
      "$project exclusion",
      '[{"$set": {"__proto__": 1}}, {"$project": {"a": 0, "arr": 0, "s": 0}}]',
      '[{"_id":1,"__proto__":1}]',
    ],
    [
      "$group",
      '[{"$group": {"_id": {"__proto__": "$s"}, "constructor": {"$sum": 1}}}]',
      '[{"_id":{"__proto__":"str"},"constructor":1}]',
    ],
    [
      "$lookup",
      '[{"$lookup": {"from": "COLL", "pipeline": [{"$project": {"_id": 1}}], "as": "__proto__"}}, {"$project": {"__proto__": 1}}]',
      '[{"_id":1,"__proto__":[{"_id":1}]}]',
    ],
    [
      "$lookup as a path",
      '[{"$lookup": {"from": "COLL", "localField": "_id", "foreignField": "_id", "as": "constructor.prototype"}}, {"$project": {"n": {"$size": "$constructor.prototype"}}}]',
      '[{"_id":1,"n":1}]',
    ],
    [
      "$graphLookup",
      '[{"$graphLookup": {"from": "COLL", "startWith": "$_id", "connectFromField": "_id", "connectToField": "_id", "as": "constructor.prototype", "depthField": "__proto__"}}, {"$project": {"d": "$constructor.prototype.__proto__"}}]',
      '[{"_id":1,"d":[0]}]',
    ],
    [
      "$unwind",
      '[{"$unwind": {"path": "$arr", "includeArrayIndex": "__proto__"}}, {"$project": {"__proto__": 1}}]',
      '[{"_id":1,"__proto__":0},{"_id":1,"__proto__":1}]',
    ],
    [
      "$setWindowFields",
      '[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"__proto__": {"$sum": 1}}}}, {"$project": {"__proto__": 1}}]',
      '[{"_id":1,"__proto__":1}]',
    ],
    ["$facet", '[{"$facet": {"__proto__": [{"$count": "constructor"}]}}]', '[{"__proto__":[{"constructor":1}]}]'],
    [
      "$bucket",
      '[{"$bucket": {"groupBy": "$_id", "boundaries": [0, 5], "output": {"__proto__": {"$sum": 1}}}}]',
      '[{"_id":0,"__proto__":1}]',
    ],
    [
      "$bucketAuto",
      '[{"$bucketAuto": {"groupBy": "$_id", "buckets": 1, "output": {"constructor": {"$push": "$s"}}}}]',
      '[{"_id":{"min":1,"max":1},"constructor":["str"]}]',
    ],
    ["$count", '[{"$count": "__proto__"}]', '[{"__proto__":1}]'],
    ["$sortByCount", '[{"$set": {"constructor": "k"}}, {"$sortByCount": "$constructor"}]', '[{"_id":"k","count":1}]'],
    [
      "$arrayToObject",
      '[{"$project": {"_id": 0, "o": {"$arrayToObject": [[["__proto__", 1], ["constructor", 2]]]}, "p": {"$arrayToObject": [[{"k": "prototype", "v": 3}]]}}}]',
      '[{"o":{"__proto__":1,"constructor":2},"p":{"prototype":3}}]',
    ],
    [
      "$objectToArray",
      '[{"$project": {"_id": 0, "o": {"$objectToArray": {"$literal": {"__proto__": 1}}}}}]',
      '[{"o":[{"k":"__proto__","v":1}]}]',
    ],
    [
      "$mergeObjects",
      '[{"$project": {"_id": 0, "o": {"$mergeObjects": [{"$literal": {"__proto__": 1}}, {"constructor": 2}]}}}]',
      '[{"o":{"__proto__":1,"constructor":2}}]',
    ],
    [
      "$setField and $getField",
      '[{"$project": {"_id": 0, "o": {"$setField": {"field": "__proto__", "input": {}, "value": 1}}, "g": {"$getField": "toString"}}}]',
      '[{"o":{"__proto__":1}}]',
    ],
    [
      "$unsetField",
      '[{"$project": {"_id": 0, "o": {"$unsetField": {"field": "__proto__", "input": {"$literal": {"__proto__": 1, "k": 2}}}}}}]',
      '[{"o":{"k":2}}]',
    ],
    [
      "$$ROOT paths",
      '[{"$set": {"__proto__": {"q": 5}}}, {"$project": {"_id": 0, "q": "$$ROOT.__proto__.q", "c": "$$ROOT.constructor"}}]',
      '[{"q":5}]',
    ],
    [
      "$map and $let variables",
      '[{"$project": {"_id": 0, "xs": {"$map": {"input": "$arr", "as": "constructor", "in": "$$constructor.x"}}, "l": {"$let": {"vars": {"prototype": 3}, "in": "$$prototype"}}}}]',
      '[{"xs":[1,2],"l":3}]',
    ],
    [
      "$group output from $first of $$ROOT",
      '[{"$set": {"__proto__": {"q": 1}}}, {"$group": {"_id": null, "r": {"$first": "$$ROOT"}}}, {"$project": {"q": "$r.__proto__.q"}}]',
      '[{"_id":null,"q":1}]',
    ],
    [
      "$unionWith",
      '[{"$project": {"_id": 1}}, {"$unionWith": {"coll": "COLL", "pipeline": [{"$project": {"_id": 0, "__proto__": "$s"}}]}}]',
      '[{"_id":1},{"__proto__":"str"}]',
    ],
  ];
  for (const [name, pipeline, expected] of cases) {
    test(name, async () => {
      assert.equal(await aggregated(pipeline.replaceAll("COLL", coll.collectionName)), expected);
    });
  }

  test("let variables named like Object.prototype's members are variables", async () => {
    const out = await aggregated('[{"$project": {"_id": 0, "v": "$$constructor", "w": "$$toString.__proto__"}}]', {
      let: J('{"constructor": 1, "toString": {"__proto__": 2}}'),
    });
    assert.equal(out, '[{"v":1,"w":2}]');
  });

  test("a $lookup's let variables keep __proto__ fields", async () => {
    await coll.updateOne({ _id: 1 }, J('{"$set": {"__proto__": {"q": 1}}}'));
    const out = await aggregated(
      `[{"$lookup": {"from": "${coll.collectionName}", "let": {"constructor": "$$ROOT"}, "pipeline": [{"$project": {"_id": 0, "q": "$$constructor.__proto__.q"}}], "as": "j"}}, {"$project": {"j": 1}}]`,
    );
    assert.equal(out, '[{"_id":1,"j":[{"q":1}]}]');
  });

  test("$mergeObjects refuses what is not a document, as MongoDB does", async () => {
    await refused(
      () => coll.aggregate([{ $project: { m: { $mergeObjects: ["$s"] } } }]).toArray(),
      40400,
      '$mergeObjects requires object inputs, but input "str" is of type string',
    );
  });

  test("$jsonSchema's required is met only by an owned field", async () => {
    const ids = async (schema: string) => (await coll.find({ $jsonSchema: J(schema) }).toArray()).map((d) => d._id);
    await coll.insertOne(J('{"_id": 2, "constructor": 1}'));
    assert.deepEqual(await ids('{"required": ["constructor"]}'), [2]);
    assert.deepEqual(await ids('{"properties": {"__proto__": {"bsonType": "int"}}, "required": ["__proto__"]}'), []);
  });
});

describe("names a client chooses elsewhere", () => {
  test("collections, databases and indexes may be named __proto__ or constructor", async () => {
    const db = connected.client.db("__proto__");
    await db.collection<Row>("constructor").insertOne({ _id: 1 });
    await db.collection("__proto__").createIndex({ a: 1 }, { name: "toString" });
    assert.deepEqual((await db.listCollections().toArray()).map((c) => c.name).sort(), ["__proto__", "constructor"]);
    assert.deepEqual((await db.collection("__proto__").listIndexes().toArray()).map((i) => i.name), [
      "_id_",
      "toString",
    ]);
    await db.collection("__proto__").dropIndex("toString");
    await refused(() => db.collection("__proto__").dropIndex("constructor"), 27);
    assert.ok(
      (await connected.client.db("admin").admin().listDatabases()).databases.some((d) => d.name === "__proto__"),
    );
    await db.dropDatabase();
  });

  test("lookup tables answer only their own names", async () => {
    await refused(
      () => coll.find({ s: { $type: "constructor" } }).toArray(),
      2,
      "Unknown type name alias: constructor",
    );
    await refused(() => coll.find({ s: { $regex: "[[:constructor:]]" } }).toArray(), 51091);
    await refused(() => coll.aggregate([{ $project: { t: { $convert: { input: 1, to: "toString" } } } }]).toArray(), 2);
    await refused(() => connected.db.command({ constructor: 1 }), 59, "no such command: 'constructor'");
  });
});
