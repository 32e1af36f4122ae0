import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type Connected, connectTarget } from "./helpers.ts";

// Transactions on the engine, as the README's "Not supported" says: refused as a standalone
// mongod refuses them (code 20), which the driver turns into its retryable-writes message on a
// write; a read inside a transaction gets the server's own words.

let connected: Connected;
before(async () => (connected = await connectTarget("transactions")));
after(async () => await connected.close());

test("a write in a transaction is refused with the driver's standalone message", async (t) => {
  if (!connected.target.embedded) return t.skip("a replica set takes transactions");
  const session = connected.client.startSession();
  try {
    session.startTransaction();
    await assert.rejects(
      connected.db.collection("t").insertOne({ a: 1 }, { session }),
      /This MongoDB deployment does not support retryable writes/,
    );
  } finally {
    await session.endSession();
  }
  assert.equal(await connected.db.collection("t").countDocuments(), 0, "nothing was written");
});

test("a read in a transaction gets the server's code 20", async (t) => {
  if (!connected.target.embedded) return t.skip("a replica set takes transactions");
  const session = connected.client.startSession();
  try {
    session.startTransaction();
    await assert.rejects(
      connected.db.collection("t").findOne({}, { session }),
      (error: { code?: number; message: string }) => {
        assert.equal(error.code, 20);
        assert.match(error.message, /Transaction numbers are only allowed on a replica set member or mongos/);
        return true;
      },
    );
  } finally {
    await session.endSession();
  }
});
