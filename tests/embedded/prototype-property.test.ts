import { after, before, test } from "node:test";
import fc from "fast-check";
import { type Document, MongoServerError } from "mongodb";
import { checkProperty, TEST_SEED } from "../helpers/seed.ts";
import { type Connected, connectTarget } from "./helpers.ts";
import {
  assertPrototypesUntouched,
  ejson,
  objectOf,
  prototypeState,
  READ_OPTIONS,
  STAND_INS,
  withHazardousNames,
} from "./prototype-names.ts";

/**
 * Every update operator and pipeline stage, given `__proto__`, `constructor`, `prototype` and
 * `toString` as field names at any depth, in dotted paths and as the names stages create
 * (`as`, `includeArrayIndex`, `$group` and `$facet` outputs, `$count`...): after each operation
 * `Object.prototype`, `Array.prototype` and `Function.prototype` are as they were, and what it
 * returns and stores is what the same operation gives on names that are not special (the
 * stand-ins of prototype-names.ts), names swapped back. That is MongoDB's behaviour: such a
 * name is a field like any other.
 *
 * Operations are generated with the stand-ins and rendered twice: as generated, and with the
 * hazardous names (withHazardousNames), each on a collection of its own.
 */

let connected: Connected;
before(async () => {
  connected = await connectTarget("prototype_property");
  console.log(`prototype-property: TEST_SEED=${TEST_SEED}`);
});
after(async () => await connected?.close());

// ---- Generated values, in the stand-ins' spelling ----

const name = fc.constantFrom("a", "b", ...STAND_INS.keys());
/** Names valid as `let` variables (a lowercase first letter), stand-ins included. */
const variable = fc.constantFrom("v", "constructox", "prototypx", "toStrinx");
const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("."));
const scalar = fc.oneof(fc.integer({ min: 0, max: 4 }), name, fc.constant(null));

const { value } = fc.letrec<{ value: unknown; doc: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    tie("doc"),
  ),
  doc: fc.array(fc.tuple(name, tie("value")), { maxLength: 3 }).map(objectOf),
}));

/** An object of 1-2 generated keys, each with a generated value. */
function fieldsOf(key: fc.Arbitrary<string>, val: fc.Arbitrary<unknown>): fc.Arbitrary<Document> {
  return fc.array(fc.tuple(key, val), { minLength: 1, maxLength: 2 }).map(objectOf);
}

const documents = fc.array(fc.array(fc.tuple(name, value), { maxLength: 4 }), { minLength: 1, maxLength: 3 })
  .map((docs) => docs.map((entries, i) => ({ _id: i + 1, ...objectOf(entries) })));

const condition = fc.oneof(
  scalar,
  value,
  fc.boolean().map(($exists) => ({ $exists })),
  fc.integer({ min: 0, max: 4 }).map(($gte) => ({ $gte })),
  fc.array(scalar, { minLength: 1, maxLength: 2 }).map(($in) => ({ $in })),
  fieldsOf(name, scalar).map(($elemMatch) => ({ $elemMatch })),
);
const filter = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  { weight: 3, arbitrary: fieldsOf(path, condition) },
  { weight: 1, arbitrary: fc.tuple(path, scalar).map(([p, v]) => ({ $expr: { $eq: [`$${p}`, { $literal: v }] } })) },
);

// ---- Expressions and stages ----

