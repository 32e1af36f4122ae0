import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, MongoClient } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** Single-document read-modify-write is atomic. */
describe("embedded engine: concurrency", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("concurrency", {}, { maxPoolSize: 50 });
  });
  after(async () => {
    await conn.close();
  });

  test("an $inc counter via findOneAndUpdate never hands out the same value twice (50 clients)", async () => {
    const counters = conn.db.collection("counters");
    await counters.insertOne({ _id: "seq", value: 0 } as Document);
    const clients = await Promise.all(
      Array.from({ length: 50 }, () => new MongoClient(conn.target.uri, { maxPoolSize: 1 }).connect()),
    );
    try {
      const rounds = 4;
      const values = await Promise.all(
        clients.flatMap((client) =>
          Array.from({ length: rounds }, async () => {
            const doc = await client
              .db(conn.target.dbName)
              .collection("counters")
              .findOneAndUpdate({ _id: "seq" } as Document, { $inc: { value: 1 } }, { returnDocument: "after" });
            return doc!.value as number;
          })
        ),
      );
      assert.equal(new Set(values).size, values.length);
      assert.deepEqual([...values].sort((a, b) => a - b), Array.from({ length: 50 * rounds }, (_, i) => i + 1));
      assert.equal((await counters.findOne({ _id: "seq" } as Document))?.value, 50 * rounds);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  test("concurrent updateOne $inc through one pooled client loses no increment", async () => {
    const c = conn.db.collection("hits");
    await c.insertOne({ _id: 1, n: 0 } as Document);
    await Promise.all(Array.from({ length: 200 }, () => c.updateOne({ _id: 1 } as Document, { $inc: { n: 1 } })));
    assert.equal((await c.findOne({ _id: 1 } as Document))?.n, 200);
  });
});
