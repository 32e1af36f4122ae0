import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import fc from "fast-check";
import type { Document, Sort } from "mongodb";
import type { CursorSide } from "../../src/query/cursor.ts";
import { keysetFilter, sortKeys } from "../../src/plan/keyset.ts";
import { type Connected, connectTarget } from "./helpers.ts";

/** Fixed by default so failures reproduce; override with INDEX_PROPERTY_SEED. */
/** Documents keyed by number, as this test inserts them. */
type Row = { _id: number; [field: string]: unknown };

const SEED = Number(process.env.INDEX_PROPERTY_SEED ?? 20240608);
const RUNS = Number(process.env.INDEX_PROPERTY_RUNS ?? 150);

const scalar = fc.oneof(
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom("a", "ab", "abc", "b", "ba", "c"),
  fc.constant(null),
  fc.constantFrom(1.5, 7.25),
);
const value = fc.oneof({ weight: 6, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) });
const row = fc.record({ a: value, b: value, c: fc.integer({ min: 0, max: 5 }) }, { requiredKeys: ["c"] });

const condition = fc.oneof(
  scalar,
  fc.record({ $in: fc.array(scalar, { minLength: 1, maxLength: 3 }) }),
  fc.constantFrom("$gt", "$gte", "$lt", "$lte").chain((op) => scalar.map((v) => ({ [op]: v }))),
  fc.tuple(fc.integer({ min: -3, max: 5 }), fc.integer({ min: 0, max: 12 })).map(([lo, hi]) => ({
    $gte: lo,
    $lte: hi,
  })),
  fc.constantFrom(/^a/, /^ab/, /^b/, /^a/i, /b$/),
  scalar.map((v) => ({ $ne: v })),
);
/** Conditions on _id (0..59 as inserted): ranges both ways, a point, or a between. */
const idCondition = fc.oneof(
  fc.constantFrom("$gt", "$gte", "$lt", "$lte").chain((op) =>
    fc.integer({ min: -1, max: 61 }).map((v) => ({ [op]: v }))
  ),
  fc.integer({ min: 0, max: 59 }),
  fc.tuple(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 })).map(([lo, hi]) => ({ $gt: lo, $lte: hi })),
);
/** One branch of an $or: a condition or two, on indexed fields and _id, the shapes cursors send. */
const branch = fc
  .record({ a: condition, b: condition, c: fc.integer({ min: 0, max: 5 }), _id: idCondition }, { requiredKeys: [] })
  .filter((b) => Object.keys(b).length > 0 && Object.keys(b).length <= 2)
  .map((b) => b as Document);
/** A condition present about a third of the time, so most filters match some documents. */
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const conditions = fc
  .tuple(sometimes(condition), sometimes(condition), sometimes(fc.integer({ min: 0, max: 5 })), sometimes(idCondition))
  .map(([a, b, c, _id]) =>
    Object.fromEntries(Object.entries({ a, b, c, _id }).filter(([, v]) => v !== undefined)) as Document
  );
const or = fc.array(branch, { minLength: 1, maxLength: 3 });
/** Field conditions, sometimes with an $or beside them, or two $ors ANDed (a cursor's range and a client's q). */
const filter = fc.oneof(
  { weight: 3, arbitrary: conditions },
  { weight: 2, arbitrary: fc.tuple(conditions, or).map(([where, branches]) => ({ ...where, $or: branches })) },
  {
    weight: 1,
    arbitrary: fc.tuple(conditions, or, or).map(([where, x, y]) => ({ $and: [where, { $or: x }, { $or: y }] })),
  },
);
const sort = fc.constantFrom<Document>(
  {},
  { _id: -1 },
  { a: 1 },
  { a: -1 },
  { b: 1 },
  { a: 1, b: -1 },
  { a: -1, b: 1 },
  { c: 1, a: 1 },
  { b: -1, c: 1 },
);
/** A cursor's range (as the framework builds it) after or before a random key, on a sort the indexes serve. */
const keyset = fc
  .tuple(
    fc.constantFrom<Document>({ a: 1, _id: 1 }, { a: -1, _id: -1 }, { b: -1, c: 1, _id: 1 }, { c: 1, a: -1, _id: 1 }, {
      _id: -1,
    }),
    scalar,
    scalar,
    fc.integer({ min: 0, max: 5 }),
    fc.integer({ min: 0, max: 59 }),
    fc.constantFrom<CursorSide>("after", "before"),
    fc.boolean(),
  )
  .map(([order, x, y, c, id, side, inclusive]) => {
    const keys = sortKeys(order);
    const values: Record<string, unknown> = { a: x, b: y, c, _id: id };
    return { order, where: keysetFilter(keys, keys.map(([path]) => values[path]), side, inclusive) };
  });

/**
 * The same documents in two collections, one with ordered indexes (single, compound, mixed
 * directions) and one without: every filter and sort must give the same documents, in the
 * same order of sort keys (ties may come in another order, so _id breaks them here).
 */
describe("embedded engine: indexed reads equal unindexed ones (property)", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("index_property");
    for (const name of ["indexed", "flat_indexed"]) {
      await conn.db.collection(name).createIndex({ a: 1 });
      await conn.db.collection(name).createIndex({ b: -1, c: 1 });
      await conn.db.collection(name).createIndex({ c: 1, a: -1 });
    }
  });
  after(async () => {
    await conn.close();
  });

  test("random filters, sorts and pages over random documents", async () => {
    const property = fc.asyncProperty(
      fc.array(row, { minLength: 5, maxLength: 60 }),
      filter,
      sort,
      fc.nat({ max: 10 }),
      fc.nat({ max: 8 }),
      keyset,
      fc.boolean(),
      async (rows, where, order, skip, limit, range, scalarsOnly) => {
        // Half the runs hold no arrays, in collections that never held any: an index, once
        // multikey, stays so, and a single-key index gives sorts a multikey one cannot.
        const plain = conn.db.collection<Row>(scalarsOnly ? "flat_plain" : "plain");
        const indexed = conn.db.collection<Row>(scalarsOnly ? "flat_indexed" : "indexed");
        await plain.deleteMany({});
        await indexed.deleteMany({});
        const scalars = (r: Document) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? null) : v]));
        const docs = rows.map((r, i) => ({ _id: i, ...(scalarsOnly ? scalars(r) : r) }));
        if (docs.length) {
          await plain.insertMany(docs.map((d) => ({ ...d })));
          await indexed.insertMany(docs.map((d) => ({ ...d })));
        }
        const dirOf: 1 | -1 = Object.values(order)[0] === -1 ? -1 : 1;
        const full: Sort = { ...order, _id: Object.keys(order).length ? dirOf : 1 };
        const options = { sort: full, skip, limit };
        const want = await plain.find(where, options).toArray();
        const got = await indexed.find(where, options).toArray();
        assert.deepEqual(got, want);
        assert.equal(await indexed.countDocuments(where), await plain.countDocuments(where));
        const ranged = { sort: range.order as Sort, skip: 0, limit };
        assert.deepEqual(
          await indexed.find(range.where, ranged).toArray(),
          await plain.find(range.where, ranged).toArray(),
          "keyset range",
        );
      },
    );
    const result = await fc.check(property, { seed: SEED, numRuns: RUNS });
    if (result.failed) {
      assert.fail(`seed ${SEED} (set INDEX_PROPERTY_SEED to replay): ${fc.defaultReportMessage(result)}`);
    }
  });
});