const { expr } = fc.letrec<{ expr: unknown }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    path.map((p) => `$${p}`),
    path.map((p) => `$$ROOT.${p}`),
    value.map(($literal) => ({ $literal })),
    fieldsOf(name, tie("expr")),
    fc.tuple(name, tie("expr")).map(([k, v]) => ({ $arrayToObject: [[[k, v]]] })),
    fc.tuple(name, tie("expr")).map(([k, v]) => ({ $arrayToObject: [[{ k, v }]] })),
    path.map((p) => ({ $objectToArray: `$${p}` })),
    fc.tuple(path, tie("expr")).map(([p, e]) => ({ $mergeObjects: [`$${p}`, { $literal: {} }, e] })),
    name.map(($getField) => ({ $getField })),
    fc.tuple(name, path).map(([field, p]) => ({ $getField: { field, input: `$${p}` } })),
    fc.tuple(name, tie("expr")).map(([field, v]) => ({ $setField: { field, input: "$$ROOT", value: v } })),
    fc.tuple(name, path).map(([field, p]) => ({ $unsetField: { field, input: `$${p}` } })),
    fc.tuple(variable, tie("expr")).map(([v, e]) => ({ $let: { vars: objectOf([[v, e]]), in: `$$${v}` } })),
    fc.tuple(path, variable, name).map(([p, v, n]) => ({ $map: { input: `$${p}`, as: v, in: `$$${v}.${n}` } })),
    fc.tuple(path, tie("expr")).map(([p, e]) => ({ $ifNull: [`$${p}`, e] })),
  ),
}));

const accumulator = fc.oneof(
  fc.constant({ $sum: 1 }),
  path.map((p) => ({ $push: `$${p}` })),
  path.map((p) => ({ $addToSet: `$${p}` })),
  fc.constant({ $first: "$$ROOT" }),
  path.map((p) => ({ $mergeObjects: `$${p}` })),
  path.map((p) => ({ $max: `$${p}` })),
);

const simpleStage = fc.oneof(
  filter.map(($match) => ({ $match })),
  fieldsOf(path, fc.oneof(fc.constant(1), fc.constant(0), expr)).map(($project) => ({ $project })),
  fieldsOf(path, expr).map(($addFields) => ({ $addFields })),
  fieldsOf(path, expr).map(($set) => ({ $set })),
  path.map(($unset) => ({ $unset })),
  fieldsOf(name, expr).map((newRoot) => ({ $replaceRoot: { newRoot } })),
  fieldsOf(name, expr).map((fields) => ({ $replaceWith: { $mergeObjects: ["$$ROOT", fields] } })),
  fc.tuple(path, fc.constantFrom(1, -1)).map(([p, d]) => ({ $sort: objectOf([[p, d], ["_id", 1]]) })),
  fc.tuple(path, name).map(([p, i]) => ({
    $unwind: { path: `$${p}`, includeArrayIndex: i, preserveNullAndEmptyArrays: true },
  })),
  name.map(($count) => ({ $count })),
  path.map((p) => ({ $sortByCount: `$${p}` })),
);

