import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Document, Long, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/** What a standalone answers a command carrying a transaction number with (code 20). */
const TXN_REFUSED = "Transaction numbers are only allowed on a replica set member or mongos";

type ServerError = MongoServerError & { keyPattern?: Document; keyValue?: Document };

function isServerError(code: number, check: (e: ServerError) => void = () => {}) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof MongoServerError, `expected a server error, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    check(e as ServerError);
    return true;
  };
}

/** Every error answers like MongoDB: `{ ok: 0, errmsg, code, codeName }`, and nothing breaks. */
describe("embedded engine: error replies", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("errors");
  });
  after(async () => {
    await conn.close();
  });

  test("an unknown command is CommandNotFound (59)", async () => {
    await assert.rejects(
      conn.db.command({ frobnicate: 1 }),
      isServerError(59, (e) => {
        assert.equal(e.codeName, "CommandNotFound");
        assert.match(e.message, /no such command: 'frobnicate'/);
      }),
    );
    assert.equal((await conn.db.command({ ping: 1 })).ok, 1);
  });

  test("a duplicate _id is a write error 11000 with keyPattern and keyValue", async () => {
    const c = conn.db.collection("dups");
    await c.insertOne({ _id: 7, v: 1 } as Document);
    await assert.rejects(
      c.insertOne({ _id: 7, v: 2 } as Document),
      isServerError(11000, (e) => {
        assert.deepEqual(e.keyPattern, { _id: 1 });
        assert.deepEqual(e.keyValue, { _id: 7 });
        assert.match(e.message, /E11000 duplicate key error collection: \S+\.dups index: _id_ dup key: \{ _id: 7 \}/);
      }),
    );
    assert.equal((await c.findOne({ _id: 7 } as Document))?.v, 1);
  });

  test("ordered inserts stop at the first error, unordered ones carry on", async () => {
    const c = conn.db.collection("ordered");
    const ordered = await conn.db.command({ insert: "ordered", documents: [{ _id: 1 }, { _id: 1 }, { _id: 2 }] });
    assert.equal(ordered.n, 1);
    assert.equal(ordered.writeErrors.length, 1);
    assert.equal(ordered.writeErrors[0].index, 1);
    assert.equal(ordered.writeErrors[0].code, 11000);
    const unordered = await conn.db.command({
      insert: "ordered",
      ordered: false,
      documents: [{ _id: 1 }, { _id: 3 }, { _id: 2 }],
    });
    assert.equal(unordered.n, 2);
    assert.deepEqual(unordered.writeErrors.map((w: Document) => w.index), [0]);
    assert.deepEqual((await c.find().toArray()).map((d) => d._id), [1, 2, 3]);
  });

  test("a unique index rejects duplicates on insert, update and findAndModify", async () => {
    const c = conn.db.collection("users");
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertMany([{ _id: 1, email: "a" }, { _id: 2, email: "b" }] as Document[]);
    const dupCheck = (e: ServerError): void => {
      assert.deepEqual(e.keyPattern, { email: 1 });
      assert.deepEqual(e.keyValue, { email: "a" });
      assert.match(e.message, /index: email_1 dup key: \{ email: "a" \}/);
    };
    await assert.rejects(c.insertOne({ _id: 3, email: "a" } as Document), isServerError(11000, dupCheck));
    await assert.rejects(c.updateOne({ _id: 2 } as Document, { $set: { email: "a" } }), isServerError(11000, dupCheck));
    await assert.rejects(
      c.findOneAndUpdate({ _id: 2 } as Document, { $set: { email: "a" } }),
      isServerError(11000, dupCheck),
    );
    assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [{ _id: 1, email: "a" }, { _id: 2, email: "b" }]);
    await c.updateOne({ _id: 1 } as Document, { $set: { email: "c" } });
    await c.insertOne({ _id: 3, email: "a" } as Document);
    assert.equal(await c.countDocuments({ email: "a" }), 1);
  });

  test("creating a unique index over existing duplicates fails with 11000", async () => {
    const c = conn.db.collection("prefilled");
    await c.insertMany([{ _id: 1, k: "x" }, { _id: 2, k: "x" }] as Document[]);
    await assert.rejects(c.createIndex({ k: 1 }, { unique: true }), isServerError(11000));
    assert.deepEqual((await c.indexes()).map((i) => i.name), ["_id_"]);
  });

  test("getMore on an unknown cursor is CursorNotFound (43)", async () => {
    await conn.db.collection("cur").insertOne({ _id: 1 } as Document);
    await assert.rejects(
      conn.db.command({ getMore: Long.fromNumber(123456789), collection: "cur" }),
      isServerError(43, (e) => assert.equal(e.codeName, "CursorNotFound")),
    );
  });

  test("transactions are refused with a clear error", async (t) => {
    if (!conn.target.embedded) return t.skip("a real server may support transactions");
    await assert.rejects(
      conn.db.command({ find: "cur", startTransaction: true, autocommit: false, txnNumber: Long.fromNumber(1) }),
      isServerError(20, (e) => assert.equal(e.message, TXN_REFUSED)),
    );
    await assert.rejects(conn.client.db("admin").command({ commitTransaction: 1 }), isServerError(20));
    await assert.rejects(conn.client.db("admin").command({ abortTransaction: 1 }), isServerError(20));
  });

  test("a retryable write (txnNumber) is refused as a standalone refuses it, and writes nothing", async (t) => {
    if (!conn.target.embedded) return t.skip("a real server may be a replica set member");
    const session = conn.client.startSession();
    try {
      const insert = { insert: "retryable", documents: [{ _id: 1 }], txnNumber: Long.fromNumber(1) };
      await assert.rejects(
        conn.db.command(insert, { session }),
        isServerError(20, (e) => assert.equal(e.message, TXN_REFUSED)),
      );
      await assert.rejects(
        conn.db.command({ findAndModify: "retryable", query: {}, update: { $set: { a: 1 } }, txnNumber: 2 }),
        isServerError(20, (e) => assert.equal(e.message, TXN_REFUSED)),
      );
    } finally {
      await session.endSession();
    }
    assert.equal(await conn.db.collection("retryable").countDocuments(), 0);
  });

  test("an invalid query operator is a BadValue error, not a crash", async () => {
    await assert.rejects(conn.db.collection("cur").find({ a: { $nope: 1 } }).toArray(), isServerError(2));
    assert.equal((await conn.db.command({ ping: 1 })).ok, 1);
  });

  test("an unknown operator gets MongoDB's code and words: stage, expression, accumulator, query", async () => {
    const c = conn.db.collection<{ _id: number; a: number }>("unknown_operators");
    await c.insertOne({ _id: 1, a: 1 });
    const refused = (run: () => Promise<unknown>, code: number, message: string) =>
      assert.rejects(run, isServerError(code, (e) => assert.equal(e.message, message)));
    await refused(() => c.aggregate([{ $nope: {} }]).toArray(), 40324, "Unrecognized pipeline stage name: '$nope'");
    await refused(
      () => c.aggregate([{ $lookup: { from: "unknown_operators", pipeline: [{ $inner: {} }], as: "x" } }]).toArray(),
      40324,
      "Unrecognized pipeline stage name: '$inner'",
    );
    await refused(
      () => c.aggregate([{ $project: { x: { $nope: 1 } } }]).toArray(),
      168,
      "Unrecognized expression '$nope'",
    );
    await refused(() => c.find({ $expr: { $nope: ["$a"] } }).toArray(), 168, "Unrecognized expression '$nope'");
    await refused(
      () => c.aggregate([{ $group: { _id: null, x: { $nope: 1 } } }]).toArray(),
      15952,
      "unknown group operator '$nope'",
    );
    await refused(
      () => c.aggregate([{ $group: { _id: null, x: 1 } }]).toArray(),
      40234,
      "The field 'x' must be an accumulator object",
    );
    await refused(
      () => c.aggregate([{ $group: { _id: null, "x.y": { $sum: 1 } } }]).toArray(),
      40235,
      "The field name 'x.y' cannot contain '.'",
    );
    await refused(
      () => c.aggregate([{ $group: { _id: null, x: { $sum: 1, $max: 1 } } }]).toArray(),
      40238,
      "The field 'x' must specify one accumulator",
    );
    await refused(() => c.find({ a: { $nope: 1 } }).toArray(), 2, "unknown operator: $nope");
    await refused(
      () => c.find({ $nope: 1 } as Document).toArray(),
      2,
      "unknown top level operator: $nope. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.",
    );
    await refused(
      () => c.aggregate([{ $group: { _id: null, $x: { $sum: 1 } } }]).toArray(),
      40236,
      "The field name '$x' cannot be an operator name",
    );
    await refused(
      () => c.aggregate([{ $group: { _id: null, s: { $sum: ["$a", "$a"] } } }]).toArray(),
      40237,
      "The $sum accumulator is a unary operator",
    );
    await refused(
      () => c.aggregate([{ $group: { x: 1 } }]).toArray(),
      40234,
      "The field 'x' must be an accumulator object",
    );
    await refused(
      () => c.aggregate([{ $group: 5 }]).toArray(),
      15947,
      "a group's fields must be specified in an object",
    );
    await refused(
      () => c.aggregate([{ $group: { x: { $sum: 1 } } }]).toArray(),
      15955,
      "a group specification must include an _id",
    );
    assert.deepEqual(await c.aggregate([{ $group: { _id: "$a", n: { $sum: 1 }, m: { $max: "$a" } } }]).toArray(), [
      { _id: 1, n: 1, m: 1 },
    ]);
    await refused(
      () => c.aggregate([{ $changeStream: {} }]).toArray(),
      40573,
      "The $changeStream stage is only supported on replica sets",
    );
  });
});

/** Size limits are announced in hello and enforced. */
describe("embedded engine: document size limit", () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("errors_size", { maxBsonObjectSize: 64 * 1024 });
  });
  after(async () => {
    await conn.close();
  });

  test("hello announces the limits", async (t) => {
    if (!conn.target.embedded) return t.skip("engine option");
    const hello = await conn.db.command({ hello: 1 });
    assert.equal(hello.maxBsonObjectSize, 64 * 1024);
    assert.equal(hello.maxMessageSizeBytes, 48_000_000);
    assert.equal(hello.isWritablePrimary, true);
  });

  test("an oversize document is rejected with 10334 and the connection stays usable", async (t) => {
    if (!conn.target.embedded) return t.skip("needs a small maxBsonObjectSize");
    const c = conn.db.collection("big");
    const big = { _id: 1, blob: "x".repeat(70 * 1024) };
    await assert.rejects(conn.db.command({ insert: "big", documents: [big] }), isServerError(10334));
    await assert.rejects(c.insertOne(big as Document), (e: unknown) => {
      const code = (e as { code?: number }).code;
      // The driver may refuse it itself before sending; otherwise the engine answers 10334.
      return code === 10334 || /larger than the maximum|too large/i.test(String(e));
    });
    await c.insertOne({ _id: 2, small: true } as Document);
    assert.equal(await c.countDocuments({}), 1);
  });
});
