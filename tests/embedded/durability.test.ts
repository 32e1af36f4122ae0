import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { appendFile, readFile, stat, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { Binary, Decimal128, Long, ObjectId, Timestamp, UUID } from "bson";
import type { Change } from "../../src/embedded/changes.ts";
import { type CompactableStore, openDurableStore } from "../../src/embedded/durability/mod.ts";
import { ModelState, tempFolder } from "../fixtures/engine-model.ts";
import { deadPid, filesLike, openModel, put, quiet, reopen } from "../fixtures/engine-store.ts";

const noDump = () => [];

describe("durable store", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let store: CompactableStore | undefined;

  before(async () => ({ dir, cleanup } = await tempFolder("durability")));
  after(async () => {
    await store?.close();
    await cleanup();
  });

  // Each test works in its own subfolder of the suite's temp folder.
  let counter = 0;
  const fresh = () => join(dir, `case-${++counter}`);

  test("replays appended changes in order after close and reopen", async () => {
    const folder = fresh();
    const written: Change[] = [
      { op: "createCollection", db: "app", coll: "items" },
      { op: "createIndex", db: "app", coll: "items", spec: { name: "n_1", key: { n: 1 }, unique: true } },
      put(1),
      put(2, { tags: ["a", "b"], nested: { x: null } }),
      { op: "delete", db: "app", coll: "items", id: 1 },
      { op: "dropIndex", db: "app", coll: "items", name: "n_1" },
      { op: "dropCollection", db: "app", coll: "old" },
      { op: "dropDatabase", db: "scratch" },
    ];
    const first = await reopen(folder);
    assert.deepEqual(first.changes, []);
    await first.store.append(written.slice(0, 3));
    await first.store.append(written.slice(3));
    await first.store.close();

    const second = await reopen(folder);
    await second.store.close();
    assert.deepEqual(second.changes, written);
  });

  test("BSON types round-trip exactly", async () => {
    const folder = fresh();
    const oid = new ObjectId();
    const doc = {
      _id: oid,
      when: new Date("2024-02-29T12:34:56.789Z"),
      small: Long.fromNumber(7),
      huge: Long.fromString("9223372036854775807"),
      price: Decimal128.fromString("19.990"),
      raw: new Binary(new Uint8Array([0, 1, 2, 255])),
      // Subtype 4 always decodes as UUID (a Binary subclass), so that is what the engine holds.
      uuid: new UUID("0b5f5b5e-6a1c-4d1e-9b7a-2f1f3c4d5e6f"),
      ts: new Timestamp({ t: 1700000000, i: 3 }),
      int: 42,
      double: 0.1,
      negZero: -0,
      big: 2 ** 53,
      text: "héllo \u0000 wörld",
      list: [1, "two", { three: Long.fromNumber(3) }],
    };
    const compoundId = { a: Long.fromNumber(1), b: new Date(0) };
    const { store: first } = await reopen(folder);
    await first.append([{ op: "put", db: "app", coll: "types", doc }]);
    await first.append([{ op: "delete", db: "app", coll: "types", id: compoundId }]);
    await first.append([{ op: "delete", db: "app", coll: "types", id: oid }]);
    await first.close();

    const { store: second, changes } = await reopen(folder);
    await second.close();
    const [putBack, deleteCompound, deleteOid] = changes as [
      Extract<Change, { op: "put" }>,
      Extract<Change, { op: "delete" }>,
      Extract<Change, { op: "delete" }>,
    ];
    assert.deepStrictEqual(putBack.doc, doc);
    assert.ok(putBack.doc.small instanceof Long, "a small Long stays a Long");
    assert.ok(putBack.doc._id instanceof ObjectId);
    assert.ok(Object.is(putBack.doc.negZero, -0));
    assert.equal(putBack.doc.huge.toString(), "9223372036854775807");
    assert.deepStrictEqual(deleteCompound.id, compoundId);
    assert.ok(deleteOid.id instanceof ObjectId && deleteOid.id.equals(oid));
  });

  test("concurrent appends all land, in call order", async () => {
    const folder = fresh();
    const { store: first } = await reopen(folder);
    const batches = Array.from({ length: 300 }, (_, i) => [put(i % 7, { seq: i })]);
    await Promise.all(batches.map((batch) => first.append(batch)));
    await first.close();

    const { store: second, changes } = await reopen(folder);
    await second.close();
    assert.deepEqual(changes, batches.flat());
  });

  test("a torn last record is discarded and earlier records survive", async () => {
    const folder = fresh();
    const { store: first } = await reopen(folder);
    for (let i = 0; i < 5; i++) await first.append([put(i)]);
    await first.close();
    const [journal] = await filesLike(folder, "journal-");
    const path = join(folder, journal);
    const { size } = await stat(path);
    await truncate(path, size - 3);

    const warnings: string[] = [];
    const second = await reopen(folder, { warn: (m) => warnings.push(m) });
    assert.deepEqual(second.changes, [0, 1, 2, 3].map((i) => put(i)));
    assert.match(warnings.join("\n"), /Discarded \d+ bytes/);
    // The tail is cut off on disk, so records appended now are readable after the next restart.
    await second.store.append([put(9)]);
    await second.store.close();

    const third = await reopen(folder);
    await third.store.close();
    assert.deepEqual(third.changes, [0, 1, 2, 3, 9].map((i) => put(i)));
  });

  test("garbage after the last record is discarded", async () => {
    const folder = fresh();
    const { store: first } = await reopen(folder);
    await first.append([put(1)]);
    await first.append([put(2)]);
    await first.close();
    const path = join(folder, (await filesLike(folder, "journal-"))[0]);
    const goodSize = (await stat(path)).size;
    // A plausible header (length 20) followed by bytes that do not match its checksum.
    await appendFile(path, new Uint8Array([20, 0, 0, 0, 1, 2, 3, 4, ...new Array(20).fill(9)]));

    const second = await reopen(folder);
    await second.store.close();
    assert.deepEqual(second.changes, [put(1), put(2)]);
    assert.equal((await stat(path)).size, goodSize);
  });

  test("damage before intact records of the newest journal refuses to start and keeps the file", async () => {
    for (const damage of ["payload", "length", "zero"] as const) {
      const folder = fresh();
      const { store: first } = await reopen(folder);
      for (let i = 0; i < 6; i++) await first.append([put(i)]);
      await first.close();
      const path = join(folder, (await filesLike(folder, "journal-"))[0]);
      const bytes = await readFile(path);
      let third = 0; // the third record's offset
      for (let i = 0; i < 2; i++) third += 8 + bytes.readUInt32LE(third);
      if (damage === "payload") bytes[third + 20] ^= 0x01;
      else if (damage === "length") bytes[third] ^= 0x40;
      else bytes.writeUInt32LE(0, third);
      await writeFile(path, bytes);
      await assert.rejects(
        reopen(folder),
        new RegExp(
          `is damaged at byte ${third}, and an intact record follows at byte \\d+: this is damage inside acknowledged writes`,
        ),
        damage,
      );
      assert.deepEqual(await readFile(path), bytes, `${damage}: the journal is left as it was`);
    }
  });

  test("a multi-change append survives or vanishes as a whole", async () => {
    const folder = fresh();
    const { store: first } = await reopen(folder);
    await first.append([put(1)]);
    await first.append([put(2), put(3), put(4)]);
    await first.close();
    const path = join(folder, (await filesLike(folder, "journal-"))[0]);
    await truncate(path, (await stat(path)).size - 1);

    const second = await reopen(folder);
    await second.store.close();
    assert.deepEqual(second.changes, [put(1)]);
  });

  test("a second engine on the same folder is refused until the first closes", async () => {
    const folder = fresh();
    const first = await openDurableStore(folder, noDump, quiet);
    store = first;
    await assert.rejects(openDurableStore(folder, noDump, quiet), (error: Error) => {
      assert.match(
        error.message,
        /^Data directory .+ is in use by another engine \(pid \d+\)\. Stop it or choose another DATA_DIR\.$/,
      );
      assert.ok(error.message.includes(folder));
      assert.ok(error.message.includes(`pid ${process.pid}`));
      return true;
    });
    // The same folder through a symlink is still the same folder.
    await symlink(folder, `${folder}-link`);
    await assert.rejects(openDurableStore(`${folder}-link`, noDump, quiet), /in use by another engine/);
    await first.close();
    store = undefined;
    const again = await openDurableStore(folder, noDump, quiet);
    await again.close();
  });

  test("a lock left by a dead process, or by an earlier process with our pid, is taken over", async () => {
    const folder = fresh();
    const { store: first } = await reopen(folder);
    await first.append([put(1)]);
    await first.close();
    for (const pid of [await deadPid(), process.pid]) {
      await writeFile(join(folder, "engine.lock"), `${pid}\n`);
      const { store: next, changes } = await reopen(folder);
      assert.deepEqual(changes, [put(1)]);
      assert.equal((await readFile(join(folder, "engine.lock"), "utf8")).trim(), String(process.pid));
      await next.close();
    }
  });

  test("append is refused before recover and after close", async () => {
    const folder = fresh();
    const opened = await openDurableStore(folder, noDump, quiet);
    await assert.rejects(opened.append([put(1)]), /recover\(\) has not finished/);
    await opened.recover(() => {});
    await opened.close();
    await assert.rejects(opened.append([put(1)]), /store is closed/);
  });
});

