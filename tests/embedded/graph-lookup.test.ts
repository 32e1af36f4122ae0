import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, Long } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * `$graphLookup` follows links by value (a `Long` link reaches an int32 `_id`, which mingo's
 * missed), finds each document once at its smallest depth, and honours `maxDepth`,
 * `depthField` and `restrictSearchWithMatch`.
 */
describe("embedded engine: $graphLookup", () => {
  let conn: Connected;
  let people: Collection<{ _id: number; boss?: unknown; team?: string }>;

  before(async () => {
    conn = await connectTarget("graph_lookup");
    people = conn.db.collection("people");
    await people.insertMany([
      { _id: 1, boss: Long.fromNumber(2), team: "a" },
      { _id: 2, boss: 3, team: "a" },
      { _id: 3, boss: [4, 1], team: "b" }, // a cycle back to 1
      { _id: 4, team: "a" }, // no boss: the chain stops
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const chain = async (stage: Document, promoteLongs = true) => {
    const [row] = await people.aggregate([{ $match: { _id: 1 } }, {
      $graphLookup: { from: "people", startWith: "$boss", connectFromField: "boss", connectToField: "_id", ...stage },
    }], { promoteLongs }).toArray();
    return row.chain as Document[];
  };

  test("links of every numeric width are followed, each document once", async () => {
    const found = await chain({ as: "chain", depthField: "depth" });
    const depths = Object.fromEntries(found.map((d) => [d._id, d.depth]));
    assert.deepEqual(depths, { 1: 2, 2: 0, 3: 1, 4: 2 });
    const raw = await chain({ as: "chain", depthField: "depth" }, false);
    assert.ok(raw.every((d) => d.depth instanceof Long), "depthField holds Longs, as in MongoDB");
  });

  test("maxDepth and restrictSearchWithMatch bound the search", async () => {
    const ids = (docs: Document[]) => docs.map((d) => d._id).sort();
    assert.deepEqual(ids(await chain({ as: "chain", maxDepth: 0 })), [2]);
    assert.deepEqual(ids(await chain({ as: "chain", maxDepth: 1 })), [2, 3]);
    assert.deepEqual(ids(await chain({ as: "chain", restrictSearchWithMatch: { team: "a" } })), [2]);
  });
});
