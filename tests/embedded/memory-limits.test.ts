import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection, Document } from "mongodb";
import { MongoClient } from "mongodb";
import { memoryLimits } from "../../src/embedded/query/memory.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/**
 * A command that would build a huge value or make a stage hold too much stops at MongoDB's
 * limits with MongoDB's errors (query/memory.ts), instead of growing the heap until the process
 * dies. Limits are lowered where small data should reach them, and put back after each test.
 */

type Row = { _id: number; [field: string]: unknown };

const DEFAULTS = { ...memoryLimits };
let connected: Connected;
let coll: Collection<Row>;

before(async () => {
  connected = await connectTarget("memory_limits");
  coll = connected.db.collection<Row>("rows");
  await coll.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, s: `string ${i % 4}`, n: i, g: i % 2 })));
});
after(async () => await connected?.close());
afterEach(() => Object.assign(memoryLimits, DEFAULTS));

const aggregate = (pipeline: Document[], options: Document = {}) => coll.aggregate(pipeline, options).toArray();

describe("expressions", () => {
  test("$range past internalQueryMaxRangeBytes is refused before its array is made, as MongoDB words it", async () => {
    await refused(
      () => aggregate([{ $limit: 1 }, { $project: { r: { $range: [0, 3e7] } } }]),
      146,
      "$range would use too much memory (480000040 bytes) and cannot spill to disk. Memory limit: 104857600 bytes",
    );
    const [small] = await aggregate([{ $limit: 1 }, { $project: { _id: 0, r: { $size: { $range: [0, 1000] } } } }]);
    assert.deepEqual(small, { r: 1000 });
  });

  test("what one document's expressions build is counted in all: many arrays each under the limit", async () => {
    memoryLimits.expressions = 100_000;
    const fields = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { $range: [0, 500] }]));
    await refused(
      () => aggregate([{ $project: fields }]),
      146,
      /^\$range would use too much memory \(\d+ bytes for one document's expressions\)/,
    );
    const few = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, { $size: { $range: [0, 500] } }]));
    assert.equal((await aggregate([{ $project: few }])).length, 20, "each document's count starts afresh");
  });

  test("$concatArrays, $zip and $split are counted before they build", async () => {
    memoryLimits.expressions = 100_000;
    const big = { $literal: Array.from({ length: 100 }, (_, i) => i) };
    await refused(
      () => aggregate([{ $project: { r: { $concatArrays: Array(100).fill(big) } } }]),
      146,
      /^\$concatArrays would use/,
    );
    await refused(
      () => aggregate([{ $project: { r: { $zip: { inputs: Array(100).fill(big) } } } }]),
      146,
      /^\$zip would use/,
    );
    const text = { $literal: ",".repeat(10_000) };
    await refused(() => aggregate([{ $project: { r: { $split: [text, ","] } } }]), 146, /^\$split would use/);
  });

  test("$reduce counts the value it holds, not every step's copy", async () => {
    memoryLimits.expressions = 100_000;
    const grown = {
      $reduce: { input: { $range: [0, 2000] }, initialValue: [], in: { $concatArrays: ["$$value", ["$$this"]] } },
    };
    const [out] = await aggregate([{ $limit: 1 }, { $project: { _id: 0, n: { $size: grown } } }]);
    assert.deepEqual(out, { n: 2000 }, "2000 steps of up to 2000 slots each would pass the limit if all were counted");
  });

  test("a string past 16 MiB is refused as MongoDB refuses it (16493)", async () => {
    const doubled = {
      $reduce: { input: { $range: [0, 23] }, initialValue: "ab", in: { $concat: ["$$value", "$$value"] } },
    };
    await refused(
      () => aggregate([{ $limit: 1 }, { $project: { s: { $strLenCP: doubled } } }]),
      16493,
      "Tried to create string longer than 16MB",
    );
    const wide = {
      $reduce: { input: { $range: [0, 20] }, initialValue: "b", in: { $concat: ["$$value", "$$value"] } },
    };
    await refused(
      () =>
        aggregate([{ $limit: 1 }, {
          $project: {
            s: { $strLenCP: { $replaceAll: { input: "aaaaaaaaaaaaaaaaaaaa", find: "a", replacement: wide } } },
          },
        }]),
      16493,
    );
  });
});

