import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "bson";
import { writeDocument } from "../../src/embedded/bson.ts";
import { EncodedDocs } from "../../src/embedded/encoded.ts";
import { compileProjection, dependsOnDocumentOnly } from "../../src/embedded/query/project.ts";
import { type Connected, connectTarget } from "./helpers.ts";

/** The documents of the driver test: integer ids. */
type Row = { _id: number; name: string; secret?: string };

/** The cache of serialised documents that page reads reuse. */
describe("embedded engine: serialised page documents", () => {
  const docs: Document[] = [{ _id: 1, a: "x", secret: "s" }, { _id: 2, a: "y", secret: "t" }];

  test("bytes are what projecting and serialising gives, per projector", () => {
    const cache = new EncodedDocs(1 << 20);
    const hide = compileProjection({ secret: 0 });
    const plain = (project: typeof hide) => (project ? project(docs) : docs).map((d) => Buffer.from(writeDocument(d)));
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(cache.encode(docs, hide).map((b) => Buffer.from(b)), plain(hide));
      assert.deepEqual(cache.encode(docs, null).map((b) => Buffer.from(b)), plain(null));
    }
  });

  test("the same simple spec compiles to the same projector; mingo's are never cached", () => {
    assert.equal(compileProjection({ secret: 0 }), compileProjection({ secret: 0 }));
    assert.ok(dependsOnDocumentOnly(compileProjection({ a: 1 })));
    assert.ok(dependsOnDocumentOnly(null));
    assert.ok(!dependsOnDocumentOnly(compileProjection({ "a.$": 1 }, { a: 1 })));
    assert.ok(!dependsOnDocumentOnly(compileProjection({ t: "$$NOW" })));
  });

  test("a full cache starts over and still answers correctly", () => {
    const cache = new EncodedDocs(300);
    const many = Array.from({ length: 50 }, (_, i) => ({ _id: i, v: "v".repeat(i) }));
    const bytes = cache.encode(many, null);
    assert.deepEqual(bytes.map((b) => Buffer.from(b)), many.map((d) => Buffer.from(writeDocument(d))));
  });

  describe("through the driver", () => {
    let conn: Connected;
    before(async () => {
      conn = await connectTarget("encoded");
      await conn.db.collection<Row>("c").insertMany(
        Array.from({ length: 30 }, (_, i) => ({ _id: i, name: `n${i}`, secret: "s" })),
      );
    });
    after(async () => {
      await conn.close();
    });

    test("a page read again after an update, a delete and a re-insert shows the new documents", async () => {
      const c = conn.db.collection<Row>("c");
      const page = () => c.find({}, { skip: 10, limit: 3, projection: { secret: 0 } }).toArray();
      assert.deepEqual(await page(), [{ _id: 10, name: "n10" }, { _id: 11, name: "n11" }, { _id: 12, name: "n12" }]);
      await c.updateOne({ _id: 11 }, { $set: { name: "changed" } });
      await c.deleteOne({ _id: 12 });
      await c.insertOne({ _id: 12, name: "again", secret: "s" });
      assert.deepEqual(await page(), [{ _id: 10, name: "n10" }, { _id: 11, name: "changed" }, {
        _id: 12,
        name: "again",
      }]);
      assert.deepEqual(await c.find({}, { skip: 10, limit: 2 }).toArray(), [{ _id: 10, name: "n10", secret: "s" }, {
        _id: 11,
        name: "changed",
        secret: "s",
      }]);
    });
  });
});
