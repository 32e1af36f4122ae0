import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "bson";
import { Aggregator, Query } from "mingo";
import { parseSort } from "../../src/query/sort.ts";
import { parseWhere } from "../../src/query/where.ts";
import { SORT_CASES, userDocs, WHERE_CASES } from "./cases.ts";
import { limits, User } from "./models.ts";

// Engine-free check of what the generated filters mean: mingo evaluates MongoDB query
// semantics in memory, so every operator is tested against data without a server.
const docs = userDocs();

function select(filter: Document): number[] {
  return new Query(filter).find<Document>(docs).all().map((doc) => doc._id as number).sort((a, b) => a - b);
}

describe("q selects the expected documents", () => {
  for (const [q, ids] of WHERE_CASES) {
    test(q, () => assert.deepEqual(select(parseWhere(q, User, limits)), ids));
  }
});

describe("sort orders the documents as expected", () => {
  for (const [sort, ids] of SORT_CASES) {
    test(sort || "(default)", () => {
      const sorted = new Aggregator([{ $sort: parseSort(sort, User) }]).run(docs) as Document[];
      assert.deepEqual(sorted.map((doc) => doc._id), ids);
    });
  }
});