describe("accumulators", () => {
  test("$push past internalQueryMaxPushBytes, in $group and in a window", async () => {
    memoryLimits.push = 300;
    const message = "$push used too much memory and cannot spill to disk. Memory limit: 300 bytes";
    await refused(() => aggregate([{ $group: { _id: null, all: { $push: "$s" } } }]), 146, message);
    await refused(
      () => aggregate([{ $setWindowFields: { sortBy: { _id: 1 }, output: { all: { $push: "$s" } } } }]),
      146,
      message,
    );
    const [fits] = await aggregate([{ $match: { _id: { $lt: 3 } } }, { $group: { _id: null, all: { $push: "$s" } } }]);
    assert.deepEqual(fits.all, ["string 0", "string 1", "string 2"]);
  });

  test("$addToSet counts each value once: duplicates add nothing", async () => {
    memoryLimits.addToSet = 200;
    const [distinct] = await aggregate([{ $group: { _id: null, all: { $addToSet: "$s" } } }]);
    assert.equal(distinct.all.length, 4, "four distinct strings fit where twenty pushed would not");
    await refused(
      () => aggregate([{ $group: { _id: null, all: { $addToSet: "$n" } } }]),
      146,
      "$addToSet used too much memory and cannot spill to disk. Memory limit: 200 bytes",
    );
  });

  test("the N accumulators past internalQueryTopNAccumulatorBytes", async () => {
    memoryLimits.topN = 100;
    for (
      const [op, spec] of [
        ["$firstN", { n: 20, input: "$s" }],
        ["$lastN", { n: 20, input: "$s" }],
        ["$maxN", { n: 20, input: "$s" }],
        ["$minN", { n: 20, input: "$s" }],
        ["$topN", { n: 20, sortBy: { n: 1 }, output: "$s" }],
        ["$bottomN", { n: 20, sortBy: { n: 1 }, output: "$s" }],
      ] as const
    ) {
      await refused(
        () => aggregate([{ $group: { _id: null, kept: { [op]: spec } } }]),
        146,
        `${op} used too much memory and spilling to disk cannot reduce memory consumption any further. Memory limit: 100 bytes`,
      );
    }
  });
});

