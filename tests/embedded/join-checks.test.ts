import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Db, Document } from "mongodb";
import { type Connected, connectTarget, refused } from "./helpers.ts";

/**
 * What MongoDB 7.0 checks of a join before running it: a joined view must have the
 * aggregate's collation (167, collatorCompatibleWithPipeline), and `$lookup`'s `as`,
 * `localField` and `foreignField` are FieldPaths (field_path.cpp); and what a missing local
 * field is: null, even when Object.prototype has a property of that name.
 */
describe("embedded engine: join checks", () => {
  let conn: Connected;
  let db: Db;

  before(async () => {
    conn = await connectTarget("join_checks");
    db = conn.db;
    await db.collection("l").insertOne({ _id: 1, x: "abc", k: 1 } as Document);
    await db.collection("base").insertMany([{ _id: "l", x: "abc" }, { _id: "u", x: "ABC" }] as Document[]);
    await db.createCollection("ciView", { viewOn: "base", pipeline: [], collation: { locale: "en", strength: 2 } });
  });
  after(async () => {
    await conn?.close();
  });

  const lookupView = { $lookup: { from: "ciView", localField: "x", foreignField: "x", as: "m" } };
  const viewMessage = `Cannot override a view's default collationembedded_join_checks.ciView`;

  test("a join into a view under another collation than the aggregate's is refused", async () => {
    const l = db.collection("l");
    await refused(() => l.aggregate([lookupView]).toArray(), 167, viewMessage);
    await refused(() => l.aggregate([{ $unionWith: "ciView" }]).toArray(), 167, viewMessage);
    await refused(() => l.aggregate([lookupView], { collation: { locale: "fr" } }).toArray(), 167, viewMessage);
    // Nested, and with no input document to run the join for: refused all the same.
    const nested = { $lookup: { from: "base", pipeline: [lookupView], as: "outer" } };
    await refused(() => l.aggregate([{ $match: { _id: 0 } }, nested]).toArray(), 167, viewMessage);
    // The same collation is fine.
    const out = await l.aggregate([lookupView, { $project: { m: "$m._id" } }], {
      collation: { locale: "en", strength: 2 },
    }).toArray();
    assert.deepEqual(out, [{ _id: 1, m: ["l", "u"] }]);
  });

  test("$lookup's as, localField and foreignField are checked as field paths", async () => {
    const lookup = (spec: Document) => () =>
      db.collection("l").aggregate([{ $lookup: { from: "base", ...spec } }]).toArray();
    const dollar = "FieldPath field names may not start with '$'. Consider using $getField or $setField.";
    const empty = "FieldPath field names may not be empty strings.";
    await refused(lookup({ localField: "$k", foreignField: "k", as: "m" }), 16410, dollar);
    await refused(lookup({ localField: "k", foreignField: "$k", as: "m" }), 16410, dollar);
    await refused(lookup({ localField: "k", foreignField: "k", as: "$m" }), 16410, dollar);
    await refused(lookup({ localField: "a..b", foreignField: "k", as: "m" }), 15998, empty);
    await refused(lookup({ localField: "k", foreignField: "k", as: ".m" }), 15998, empty);
    await refused(
      lookup({ localField: "k", foreignField: "k", as: "m." }),
      40353,
      "FieldPath must not end with a '.'.",
    );
    // In a sub-pipeline, before any document reaches it.
    const inner = { $lookup: { from: "base", localField: "k", foreignField: "a.$b", as: "m" } };
    await refused(lookup({ pipeline: [inner], as: "outer" }), 16410, dollar);
    // DBRef's fields are allowed.
    assert.equal((await lookup({ localField: "r.$id", foreignField: "_id", as: "m" })()).length, 1);
  });

  test("a localField named like an Object.prototype property is missing, so null", async () => {
    await db.collection("pl").insertOne({ _id: 1 } as Document);
    await db.collection("pf").insertMany([{ _id: "missing" }, { _id: "set", constructor: "x" }] as Document[]);
    for (const field of ["constructor", "toString", "valueOf", "__proto__"]) {
      const out = await db.collection("pl").aggregate([
        { $lookup: { from: "pf", localField: field, foreignField: "constructor", as: "m" } },
        { $project: { m: "$m._id" } },
      ]).toArray();
      assert.deepEqual(out, [{ _id: 1, m: ["missing"] }], field);
    }
  });
});
