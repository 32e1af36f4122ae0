import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import type { Change } from "../../src/embedded/changes.ts";
import { encodeChanges, replayChanges } from "../../src/embedded/durability/codec.ts";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { WriteSet } from "../../src/embedded/store/write-set.ts";
import { type Connected, connectTarget, externalUri, KeepingSink, withCode } from "./helpers.ts";

/**
 * `renameCollection` moves a collection with its documents, indexes and options, as MongoDB's
 * does, refuses what MongoDB refuses, survives a restart (the journal replays it) and is undone
 * when the journal refuses it. The engine answered CommandNotFound before.
 */
describe("embedded engine: renameCollection", {
  skip: externalUri !== undefined && "injects a sink into the engine",
}, () => {
  let conn: Connected;
  const sink = new KeepingSink();

  before(async () => {
    conn = await connectTarget("rename_collection", { sink });
  });
  after(async () => {
    await conn.close();
  });

  test("documents, indexes and options move to the new name", async () => {
    const db = conn.db;
    await db.createCollection("people", { validator: { $or: [{ age: { $exists: false } }, { age: { $gte: 0 } }] } });
    await db.collection("people").insertMany([{ _id: 1, email: "a@x" }, { _id: 2, email: "b@x" }] as Document[]);
    await db.collection("people").createIndex({ email: 1 }, { unique: true });
    await db.collection("people").rename("users");
    const names = (await db.listCollections().toArray()).map((c) => c.name);
    assert.ok(names.includes("users") && !names.includes("people"), names.join(", "));
    assert.deepEqual(await db.collection("users").find().toArray(), [{ _id: 1, email: "a@x" }, {
      _id: 2,
      email: "b@x",
    }]);
    assert.deepEqual((await db.collection("users").indexes()).map((i) => i.name), ["_id_", "email_1"]);
    await assert.rejects(db.collection("users").insertOne({ _id: 3, email: "a@x" } as Document), withCode(11000));
    await assert.rejects(db.collection("users").insertOne({ _id: 4, age: -1 } as Document), withCode(121));
  });

  test("an existing target is refused unless dropTarget drops it first", async () => {
    const db = conn.db;
    await db.collection("old").insertOne({ _id: "old" } as Document);
    await db.collection("new").insertOne({ _id: "new" } as Document);
    await assert.rejects(db.collection("old").rename("new"), withCode(48));
    await db.collection("old").rename("new", { dropTarget: true });
    assert.deepEqual(await db.collection("new").find().toArray(), [{ _id: "old" }]);
  });

  test("a missing source, a bad namespace and a database other than admin are refused", async () => {
    await assert.rejects(conn.db.collection("nowhere").rename("somewhere"), withCode(26));
    const admin = conn.client.db("admin");
    const ns = (name: string) => `${conn.target.dbName}.${name}`;
    await assert.rejects(admin.command({ renameCollection: "nodot", to: ns("x") }), withCode(73));
    await assert.rejects(admin.command({ renameCollection: ns("new"), to: ns("a$b") }), withCode(73));
    await assert.rejects(conn.db.command({ renameCollection: ns("new"), to: ns("x") }), withCode(13));
  });

  test("a restart replays the rename, and a rename the journal refuses is undone", async () => {
    const db = conn.db;
    await db.collection("kept").insertOne({ _id: 1 } as Document);
    sink.failing = true;
    try {
      await assert.rejects(db.collection("kept").rename("lost"));
    } finally {
      sink.failing = false;
    }
    assert.deepEqual(await db.collection("kept").find().toArray(), [{ _id: 1 }]);
    assert.equal(await db.collection("lost").countDocuments(), 0);
    await db.collection("kept").rename("moved");
    // What a restart rebuilds: the accepted changes, through the journal's encoding.
    const catalog = new Catalog();
    replayChanges(encodeChanges(sink.accepted), (change) => catalog.applyChange(change));
    catalog.finishRecovery();
    const dbName = conn.target.dbName;
    assert.equal(catalog.get(dbName, "kept"), undefined);
    assert.deepEqual([...catalog.get(dbName, "moved")!.docs.iterate()], [{ _id: 1 }]);
    assert.deepEqual([...catalog.get(dbName, "users")!.indexes.keys()], ["email_1"]);
  });
});

describe("embedded engine: a rename while a snapshot is being written", () => {
  test("a collection renamed into a database the dump has passed is still in snapshot and journal", () => {
    const live = new Catalog();
    live.create("db2", "first");
    const source = live.create("db1", "a");
    for (const _id of [1, 2, 3]) source.put({ _id });
    const snapshot: Change[] = [];
    const dump = live.dump();
    // Dump db2 (its one empty collection is one change), then rename db1.a into it, as a command would meanwhile.
    const first = dump.next();
    assert.ok(!first.done && first.value.op === "createCollection" && first.value.db === "db2");
    snapshot.push(first.value);
    const writes = new WriteSet(live, undefined);
    writes.renameCollection({ db: "db1", name: "a" }, { db: "db2", name: "b" }, false);
    for (let step = dump.next(); !step.done; step = dump.next()) snapshot.push(step.value);
    const recovered = new Catalog();
    for (const change of [...snapshot, ...writes.changes]) recovered.applyChange(change);
    recovered.finishRecovery();
    assert.deepEqual([...recovered.get("db2", "b")!.docs.iterate()], [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    assert.equal(recovered.get("db1", "a"), undefined);
  });
});
