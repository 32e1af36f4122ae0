import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Collection, Document } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

// explain's counters include the entries a skip passes over, as MongoDB's do (the SKIP stage
// reads them; since SERVER-13946 it sits below FETCH where it can, so skipped index entries are
// examined keys but never fetched documents). The README tells users to expect about
// skip + limit examined for a list an index serves: the counters must grow with the skip.

let connected: Connected;
let users: Collection<{ _id: number; surname: string; name: string }>;

before(async () => {
  connected = await connectTarget("explain_skip");
  users = connected.db.collection("users");
  const docs = Array.from({ length: 1200 }, (_, i) => ({
    _id: i + 1,
    surname: i % 2 === 0 ? "Popper" : "Kant",
    name: `n${String(i).padStart(4, "0")}`,
  }));
  await users.insertMany(docs);
  await users.createIndex({ surname: 1, name: 1, _id: 1 });
});
after(async () => await connected.close());

async function stats(find: () => { explain(verbosity: "executionStats"): Promise<Document> }): Promise<Document> {
  return (await find().explain("executionStats")).executionStats as Document;
}

for (const skip of [0, 20, 500]) {
  test(`an index scan under skip ${skip} examines skip + limit keys`, async () => {
    const run = await stats(() => users.find({ surname: "Popper" }).sort({ name: 1, _id: 1 }).skip(skip).limit(11));
    assert.equal(run.nReturned, 11);
    assert.equal(run.totalKeysExamined, skip + 11);
    // Skipped entries are passed over before FETCH: only the page's documents are read.
    assert.equal(run.totalDocsExamined, 11);
  });

  test(`a collection scan under skip ${skip} examines skip + limit documents`, async () => {
    const run = await stats(() => users.find({}).sort({ _id: 1 }).skip(skip).limit(11).hint({ $natural: 1 }));
    assert.equal(run.nReturned, 11);
    assert.equal(run.totalKeysExamined, 0);
    assert.equal(run.totalDocsExamined, skip + 11);
  });
}

test("an _id scan under skip reads the skipped entries too", async () => {
  const run = await stats(() => users.find({}).sort({ _id: 1 }).skip(100).limit(5));
  assert.equal(run.nReturned, 5);
  assert.equal(run.totalKeysExamined + run.totalDocsExamined >= 105, true, JSON.stringify(run));
});

test("a skip past the end examines every entry and returns nothing", async () => {
  const run = await stats(() => users.find({ surname: "Kant" }).sort({ name: 1, _id: 1 }).skip(5000).limit(11));
  assert.equal(run.nReturned, 0);
  assert.equal(run.totalKeysExamined, 600);
  assert.equal(run.totalDocsExamined, 0);
});
