import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { MongoClient, MongoServerError } from "mongodb";
import type { Change } from "../../src/embedded/changes.ts";
import { encodeChanges } from "../../src/embedded/durability/codec.ts";
import type { CompactableStore } from "../../src/embedded/durability/mod.ts";
import { frameRecord } from "../../src/embedded/durability/records.ts";
import { put, reopen } from "../fixtures/engine-store.ts";
import { type EmbeddedEngine, startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { mountTinyDisk, type TinyDisk, tinyDiskUnavailable } from "../fixtures/tiny-disk.ts";

/**
 * The engine on a real full disk (a 1 MiB tmpfs): a write that finds no room is refused with
 * OutOfDiskSpace and not applied, reads go on, writing resumes by itself once space is freed,
 * and after a restart exactly the acknowledged writes are there: none that was refused.
 */

const OUT_OF_DISK_SPACE = 14031;

/** A document of about `bytes` bytes, so that a few dozen of them outgrow a page of slack. */
function doc(id: number, bytes = 300) {
  return { _id: id, body: "x".repeat(bytes) };
}

describe("embedded engine on a full disk", { skip: tinyDiskUnavailable }, () => {
  let disk: TinyDisk;
  let engine: EmbeddedEngine | undefined;
  let client: MongoClient | undefined;
  before(async () => (disk = await mountTinyDisk("1m")));
  after(async () => {
    await client?.close();
    await engine?.close();
    await disk.remove();
  });

  async function open(dataDir: string) {
    engine = await startEmbeddedEngine({ dataDir });
    client = new MongoClient(engine.uri, { retryWrites: false });
    return client.db("app").collection<{ _id: number; body: string }>("items");
  }

  async function storedIds(items: Awaited<ReturnType<typeof open>>): Promise<number[]> {
    return (await items.find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map((d) => d._id);
  }

  test("refuses writes without applying them, recovers once space is back, restarts with exactly the acknowledged ones", async () => {
    const dataDir = join(disk.dir, "data");
    let items = await open(dataDir);
    const acknowledged: number[] = [];
    const refused: number[] = [];
    for (let id = 1; id <= 5; id++) {
      await items.insertOne(doc(id));
      acknowledged.push(id);
    }

    await disk.fill();
    // Concurrent inserts, so that the journal writes them in batches: the slack left in the
    // journal's last page takes part of a batch before the kernel says ENOSPC.
    let next = 6;
    for (let round = 0; refused.length === 0 || round < 3; round++) {
      assert.ok(round < 50, "the disk never filled up");
      const ids = Array.from({ length: 20 }, () => next++);
      const results = await Promise.allSettled(ids.map((id) => items.insertOne(doc(id))));
      results.forEach((result, i) => {
        if (result.status === "fulfilled") return void acknowledged.push(ids[i]);
        assert.ok(result.reason instanceof MongoServerError, String(result.reason));
        assert.equal(result.reason.code, OUT_OF_DISK_SPACE, result.reason.message);
        assert.match(
          result.reason.message,
          /^Out of disk space: the write was not saved and is not applied \(.+\)\. Free space/,
        );
        refused.push(ids[i]);
      });
    }
    assert.deepEqual(await storedIds(items), acknowledged, "reads go on, and show no refused write");

    await disk.free();
    for (const id of [next, next + 1]) {
      await items.insertOne(doc(id));
      acknowledged.push(id);
    }
    await items.updateOne({ _id: 1 }, { $set: { body: "updated" } });

    await client!.close();
    await engine!.close();
    items = await open(dataDir);
    assert.deepEqual(await storedIds(items), acknowledged, "after a restart: every acknowledged write, no refused one");
    assert.equal((await items.findOne({ _id: 1 }))?.body, "updated");
  });
});

describe("journal on a full disk", { skip: tinyDiskUnavailable }, () => {
  let disk: TinyDisk;
  let store: CompactableStore | undefined;
  before(async () => (disk = await mountTinyDisk("1m")));
  after(async () => {
    await store?.close();
    await disk.remove();
  });

  const recordBytes = (changes: Change[]) => frameRecord(encodeChanges(changes)).length;

  test("a batch cut short by ENOSPC leaves none of its records behind, not even the complete ones", async () => {
    const dir = join(disk.dir, "batch");
    const pageBytes = Number(spawnSync("getconf", ["PAGESIZE"], { encoding: "utf8" }).stdout);
    const opened = (await reopen(dir)).store;
    store = opened;
    await opened.append([put(1)]);
    // Pad the journal so that its last page has room for several records but not for a whole
    // batch: the kernel then writes part of the batch (complete records among it) and refuses the rest.
    const journal = join(dir, "journal-0000000001.log");
    const used = (await stat(journal)).size % pageBytes;
    const overhead = recordBytes([put(2, { pad: "" })]);
    const padding = (pageBytes - used + pageBytes / 4) % pageBytes;
    await opened.append([
      put(2, { pad: "p".repeat(padding < overhead ? padding + pageBytes - overhead : padding - overhead) }),
    ]);
    assert.equal((await stat(journal)).size % pageBytes, pageBytes / 4, "the journal's last page is a quarter full");

    await disk.fill();
    // Appended in one go, these form one batch of about a page: more than the slack left.
    const batch = Array.from({ length: 40 }, (_, i) => put(100 + i, { body: "b".repeat(80) }));
    assert.ok(recordBytes([batch[0]]) * 40 > pageBytes, "the batch is larger than the room left");
    const results = await Promise.allSettled(batch.map((change) => opened.append([change])));
    const acknowledged = results.flatMap((result, i) => (result.status === "fulfilled" ? [100 + i] : []));
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    assert.ok(refused.length > 1, "the disk refused part of the batch");
    for (const reason of refused) assert.match(String(reason), /Out of disk space/);

    await disk.free();
    await opened.append([put(3)]);
    await opened.close();
    const { store: reopened, changes } = await reopen(dir);
    store = reopened;
    await reopened.close();
    const ids = changes.flatMap((change) => (change.op === "put" ? [change.doc._id as number] : []));
    assert.deepEqual(ids, [1, 2, ...acknowledged, 3], "only the acknowledged records are recovered");
  });
});
