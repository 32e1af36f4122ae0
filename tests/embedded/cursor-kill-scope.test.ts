import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document, FindCursor, ListIndexesCursor } from "mongodb";
import { type Connected, connectTarget, withCode } from "./helpers.ts";

/**
 * Which cursors a drop, a rename or an `$out` kills, as MongoDB decides it: only those whose
 * query plan reads the collection (a find or aggregate on it, or on a view of it), never a
 * `listIndexes` cursor (jstests/core/catalog/list_indexes_invalidation.js); `$out` replaces
 * its target by a rename with dropTarget, which kills the target's cursors.
 */
describe("embedded engine: which cursors a drop kills", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("cursor_kill_scope");
  });
  after(async () => {
    await conn?.close();
  });

  async function fill(name: string): Promise<void> {
    const docs: Document[] = Array.from({ length: 20 }, (_, i) => ({ _id: i, a: i }));
    await conn.db.collection(name).insertMany(docs);
  }

  async function drain(cursor: FindCursor | ListIndexesCursor): Promise<number> {
    let n = 0;
    while (await cursor.next()) n++;
    return n;
  }

  test("a listIndexes cursor outlives a drop and a rename of its collection", async () => {
    for (const rename of [false, true]) {
      const li = conn.db.collection(rename ? "li_renamed" : "li_dropped");
      await li.createIndexes([{ key: { a: 1 } }, { key: { b: 1 } }, { key: { c: 1 } }]);
      const cursor = li.listIndexes({ batchSize: 2 });
      try {
        assert.ok(await cursor.next());
        if (rename) await li.rename("li_renamed_to");
        else await li.drop();
        assert.equal(await drain(cursor), 3);
      } finally {
        await cursor.close();
      }
    }
  });

  test("a find on a view dies with the view's base collection", async () => {
    await fill("view_base");
    await conn.db.createCollection("view_of_base", { viewOn: "view_base", pipeline: [{ $match: { a: { $gte: 0 } } }] });
    const cursor = conn.db.collection("view_of_base").find({}, { batchSize: 2 });
    try {
      assert.ok(await cursor.next());
      await conn.db.collection("view_base").drop();
      await assert.rejects(drain(cursor), withCode(175));
    } finally {
      await cursor.close();
    }
  });

  test("$out replacing a collection kills the find cursors open on it", async () => {
    await fill("out_target");
    const cursor = conn.db.collection("out_target").find({}, { batchSize: 2 });
    try {
      assert.ok(await cursor.next());
      await conn.db.collection("out_source").insertMany([{ _id: "new1" }, { _id: "new2" }] as Document[]);
      await conn.db.collection("out_source").aggregate([{ $out: "out_target" }]).toArray();
      await assert.rejects(drain(cursor), withCode(175));
    } finally {
      await cursor.close();
    }
  });

  test("an aggregate reading through a hinted index dies with the index", async () => {
    await fill("agg_index");
    const c = conn.db.collection("agg_index");
    await c.createIndex({ a: 1 }, { name: "a_1" });
    const cursor = c.aggregate([{ $match: { a: { $gte: 0 } } }], { batchSize: 2, hint: "a_1" });
    try {
      assert.ok(await cursor.next());
      await c.dropIndex("a_1");
      await assert.rejects(
        (async () => {
          while (await cursor.next());
        })(),
        (e: Document) => e.code === 175 && /index 'a_1' dropped/.test(String(e.message)),
      );
    } finally {
      await cursor.close();
    }
  });
});