describe("compaction", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ dir, cleanup } = await tempFolder("compaction")));
  after(() => cleanup());

  let counter = 0;
  const fresh = () => join(dir, `case-${++counter}`);
  const index = (name: string): Change => ({
    op: "createIndex",
    db: "app",
    coll: "items",
    spec: { name, key: { n: 1 } },
  });
  const remove = (id: number): Change => ({ op: "delete", db: "app", coll: "items", id });

  /** Recovers `folder` into a fresh model and returns its view. */
  async function recovered(folder: string) {
    const { model, store } = await openModel(folder);
    await store.close();
    return model.view();
  }

  test("writes a snapshot, drops the old journal, and recovers with later appends on top", async () => {
    const folder = fresh();
    const { model, store, write } = await openModel(folder);
    await write([index("n_1")]);
    for (let i = 0; i < 100; i++) await write([put(i)]);
    for (let i = 0; i < 100; i += 3) await write([remove(i)]);
    await store.compact();
    assert.deepEqual(await filesLike(folder, "snapshot-"), ["snapshot-0000000002.bson"]);
    assert.deepEqual(await filesLike(folder, "journal-"), ["journal-0000000002.log"]);

    await write([put(1, { v: "after" }), remove(2), put(500), {
      op: "dropIndex",
      db: "app",
      coll: "items",
      name: "n_1",
    }]);
    await write([{ op: "createCollection", db: "other", coll: "c" }]);
    await store.close();
    assert.deepEqual(await recovered(folder), model.view());
    assert.equal(model.count("app", "items"), 66);
  });

  test("writes made while the snapshot is being written converge on replay", async () => {
    const folder = fresh();
    // Mutates documents behind and ahead of the dump's cursor while it runs, and recreates a
    // collection it has not reached yet; the writes are journaled concurrently with the dump.
    const pending: Promise<void>[] = [];
    const dumpWithWrites = function* (model: ModelState) {
      let seen = 0;
      for (const change of model.dump()) {
        yield change;
        if (++seen % 40 !== 0) continue;
        pending.push(write([put(seen - 20, { v: seen }), put(seen + 20, { v: seen }), remove(seen + 10)]));
        pending.push(write([{ op: "dropCollection", db: "app", coll: "late" }, put(seen, { late: true })]));
        pending.push(write([{ op: "put", db: "app", coll: "late", doc: { _id: seen } }]));
      }
    };
    const opened = await openModel(folder, { ...quiet, snapshotChunk: 5 }, dumpWithWrites);
    const { model, store } = opened;
    const write = opened.write;
    for (let i = 0; i < 200; i++) await write([put(i)]);
    await write([{ op: "put", db: "app", coll: "late", doc: { _id: "first" } }]);
    await store.compact();
    await Promise.all(pending);
    await store.close();
    assert.ok(pending.length >= 10, "the dump wrote while it ran");
    assert.deepEqual(await recovered(folder), model.view());
  });

  test("starts by itself when the journal outgrows the threshold, and on open", async () => {
    const folder = fresh();
    const first = await openModel(folder, { ...quiet, compactThreshold: 4096 });
    // Each append resolves after the flush that crossed the threshold has started a compaction.
    for (let i = 0; i < 100 && !first.store.stats().compacting; i++) {
      await first.write([put(i, { pad: "x".repeat(100) })]);
    }
    assert.ok(first.store.stats().compacting);
    await first.store.idle();
    assert.equal((await filesLike(folder, "snapshot-")).length, 1);
    await first.store.close();

    // Grow one journal past a threshold the next open will have, then reopen with it.
    const second = await openModel(folder, { ...quiet, compactThreshold: 1 << 30 });
    for (let i = 0; i < 50; i++) await second.write([put(1000 + i, { pad: "y".repeat(200) })]);
    await second.store.close();
    const journals = await filesLike(folder, "journal-");
    const third = await openModel(folder, { ...quiet, compactThreshold: 8192 });
    assert.ok(third.store.stats().compacting, "recover() started a compaction");
    await third.store.idle();
    assert.ok(!(await filesLike(folder, "journal-")).includes(journals[0]));
    await third.store.close();
    assert.deepEqual(await recovered(folder), second.model.view());
    assert.equal(second.model.count("app", "items"), third.model.count("app", "items"));
  });

  test("a failed snapshot leaves a folder that recovers from its journals", async () => {
    const folder = fresh();
    let failDump = true;
    const opened = await openModel(folder, quiet, function* (model) {
      let n = 0;
      for (const change of model.dump()) {
        if (failDump && ++n > 10) throw new Error("dump failed");
        yield change;
      }
    });
    for (let i = 0; i < 50; i++) await opened.write([put(i)]);
    await assert.rejects(opened.store.compact(), /dump failed/);
    await opened.write([put(7, { v: "after failure" })]);
    assert.deepEqual(await filesLike(folder, "snapshot-"), []);
    assert.equal((await filesLike(folder, "journal-")).length, 2);
    failDump = false;
    await opened.store.compact();
    await opened.store.close();
    assert.deepEqual(await recovered(folder), opened.model.view());
  });

  test("leftovers of an interrupted compaction are ignored and removed", async () => {
    const folder = fresh();
    const first = await openModel(folder);
    await first.write([put(1, { v: "old" })]);
    const staleJournal = await readFile(join(folder, "journal-0000000001.log"));
    await first.write([put(1, { v: "new" })]);
    await first.store.compact();
    await first.write([put(2)]);
    await first.store.close();
    // As if the crash hit after the rename (old journal not yet deleted) and during the next
    // snapshot (its temp file half written).
    await writeFile(join(folder, "journal-0000000001.log"), staleJournal);
    await writeFile(join(folder, "snapshot-0000000003.bson.tmp"), "half a snapshot");

    assert.deepEqual(await recovered(folder), first.model.view());
    assert.deepEqual(await filesLike(folder, "journal-"), ["journal-0000000002.log"]);
    assert.deepEqual(await filesLike(folder, "snapshot-"), ["snapshot-0000000002.bson"]);
  });

  test("closing during a compaction finishes the snapshot instead of dropping it", async () => {
    const folder = fresh();
    let closing: Promise<void> | undefined;
    const opened = await openModel(folder, { ...quiet, snapshotChunk: 2 }, function* (model) {
      let n = 0;
      for (const change of model.dump()) {
        if (++n === 10) closing = opened.store.close();
        yield change;
      }
    });
    for (let i = 0; i < 50; i++) await opened.write([put(i)]);
    await opened.store.compact();
    await closing;
    await assert.rejects(opened.store.append([put(99)]), /store is closed/);
    assert.deepEqual(await filesLike(folder, "snapshot-"), ["snapshot-0000000002.bson"]);
    assert.deepEqual(await filesLike(folder, "journal-"), ["journal-0000000002.log"]);
    assert.deepEqual(await recovered(folder), opened.model.view());
  });

  test("a journal past the threshold is compacted by close even when the app stops at once", async () => {
    const folder = fresh();
    // A big journal, written with compaction out of reach.
    const first = await openModel(folder, { ...quiet, compactThreshold: 1 << 30 });
    for (let i = 0; i < 60; i++) await first.write([put(i, { pad: "z".repeat(200) })]);
    await first.store.close();
    assert.deepEqual(await filesLike(folder, "snapshot-"), []);

    // Started with a threshold the journal has passed, then stopped before its compaction ends
    // (slow chunks), as an app is when it is restarted right after a start.
    const second = await openModel(folder, { ...quiet, compactThreshold: 4096, snapshotChunk: 1 });
    assert.ok(second.store.stats().compacting, "recover() started a compaction");
    await second.store.close();
    assert.deepEqual(await filesLike(folder, "snapshot-"), ["snapshot-0000000002.bson"]);
    assert.deepEqual(await filesLike(folder, "journal-"), ["journal-0000000002.log"]);
    // The next start reads the snapshot alone: no journal left to replay.
    const third = await reopen(folder);
    assert.equal(third.store.stats().journalBytes, 0);
    assert.equal(third.changes.filter((change) => change.op === "put").length, 60);
    await third.store.close();
    assert.deepEqual(await recovered(folder), first.model.view());
  });

  test("close folds in a journal past the close threshold though no compaction is due, and leaves a smaller one", async () => {
    const folder = fresh();
    const first = await openModel(folder, { ...quiet, compactThreshold: 1 << 30, closeCompactThreshold: 8192 });
    for (let i = 0; i < 60; i++) await first.write([put(i, { pad: "c".repeat(200) })]);
    assert.ok(first.store.stats().journalBytes > 8192);
    assert.equal(first.store.stats().compacting, false, "no compaction is due before close");
    await first.store.close();
    assert.deepEqual(await filesLike(folder, "snapshot-"), ["snapshot-0000000002.bson"]);
    const second = await reopen(folder);
    assert.equal(second.store.stats().journalBytes, 0, "a start after a clean stop replays nothing");
    await second.store.close();

    const third = await openModel(folder, { ...quiet, compactThreshold: 1 << 30, closeCompactThreshold: 1 << 20 });
    for (let i = 0; i < 5; i++) await third.write([put(100 + i)]);
    await third.store.close();
    assert.deepEqual(await filesLike(folder, "snapshot-"), ["snapshot-0000000002.bson"], "a small journal stays");
    const left = await reopen(folder);
    await left.store.close();
    assert.ok(left.store.stats().journalBytes > 0, "the small journal is still there");
    // A session that only reads folds in a journal past its threshold too: one a crash left, say.
    const reader = await openModel(folder, { ...quiet, compactThreshold: 1 << 30, closeCompactThreshold: 64 });
    await reader.store.close();
    assert.deepEqual(
      await filesLike(folder, "snapshot-"),
      ["snapshot-0000000003.bson"],
      "the reading session compacted",
    );
    const last = await reopen(folder);
    await last.store.close();
    assert.equal(last.store.stats().journalBytes, 0);
    assert.deepEqual(await recovered(folder), third.model.view());
  });

  test("starts when the journal passes an eighth of the snapshot, when that is above the threshold", async () => {
    const folder = fresh();
    const first = await openModel(folder, { ...quiet, compactThreshold: 1 << 30, closeCompactThreshold: 0 });
    for (let i = 0; i < 200; i++) await first.write([put(i, { pad: "s".repeat(1000) })]);
    await first.store.close();
    const second = await openModel(folder, { ...quiet, compactThreshold: 1024 });
    const { snapshotBytes } = second.store.stats();
    assert.ok(snapshotBytes > 200_000, "the snapshot holds the 200 documents");
    let writes = 0;
    let before = 0;
    while (!second.store.stats().compacting) {
      before = second.store.stats().journalBytes;
      assert.ok(before <= snapshotBytes / 8, `no compaction at ${before} bytes of journal over ${snapshotBytes}`);
      await second.write([put(1000 + writes++, { pad: "t".repeat(1000) })]);
    }
    assert.ok(writes > 10, "the 1 KiB threshold alone would have started one at the second write");
    assert.ok(before + 2000 > snapshotBytes / 8, "it started once the journal passed the bar");
    await second.store.close();
    assert.deepEqual(await recovered(folder), second.model.view());
  });

  test("a compaction the journal's size called for but that failed is run again at close", async () => {
    const folder = fresh();
    let failDump = true;
    const opened = await openModel(folder, { ...quiet, compactThreshold: 4096 }, (model) => {
      if (failDump) throw new Error("no snapshot this time");
      return model.dump();
    });
    for (let i = 0; i < 60 && (await filesLike(folder, "journal-")).length < 2; i++) {
      await opened.write([put(i, { pad: "w".repeat(200) })]);
      await opened.store.idle();
    }
    assert.deepEqual(await filesLike(folder, "snapshot-"), [], "the compaction the threshold started failed");
    failDump = false;
    await opened.store.close();
    assert.deepEqual((await filesLike(folder, "snapshot-")).length, 1);
    assert.deepEqual(await recovered(folder), opened.model.view());
  });

  test("a damaged snapshot or a damaged older journal stops recovery", async () => {
    const folder = fresh();
    const first = await openModel(folder);
    for (let i = 0; i < 20; i++) await first.write([put(i)]);
    await first.store.compact();
    await first.store.close();
    const path = join(folder, "snapshot-0000000002.bson");
    const bytes = await readFile(path);
    bytes[bytes.length - 30] ^= 0xff;
    await writeFile(path, bytes);
    await assert.rejects(recovered(folder), /Snapshot .*snapshot-0000000002\.bson is damaged/);

    const other = fresh();
    let failDump = true;
    const second = await openModel(other, quiet, (model) => {
      if (failDump) throw new Error("no snapshot this time");
      return model.dump();
    });
    for (let i = 0; i < 20; i++) await second.write([put(i)]);
    await assert.rejects(second.store.compact());
    failDump = false;
    await second.write([put(99)]);
    await second.store.close();
    const older = join(other, "journal-0000000001.log");
    const journal = await readFile(older);
    journal[40] ^= 0xff;
    await writeFile(older, journal);
    await assert.rejects(recovered(other), /journal-0000000001\.log is damaged at byte \d+ .* newer journals follow/);
  });
});