describe("blocking stages", () => {
  test("a $group past its limit is refused as when it may not spill, allowDiskUse or not (292)", async () => {
    memoryLimits.group = 1000;
    const message =
      "Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.";
    await refused(() => aggregate([{ $group: { _id: "$g", n: { $sum: 1 } } }]), 292, message);
    await refused(() => aggregate([{ $group: { _id: "$g", n: { $sum: 1 } } }], { allowDiskUse: true }), 292, message);
    await refused(() => aggregate([{ $sortByCount: "$g" }]), 292, message);
  });

  test("a blocking sort past its limit, in $sort, find and $bucketAuto (292)", async () => {
    memoryLimits.sort = 1000;
    const message = "Sort exceeded memory limit of 1000 bytes, but did not opt in to external sorting.";
    await refused(() => aggregate([{ $sort: { s: 1 } }], { allowDiskUse: true }), 292, message);
    await refused(() => coll.find({}).sort({ s: 1 }).toArray(), 292, message);
    await refused(() => aggregate([{ $bucketAuto: { groupBy: "$n", buckets: 2 } }]), 292, message);
    assert.equal((await coll.find({}).sort({ s: 1 }).limit(3).toArray()).length, 3, "a short page holds little");
  });

  test("$setWindowFields past its limit (5414201)", async () => {
    memoryLimits.windows = 1000;
    await refused(
      () => aggregate([{ $setWindowFields: { sortBy: { n: 1 }, output: { c: { $documentNumber: {} } } } }]),
      5414201,
      /^Exceeded memory limit in DocumentSourceSetWindowFields, used \d+ bytes but max allowed is 1000$/,
    );
  });

  test("$facet's document past its limit (4031700), and its input", async () => {
    memoryLimits.facet = 5000;
    const projected = [{ $project: { s: 1 } }];
    await refused(
      () => aggregate([{ $facet: { a: projected, b: projected, c: projected, d: projected } }]),
      4031700,
      /^document constructed by \$facet is \d+ bytes, which exceeds the limit of 5000 bytes$/,
    );
    memoryLimits.facet = 1000;
    await refused(
      () => aggregate([{ $facet: { n: [{ $count: "n" }] } }]),
      146,
      /^\$facet would hold \d+ bytes of input documents/,
    );
  });

  test("one document's $lookup matches past their limit (4568)", async () => {
    memoryLimits.lookup = 1000;
    const lookup = { $lookup: { from: "rows", pipeline: [], as: "all" } };
    await refused(
      () => aggregate([{ $limit: 1 }, lookup]),
      4568,
      "Total size of documents in rows matching pipeline's $lookup stage exceeds 1000 bytes",
    );
    await refused(
      () =>
        aggregate([{ $limit: 1 }, {
          $facet: { x: [{ $lookup: { from: "rows", localField: "g", foreignField: "g", as: "m" } }] },
        }]),
      4568,
    );
  });

  test("$graphLookup past its memory (40099)", async () => {
    memoryLimits.graphLookup = 1000;
    const graph = {
      $graphLookup: { from: "rows", startWith: "$g", connectFromField: "g", connectToField: "g", as: "all" },
    };
    await refused(() => aggregate([{ $limit: 1 }, graph]), 40099, "$graphLookup reached maximum memory consumption");
  });
});

describe("documents too large to build", () => {
  // Forty stages each nesting `$x` twice into itself: a document of 2^40 values sharing a few.
  const doubling = Array.from({ length: 40 }, () => ({ $set: { x: { a: "$x", b: "$x" } } }));

  test(
    "a result of shared values is refused by its size without being walked (10334)",
    { timeout: 60_000 },
    async () => {
      await refused(() => aggregate([{ $limit: 1 }, { $set: { x: "$s" } }, ...doubling]), 10334, /^BSONObj size: \d+/);
    },
  );

  test("so is such an update, and such a document copied after a join", { timeout: 60_000 }, async () => {
    await refused(() => coll.updateOne({ _id: 0 }, [{ $set: { x: "$s" } }, ...doubling]), 10334);
    await refused(
      () =>
        aggregate([{ $limit: 1 }, { $set: { x: "$s" } }, ...doubling, {
          $lookup: { from: "rows", pipeline: [{ $limit: 1 }], as: "j" },
        }, { $set: { y: 1 } }]),
      146,
      /^A document after a join would use too much memory/,
    );
  });
});

test("the engine's thread answers three parallel $range: [0, 3e7] with errors, then the next command", async () => {
  const engine = await startEmbeddedEngine({ thread: true });
  const client = new MongoClient(engine.uri);
  try {
    const rows = client.db("memory").collection<Row>("rows");
    await rows.insertOne({ _id: 1 });
    const attempts = await Promise.allSettled(
      [0, 1, 2].map(() => rows.aggregate([{ $project: { r: { $range: [0, 3e7] } } }]).toArray()),
    );
    for (const attempt of attempts) {
      assert.equal(attempt.status, "rejected");
      assert.equal((attempt as PromiseRejectedResult).reason.code, 146);
    }
    assert.deepEqual(await rows.find({}).toArray(), [{ _id: 1 }]);
  } finally {
    await client.close();
    await engine.close();
  }
});