const stage = fc.oneof(
  { weight: 4, arbitrary: simpleStage },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.oneof(fc.constant(null), path.map((p) => `$${p}`), fieldsOf(name, path.map((p) => `$${p}`))),
      fieldsOf(name, accumulator),
    )
      .map(([_id, fields]) => ({ $group: { _id, ...fields } })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(path, filter).map(([as, f]) => ({ $lookup: { from: "COLL", pipeline: [{ $match: f }], as } })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(path, path, path).map(([localField, foreignField, as]) => ({
      $lookup: { from: "COLL", localField, foreignField, as },
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(path, path, path, path, name).map(([start, from, to, as, depthField]) => ({
      $graphLookup: {
        from: "COLL",
        startWith: `$${start}`,
        connectFromField: from,
        connectToField: to,
        as,
        depthField,
        maxDepth: 2,
      },
    })),
  },
  { weight: 1, arbitrary: fieldsOf(name, fc.array(simpleStage, { maxLength: 2 })).map(($facet) => ({ $facet })) },
  {
    weight: 1,
    arbitrary: fieldsOf(name, accumulator).map((output) => ({ $bucketAuto: { groupBy: "$_id", buckets: 2, output } })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(name, path).map(([field, by]) => ({
      $fill: { partitionByFields: [by], sortBy: { _id: 1 }, output: objectOf([[field, { method: "locf" }]]) },
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(path, path).map(([a, b]) => ({
      $unionWith: { coll: "COLL", pipeline: [{ $project: objectOf([[a, 1], [b, 1]]) }] },
    })),
  },
  {
    weight: 1,
    arbitrary: filter.map((f) => ({
      $redact: { $cond: [{ $eq: [{ $type: "$$ROOT" }, "object"] }, "$$DESCEND", "$$PRUNE"] },
      $match: f,
    })).map(({ $redact }) => ({ $redact })),
  },
  {
    weight: 1,
    arbitrary: fieldsOf(name, accumulator).map((output) => ({
      $bucket: { groupBy: "$_id", boundaries: [0, 2, 10], default: "other", output },
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.option(path),
      fieldsOf(name, fc.oneof(fc.constant({ $sum: 1 }), path.map((p) => ({ $push: `$${p}` })))),
    )
      .map(([by, output]) => ({
        $setWindowFields: { ...(by === null ? {} : { partitionBy: `$${by}` }), sortBy: { _id: 1 }, output },
      })),
  },
);

// ---- Updates ----

const updateOperator = fc.oneof(
  fieldsOf(path, value).map(($set) => ({ $set })),
  fieldsOf(path, fc.constant("")).map(($unset) => ({ $unset })),
  fc.constantFrom("$inc", "$mul", "$min", "$max").chain((op) =>
    fieldsOf(path, fc.integer({ min: 1, max: 3 })).map((fields) => ({ [op]: fields }))
  ),
  fc.tuple(path, path).map(([from, to]) => ({ $rename: objectOf([[from, to]]) })),
  fieldsOf(path, fc.oneof(value, fc.array(value, { maxLength: 2 }).map(($each) => ({ $each })))).map(($push) => ({
    $push,
  })),
  fieldsOf(path, value).map(($addToSet) => ({ $addToSet })),
  fieldsOf(path, fc.constantFrom(1, -1)).map(($pop) => ({ $pop })),
  fieldsOf(path, fc.oneof(scalar, fc.integer({ min: 0, max: 4 }).map(($gte) => ({ $gte })))).map(($pull) => ({
    $pull,
  })),
  fieldsOf(path, fc.array(scalar, { maxLength: 2 })).map(($pullAll) => ({ $pullAll })),
  fieldsOf(path, value).map(($setOnInsert) => ({ $setOnInsert })),
  fc.tuple(name, path, value).map(([array, p, v]) => ({ $set: objectOf([[`${array}.$[].${p}`, v]]) })),
);

/** Upserts name their `_id`, so that both renderings insert the same document. */

/** An update with positional paths through array filters (`$[e]`), whose identifier filters a name. */
const filteredUpdate = fc.tuple(name, name, path, scalar, value).map(([array, field, p, match, v]) => ({
  update: { $set: objectOf([[`${array}.$[e].${p}`, v]]) },
  arrayFilters: [objectOf([[`e.${field}`, match]])],
}));

// ---- Operations ----

type Operation =
  | { kind: "update"; filter: Document; update: Document | Document[]; arrayFilters?: Document[]; upsert: boolean }
  | { kind: "aggregate"; pipeline: Document[]; let?: Document }
  | { kind: "find"; filter: Document; projection?: Document; sort?: Document; index?: Document }
  | { kind: "distinct"; key: string; filter: Document };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(filter, fc.array(updateOperator, { minLength: 1, maxLength: 2 })).map((
      [f, ops],
    ) => ({ kind: "update" as const, filter: f, update: Object.assign({}, ...ops), upsert: false })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fieldsOf(path, scalar), fc.array(updateOperator, { minLength: 1, maxLength: 2 })).map((
      [f, ops],
    ) => ({ kind: "update" as const, filter: { _id: 100, ...f }, update: Object.assign({}, ...ops), upsert: true })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(filter, filteredUpdate).map(([f, u]) => ({
      kind: "update" as const,
      filter: f,
      upsert: false,
      ...u,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(filter, fc.array(simpleStage, { minLength: 1, maxLength: 2 })).map(([f, stages]) => ({
      kind: "update" as const,
      filter: f,
      update: stages.filter((s) =>
        "$addFields" in s || "$set" in s || "$project" in s || "$unset" in s || "$replaceRoot" in s ||
        "$replaceWith" in s
      ),
      upsert: false,
    })).filter((op) => (op.update as Document[]).length > 0),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.array(stage, { minLength: 1, maxLength: 3 }), fc.option(fieldsOf(variable, expr))).map((
      [pipeline, vars],
    ) => ({ kind: "aggregate" as const, pipeline, ...(vars === null ? {} : { let: vars }) })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      filter,
      fc.option(fieldsOf(path, fc.oneof(fc.constant(1), fc.constant(0), expr))),
      fc.option(path),
      fc.option(path),
    ).map(([f, projection, by, indexed]) => ({
      kind: "find" as const,
      filter: f,
      ...(projection === null ? {} : { projection }),
      ...(by === null ? {} : { sort: objectOf([[by, 1], ["_id", 1]]) }),
      ...(indexed === null ? {} : { index: objectOf([[indexed, 1]]) }),
    })),
  },
  { weight: 1, arbitrary: fc.tuple(path, filter).map(([key, f]) => ({ kind: "distinct" as const, key, filter: f })) },
);

/** An operation's `COLL` placeholder (a `$lookup`'s `from`) named for one collection. */
function inCollection<T>(op: T, collection: string): T {
  if (op === "COLL") return collection as T;
  if (Array.isArray(op)) return op.map((v) => inCollection(v, collection)) as T;
  if (op === null || typeof op !== "object" || Object.getPrototypeOf(op) !== Object.prototype) return op;
  return objectOf(Object.keys(op).map((k) => [k, inCollection((op as Document)[k], collection)])) as T;
}

/** What an operation gave: its result (or its error's code) and the collection afterwards. */
async function outcome(docs: Document[], op: Operation, collection: string): Promise<Document> {
  const coll = connected.db.collection(collection);
  await coll.drop().catch(() => {});
  await coll.insertMany(docs.map((doc) => ({ ...doc })));
  let result: unknown;
  try {
    result = await run(inCollection(op, collection), collection);
  } catch (error) {
    if (!(error instanceof MongoServerError)) throw error;
    result = { code: error.code };
  }
  const stored = await coll.find({}, READ_OPTIONS).sort({ _id: 1 }).toArray();
  return { result, stored };
}

async function run(op: Operation, collection: string): Promise<unknown> {
  const coll = connected.db.collection(collection);
  switch (op.kind) {
    case "update": {
      const { matchedCount, modifiedCount, upsertedCount, upsertedId } = await coll.updateMany(op.filter, op.update, {
        upsert: op.upsert,
        ...(op.arrayFilters ? { arrayFilters: op.arrayFilters } : {}),
      });
      return { matchedCount, modifiedCount, upsertedCount, upsertedId };
    }
    case "aggregate":
      return await coll.aggregate(op.pipeline, { ...READ_OPTIONS, ...(op.let ? { let: op.let } : {}) }).toArray();
    case "find": {
      if (op.index) await coll.createIndex(op.index);
      const cursor = coll.find(op.filter, { ...READ_OPTIONS, ...(op.projection ? { projection: op.projection } : {}) });
      return await (op.sort ? cursor.sort(op.sort) : cursor.sort({ _id: 1 })).toArray();
    }
    case "distinct":
      return await coll.distinct(op.key, op.filter, READ_OPTIONS);
  }
}

let runs = 0;

test("update operators and pipeline stages keep __proto__, constructor and prototype fields, and no prototype changes", async () => {
  await checkProperty(
    fc.asyncProperty(documents, operation, async (docs, op) => {
      const n = runs++;
      const plain = await outcome(docs, op, `s${n}`);
      const before = prototypeState();
      const hazardous = await outcome(withHazardousNames(docs), withHazardousNames(op), `h${n}`);
      assertPrototypesUntouched(before, ejson(withHazardousNames(op)));
      const got = ejson(hazardous);
      const expected = ejson(withHazardousNames(plain));
      if (got !== expected) {
        throw new Error(`differs from the stand-ins' outcome:\n  got      ${got}\n  expected ${expected}`);
      }
    }),
    {
      numRuns: Number(process.env.PROTOTYPE_PROPERTY_RUNS ?? 200),
      verbose: process.env.PROTOTYPE_PROPERTY_VERBOSE ? 1 : 0,
    },
  );
});
