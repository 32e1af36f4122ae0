import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Db, type Document, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * `$lookup` and `$unionWith` run by the engine: one read of the foreign collection per input
 * document (once for all of them when nothing of the input reaches the sub-pipeline), planned like a find (an index on the foreign field and the sub-pipeline's sort
 * serve it, a `$limit` bounds it), with MongoDB's equality, collation, views and errors, and
 * explain's `$lookup` counters (`totalKeysExamined`, `totalDocsExamined`, `collectionScans`,
 * `indexesUsed`) counted from the reads made.
 */
describe("embedded engine: $lookup and $unionWith read through the planner", () => {
  let conn: Connected;
  let db: Db;
  let fresh = 0;

  before(async () => {
    conn = await connectTarget("lookup_reads");
    db = conn.db;
  });
  after(async () => {
    await conn?.close();
  });

  /** Two new collections holding `local` and `foreign`, the foreign one indexed on `index` when given. */
  async function collections(local: Document[], foreign: Document[], index?: Document) {
    const n = ++fresh;
    const [l, f] = [db.collection(`local_${n}`), db.collection(`foreign_${n}`)];
    if (local.length > 0) await l.insertMany(local);
    if (foreign.length > 0) await f.insertMany(foreign);
    else await db.createCollection(f.collectionName);
    if (index) await f.createIndex(index);
    return { local: l, foreign: f };
  }

  /** The `$lookup` stage of an executionStats explain of `pipeline` on `collection`. */
  async function lookupStage(collection: string, pipeline: Document[], options: Document = {}): Promise<Document> {
    const explained = await db.command({
      explain: { aggregate: collection, pipeline, cursor: {}, ...options },
      verbosity: "executionStats",
    });
    const stage = (explained.stages as Document[] | undefined)?.find((s) => "$lookup" in s);
    assert.ok(stage, `a $lookup stage in ${JSON.stringify(explained)}`);
    return stage;
  }

  interface JoinCase {
    name: string;
    local: Document[];
    localField: string;
    foreign: Document[];
    foreignField: string;
    /** Local ids with a match when the foreign side holds one document, else the foreign ids matched by the one local document. */
    expected: number[];
  }

  const nullsAndMissing = [
    { _id: 0, no_a: 1 },
    { _id: 1, a: null },
    { _id: 2, a: [null, 1] },
    { _id: 10, a: [] },
    { _id: 20, a: 1 },
    { _id: 21, a: { x: null } },
    { _id: 22, a: [[null, 1], 2] },
    { _id: 23, a: false },
    { _id: 24, a: 0 },
    { _id: 25, a: {} },
    { _id: 26, a: "" },
  ];
  const scalars = [
    { _id: 0, a: 1, y: 2 },
    { _id: 1, a: [1] },
    { _id: 2, a: [1, 2, 3] },
    { _id: 3, a: [1, [2, 3]] },
    { _id: 4, a: [1, [1, 2]] },
    { _id: 5, a: [1, 2, 1] },
    { _id: 6, a: [1, null] },
    { _id: 7, a: [1, []] },
    { _id: 10, a: 2 },
    { _id: 11, a: [[1], 2] },
    { _id: 12, a: [2, 3] },
    { _id: 13, a: { y: 1 } },
    { _id: 14, no_a: 1 },
  ];
  const paths = [
    { _id: 0, a: { x: 1, y: 2 } },
    { _id: 1, a: [{ x: 1 }, { x: 2 }] },
    { _id: 2, a: [{ x: 1 }, { x: null }] },
    { _id: 3, a: [{ x: 1 }, { x: [] }] },
    { _id: 4, a: [{ x: 1 }, { no_x: 2 }] },
    { _id: 5, a: { x: [1, 2] } },
    { _id: 6, a: [{ x: [1, 2] }] },
    { _id: 7, a: [{ x: [1, 2] }, { no_x: 2 }] },
    { _id: 10, a: { x: 2, y: 1 } },
    { _id: 11, a: { x: [2, 3], y: 1 } },
    { _id: 12, a: [{ no_x: 1 }, { x: 2 }, { x: 3 }] },
    { _id: 13, a: { x: [[1], 2] } },
    { _id: 14, a: [{ x: [[1], 2] }] },
    { _id: 15, a: { no_x: 1 } },
  ];
  const arrays = [
    { _id: 0, a: [[1, 2], 3], y: 4 },
    { _id: 1, a: [[1, 2]] },
    { _id: 2, a: [1, 2], y: 3 },
    { _id: 10, a: [[[1, 2], 3], 4] },
    { _id: 11, a: [2, 1] },
    { _id: 12, a: [[2, 1], 3], y: [1, 2] },
    { _id: 13, a: [[2, 1], 3], y: [[1, 2], 3] },
    { _id: 14, a: null },
    { _id: 15, no_a: [1, 2] },
  ];
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const one = (doc: Document): Document[] => [{ _id: 0, ...doc }];
  // MongoDB's own cases (jstests/aggregation/sources/lookup/lookup_equijoin_semantics_lib.js).
  const cases: JoinCase[] = [
    {
      name: "null foreign",
      local: nullsAndMissing,
      localField: "a",
      foreign: one({ b: null }),
      foreignField: "b",
      expected: [0, 1, 2, 10],
    },
    {
      name: "null local",
      local: one({ b: null }),
      localField: "b",
      foreign: nullsAndMissing,
      foreignField: "a",
      expected: [0, 1, 2],
    },
    {
      name: "missing foreign",
      local: nullsAndMissing,
      localField: "a",
      foreign: one({ no_b: 1 }),
      foreignField: "b",
      expected: [0, 1, 2, 10],
    },
    {
      name: "missing local",
      local: one({ no_b: 1 }),
      localField: "b",
      foreign: nullsAndMissing,
      foreignField: "a",
      expected: [0, 1, 2],
    },
    {
      name: "scalar foreign",
      local: scalars,
      localField: "a",
      foreign: one({ b: 1 }),
      foreignField: "b",
      expected: range(8),
    },
    {
      name: "scalar local",
      local: one({ b: 1 }),
      localField: "b",
      foreign: scalars,
      foreignField: "a",
      expected: range(8),
    },
    {
      name: "path local",
      local: paths,
      localField: "a.x",
      foreign: one({ b: 1 }),
      foreignField: "b",
      expected: range(8),
    },
    {
      name: "path foreign",
      local: one({ b: 1 }),
      localField: "b",
      foreign: paths,
      foreignField: "a.x",
      expected: range(8),
    },
    {
      name: "array foreign",
      local: arrays,
      localField: "a",
      foreign: one({ b: [1, 2] }),
      foreignField: "b",
      expected: [0, 1, 2, 11],
    },
    {
      name: "array local",
      local: one({ b: [1, 2] }),
      localField: "b",
      foreign: arrays,
      foreignField: "a",
      expected: [2, 11],
    },
    {
      name: "nested array foreign",
      local: arrays,
      localField: "a",
      foreign: one({ b: [[1, 2], 42] }),
      foreignField: "b",
      expected: [0, 1],
    },
    {
      name: "nested array local",
      local: one({ b: [[1, 2], 42] }),
      localField: "b",
      foreign: arrays,
      foreignField: "a",
      expected: [0, 1, 2],
    },
  ];

  /** The ids a join case matches: local ids with matches, or the foreign ids the one local document matches. */
  async function matched(join: JoinCase, indexed: boolean): Promise<number[]> {
    const { local, foreign } = await collections(
      join.local,
      join.foreign,
      indexed ? { [join.foreignField]: 1 } : undefined,
    );
    const lookup = {
      from: foreign.collectionName,
      localField: join.localField,
      foreignField: join.foreignField,
      as: "m",
    };
    const out = await local.aggregate([{ $lookup: lookup }, { $sort: { _id: 1 } }]).toArray();
    if (join.foreign.length === 1) return out.filter((doc) => doc.m.length > 0).map((doc) => doc._id);
    return out[0].m.map((doc: Document) => doc._id).sort((a: number, b: number) => a - b);
  }

  test("localField/foreignField match as MongoDB does: arrays by element, null, missing and [] alike; with or without an index", async () => {
    for (const join of cases) {
      for (const indexed of [false, true]) {
        assert.deepEqual(
          await matched(join, indexed),
          join.expected,
          `${join.name}, ${indexed ? "indexed" : "no index"}`,
        );
      }
    }
  });

  test("an index on the foreign field and the sub-pipeline's sort serves each read: $limit 5 of 1,000 reads about 5 keys", async () => {
    const foreign = [
      ...Array.from({ length: 1000 }, (_, i) => ({ _id: 10_000 - i, fk: 1, n: i })),
      ...Array.from({ length: 3 }, (_, i) => ({ _id: 20_000 + i, fk: 2 })),
    ];
    const { local, foreign: many } = await collections([{ _id: 1, k: 1 }, { _id: 2, k: 2 }], foreign, {
      fk: 1,
      _id: 1,
    });
    const pipeline = [
      { $sort: { _id: 1 } },
      {
        $lookup: {
          from: many.collectionName,
          localField: "k",
          foreignField: "fk",
          pipeline: [{ $sort: { _id: 1 } }, { $limit: 5 }, { $project: { _id: 1 } }],
          as: "first",
        },
      },
    ];
    const out = await local.aggregate(pipeline).toArray();
    assert.deepEqual(out[0].first.map((d: Document) => d._id), [9001, 9002, 9003, 9004, 9005]);
    assert.deepEqual(out[1].first.map((d: Document) => d._id), [20_000, 20_001, 20_002]);
    const stage = await lookupStage(local.collectionName, pipeline);
    assert.ok(stage.totalKeysExamined <= 5 + 1 + 3 + 1, `keys ${stage.totalKeysExamined}`);
    assert.ok(stage.totalDocsExamined <= 5 + 3 + 2, `docs ${stage.totalDocsExamined}`);
    assert.equal(stage.collectionScans, 0);
    assert.deepEqual(stage.indexesUsed, ["fk_1__id_1"]);
    assert.equal(stage.nReturned, 2);
  });

  test("without an index each input document scans the foreign collection, and explain counts each scan", async () => {
    const { local, foreign } = await collections(
      [{ _id: 1, k: 1 }, { _id: 2, k: 2 }, { _id: 3 }],
      Array.from({ length: 50 }, (_, i) => ({ _id: i, fk: i % 5 })),
    );
    const pipeline = [{
      $lookup: { from: foreign.collectionName, localField: "k", foreignField: "fk", pipeline: [], as: "all" },
    }];
    const out = await local.aggregate(pipeline).toArray();
    assert.deepEqual(out.map((doc) => doc.all.length), [10, 10, 0]);
    const stage = await lookupStage(local.collectionName, pipeline);
    assert.equal(stage.collectionScans, 3);
    assert.deepEqual(stage.indexesUsed, []);
    assert.equal(stage.totalDocsExamined, 150);
  });

  test("a sub-pipeline that uses nothing of the input runs once for all of it, unless it is random", async () => {
    const { local, foreign } = await collections(
      Array.from({ length: 20 }, (_, i) => ({ _id: i })),
      Array.from({ length: 30 }, (_, i) => ({ _id: i, g: i % 3 })),
    );
    const from = foreign.collectionName;
    const grouped = [{
      $lookup: { from, pipeline: [{ $group: { _id: "$g", n: { $sum: 1 } } }, { $sort: { _id: 1 } }], as: "m" },
    }];
    const out = await local.aggregate([...grouped, { $set: { "m.0.n": "$_id" } }]).toArray();
    assert.equal(out.length, 20);
    // The result is shared, yet a later stage writing into one document's copy leaves the others alone.
    out.forEach((doc, i) => assert.deepEqual(doc.m, [{ _id: 0, n: i }, { _id: 1, n: 10 }, { _id: 2, n: 10 }]));
    const once = await lookupStage(local.collectionName, grouped);
    assert.equal(once.collectionScans, 1);
    assert.equal(once.totalDocsExamined, 30);
    const sampled = [{ $lookup: { from, pipeline: [{ $sample: { size: 1 } }], as: "m" } }];
    assert.equal((await lookupStage(local.collectionName, sampled)).collectionScans, 20);
  });

  test("let and pipeline: variables per input document beside the command's, stages after the leading read, nested joins", async () => {
    const { local, foreign } = await collections(
      [{ _id: 1, lo: 2, hi: 5 }, { _id: 2, lo: 8, hi: 9 }, { _id: 3, x: 7 }],
      Array.from({ length: 10 }, (_, i) => ({ _id: i, v: i, tag: i % 2 === 0 ? "even" : "odd" })),
      { v: 1 },
    );
    const pipeline = [
      { $sort: { _id: 1 } },
      {
        $lookup: {
          from: foreign.collectionName,
          let: { lo: "$lo", hi: "$hi" },
          pipeline: [
            { $match: { $expr: { $and: [{ $gte: ["$v", "$$lo"] }, { $lte: ["$v", "$$hi"] }] } } },
            { $sort: { v: -1 } },
            { $addFields: { scaled: { $multiply: ["$v", "$$factor"] } } },
            {
              $lookup: {
                from: foreign.collectionName,
                localField: "tag",
                foreignField: "tag",
                pipeline: [{ $count: "n" }],
                as: "same",
              },
            },
            { $project: { _id: 0, v: 1, scaled: 1, same: { $first: "$same.n" } } },
          ],
          as: "x.in",
        },
      },
    ];
    const out = await local.aggregate(pipeline, { let: { factor: 10 } }).toArray();
    assert.deepEqual(out, [
      {
        _id: 1,
        lo: 2,
        hi: 5,
        x: {
          in: [
            { v: 5, scaled: 50, same: 5 },
            { v: 4, scaled: 40, same: 5 },
            { v: 3, scaled: 30, same: 5 },
            { v: 2, scaled: 20, same: 5 },
          ],
        },
      },
      { _id: 2, lo: 8, hi: 9, x: { in: [{ v: 9, scaled: 90, same: 5 }, { v: 8, scaled: 80, same: 5 }] } },
      { _id: 3, x: { in: [] } }, // a scalar at `x` gives way to the document `as` names, as in MongoDB
    ]);
    const stage = await lookupStage(local.collectionName, pipeline, { let: { factor: 10 } });
    assert.equal(stage.nReturned, 3);
    // $expr bounds no index: one scan per input document, and the nested join's scans count here too.
    assert.ok(stage.collectionScans >= 3, `scans ${stage.collectionScans}`);
  });

  test("localField/foreignField with a pipeline: the pipeline runs over each document's matches only", async () => {
    const { local, foreign } = await collections(
      [{ _id: 1, k: "a" }, { _id: 2, k: ["b", "c"] }, { _id: 3, k: "z" }],
      [
        { _id: 1, k: "a", n: 1 },
        { _id: 2, k: "a", n: 2 },
        { _id: 3, k: "b", n: 3 },
        { _id: 4, k: "c", n: 4 },
        { _id: 5, k: "c", n: 5 },
      ],
      { k: 1 },
    );
    const pipeline = [
      { $sort: { _id: 1 } },
      {
        $lookup: {
          from: foreign.collectionName,
          localField: "k",
          foreignField: "k",
          pipeline: [{ $match: { n: { $gte: 2 } } }, { $group: { _id: null, total: { $sum: "$n" } } }],
          as: "sum",
        },
      },
      { $project: { total: { $first: "$sum.total" } } },
    ];
    assert.deepEqual(await local.aggregate(pipeline).toArray(), [
      { _id: 1, total: 2 },
      { _id: 2, total: 12 },
      { _id: 3 },
    ]);
    const stage = await lookupStage(local.collectionName, pipeline);
    assert.equal(stage.collectionScans, 0);
    assert.deepEqual(stage.indexesUsed, ["k_1"]);
  });

  test("a view as the foreign collection reads its base collection's index; a missing collection reads as empty", async () => {
    const { local, foreign } = await collections(
      [{ _id: 1, k: 1 }, { _id: 2, k: 2 }],
      Array.from({ length: 20 }, (_, i) => ({ _id: i, k: i % 4, live: i % 3 !== 0 })),
      { k: 1 },
    );
    const view = `${foreign.collectionName}_live`;
    await db.createCollection(view, { viewOn: foreign.collectionName, pipeline: [{ $match: { live: true } }] });
    const pipeline = [
      { $sort: { _id: 1 } },
      { $lookup: { from: view, localField: "k", foreignField: "k", pipeline: [], as: "v" } },
      { $lookup: { from: "no_such_collection", localField: "k", foreignField: "k", pipeline: [], as: "none" } },
      { $project: { v: "$v._id", none: 1 } },
    ];
    assert.deepEqual(await local.aggregate(pipeline).toArray(), [
      { _id: 1, v: [1, 5, 13, 17], none: [] },
      { _id: 2, v: [2, 10, 14], none: [] },
    ]);
    const stage = await lookupStage(local.collectionName, pipeline.slice(0, 2));
    assert.equal(stage.nReturned, 2);
    assert.ok(stage.totalDocsExamined <= 20, `docs ${stage.totalDocsExamined}`);
  });

  test("the join compares strings under the aggregate's collation", async () => {
    const { local, foreign } = await collections(
      [{ _id: 1, name: "ANN" }, { _id: 2, name: "bo" }],
      [{ _id: 1, name: "ann" }, { _id: 2, name: "Ann" }, { _id: 3, name: "BO" }, { _id: 4, name: "cy" }],
    );
    const pipeline = [
      { $sort: { _id: 1 } },
      { $lookup: { from: foreign.collectionName, localField: "name", foreignField: "name", pipeline: [], as: "same" } },
      { $project: { same: "$same._id" } },
    ];
    const collation = { locale: "en", strength: 2 };
    assert.deepEqual(await local.aggregate(pipeline, { collation }).toArray(), [
      { _id: 1, same: [1, 2] },
      { _id: 2, same: [3] },
    ]);
    assert.deepEqual(await local.aggregate(pipeline).toArray(), [{ _id: 1, same: [] }, { _id: 2, same: [] }]);
    const stage = await lookupStage(local.collectionName, pipeline, { collation });
    assert.equal(stage.collectionScans, 2);
  });

  test("$unionWith: a name or {coll, pipeline}, a view, a missing collection, $documents; its leading $match uses an index", async () => {
    const { local, foreign } = await collections(
      [{ _id: 1, k: 0 }],
      Array.from({ length: 30 }, (_, i) => ({ _id: 100 + i, k: i % 10 })),
      { k: 1 },
    );
    const view = `${foreign.collectionName}_small`;
    await db.createCollection(view, { viewOn: foreign.collectionName, pipeline: [{ $match: { k: { $lt: 1 } } }] });
    const ops = async () => {
      const stats = await foreign.aggregate([{ $indexStats: {} }]).toArray();
      return Number(stats.find((index) => index.name === "k_1")?.accesses.ops ?? 0);
    };
    const before = await ops();
    const out = await local.aggregate([
      { $unionWith: { coll: foreign.collectionName, pipeline: [{ $match: { k: 3 } }, { $sort: { _id: -1 } }] } },
      { $unionWith: view },
      { $unionWith: "no_such_collection" },
      { $unionWith: { pipeline: [{ $documents: [{ _id: "doc" }] }] } },
      { $project: { k: 1 } },
    ]).toArray();
    assert.deepEqual(out.map((doc) => doc._id), [1, 123, 113, 103, 100, 110, 120, "doc"]);
    assert.equal(await ops(), before + 2, "the $match and the view's $match each read k_1");
  });

  test("malformed $lookup and $unionWith stages are refused with MongoDB's codes and words", async () => {
    const { local } = await collections([], []);
    const refused = async (stage: Document, code: number, message: string | RegExp) => {
      const error = await local.aggregate([stage]).toArray().then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof MongoServerError, `${JSON.stringify(stage)} is refused`);
      assert.equal(error.code, code, `${JSON.stringify(stage)}: ${error.message}`);
      if (typeof message === "string") assert.equal(error.message, message);
      else assert.match(error.message, message);
    };
    await refused({ $lookup: "x" }, 9, "the $lookup stage specification must be an object, but found string");
    await refused({ $lookup: { from: 5, as: "j" } }, 9, "$lookup 'from' field must be a string, but found int");
    await refused(
      { $lookup: { as: "j", localField: "a", foreignField: "b" } },
      9,
      "must specify 'pipeline' when 'from' is empty",
    );
    await refused(
      { $lookup: { as: "j", pipeline: [{ $match: {} }] } },
      9,
      "$lookup stage without explicit collection must have a pipeline with $documents as first stage",
    );
    await refused(
      { $lookup: { from: "x", pipeline: {}, as: "j" } },
      14,
      "'pipeline' option must be specified as an array",
    );
    await refused(
      { $lookup: { from: "x", pipeline: [1], as: "j" } },
      14,
      "Each element of the 'pipeline' array must be an object",
    );
    await refused(
      { $lookup: { from: "x", let: 1, pipeline: [], as: "j" } },
      9,
      /^\$lookup argument 'let: 1' must be an object/,
    );
    // Values printed as MongoDB prints them, not as JSON.
    await refused(
      { $lookup: { from: "x", localField: "a", foreignField: "b", as: { x: 1 } } },
      9,
      "$lookup argument 'as: { x: 1 }' must be a string, is type object",
    );
    await refused(
      { $lookup: { from: "x", localField: "a", foreignField: "b", as: "j", other: "y" } },
      9,
      "unknown argument to $lookup: other",
    );
    await refused(
      { $lookup: { from: "x", localField: "a", foreignField: "b" } },
      9,
      "must specify 'as' field for a $lookup",
    );
    await refused(
      { $lookup: { from: "x", localField: "a", pipeline: [], as: "j" } },
      9,
      "$lookup requires both or neither of 'localField' and 'foreignField' to be specified",
    );
    await refused(
      { $lookup: { from: "x", foreignField: "a", as: "j" } },
      9,
      "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
    );
    await refused(
      { $lookup: { from: "x", localField: "a", foreignField: "b", let: { v: 1 }, as: "j" } },
      9,
      "$lookup with a 'let' argument must also specify 'pipeline'",
    );
    await refused(
      { $lookup: { from: "x", let: { V: 1 }, pipeline: [], as: "j" } },
      9,
      /'V' starts with an invalid character/,
    );
    await refused(
      { $lookup: { from: "x", pipeline: [{ $nope: {} }], as: "j" } },
      40324,
      "Unrecognized pipeline stage name: '$nope'",
    );
    await refused(
      { $lookup: { from: "x", pipeline: [{ $lookup: { from: "y", as: "k" } }], as: "j" } },
      9,
      "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
    );
    await refused(
      { $unionWith: 5 },
      9,
      "the $unionWith stage specification must be an object or string, but found int",
    );
    await refused({ $unionWith: { coll: "x", other: 1 } }, 40415, "BSON field '$unionWith.other' is an unknown field.");
    await refused(
      { $unionWith: { coll: 5 } },
      14,
      "BSON field '$unionWith.coll' is the wrong type 'int', expected type 'string'",
    );
    await refused(
      { $unionWith: { pipeline: [{ $match: {} }] } },
      9,
      "$unionWith stage without explicit collection must have a pipeline with $documents as first stage",
    );
    await refused(
      { $unionWith: { coll: "x", pipeline: [{ $nope: 1 }] } },
      40324,
      "Unrecognized pipeline stage name: '$nope'",
    );
  });
});
