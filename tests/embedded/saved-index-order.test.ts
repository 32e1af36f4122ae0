import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Document } from "bson";
import type { Collection } from "mongodb";
import type { Change, IndexSpec } from "../../src/embedded/changes.ts";
import { openDurableStore } from "../../src/embedded/durability/mod.ts";
import { encodeChanges } from "../../src/embedded/durability/codec.ts";
import { Catalog, ORDER_PART } from "../../src/embedded/store/catalog.ts";
import { indexStats, type OrderedIndex } from "../../src/embedded/store/ordered-index.ts";
import { entriesOf } from "../helpers/index-entries.ts";
import { reportingSeed, seededRandom, TEST_SEED } from "../helpers/seed.ts";
import { connectTarget } from "./helpers.ts";
import { collectionHistory } from "../helpers/collection-history.ts";

// Recovery used to sort every index of every collection; a snapshot now saves each index's
// order and recovery reads it back, checking it, instead. These tests hold the saved order to
// what a sort would have built, and recovery to a sort whenever the order does not fit.

// The database connectTarget("saved_index_order") opens, so the driver test reads what the catalog wrote.
const DB = "embedded_saved_index_order";
const COLL = "people";
const SPECS: IndexSpec[] = [
  { name: "name_1__id_1", key: { name: 1, _id: 1 } },
  { name: "age_-1_name_1", key: { age: -1, name: 1 } },
  { name: "name_ci", key: { name: 1 }, collation: { locale: "en", strength: 2 } },
  { name: "tags_1", key: { tags: 1 } }, // multikey: no saved order
  { name: "address.city_1", key: { "address.city": 1 } }, // a path: no saved order
];
/** The indexes whose order a snapshot saves. */
const SAVED = ["name_1__id_1", "age_-1_name_1", "name_ci"];

type Person = { _id: number; name: string; age?: number; tags?: string[]; address?: { city: string } };

const NAMES = ["ada", "Ada", "alan", "Grace", "grace", "ken", "Édith", "zoe"];

/** People with repeated names and ages, some fields missing, in shuffled `_id` order. */
function people(random: () => number, count: number): Document[] {
  const ids = Array.from({ length: count }, (_, i) => i * 3);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids.map((id) => {
    const doc: Document = { _id: id, name: NAMES[Math.floor(random() * NAMES.length)], tags: ["x", `t${id % 4}`] };
    if (random() < 0.8) doc.age = Math.floor(random() * 10);
    if (random() < 0.5) doc.address = { city: `c${Math.floor(random() * 5)}` };
    return doc;
  });
}

/** The changes that make the collection: created, indexed, filled. */
const history = (docs: readonly Document[]): Change[] => collectionHistory(DB, COLL, SPECS, docs);

/** A catalog recovered from `changes`, its indexes built, and how they were built. */
function recover(changes: Iterable<Change>): { catalog: Catalog; sorted: number; fromSaved: number } {
  const catalog = new Catalog();
  for (const change of changes) catalog.applyChange(change);
  const before = { ...indexStats };
  catalog.finishRecovery();
  // Orders in binary order load unchecked; the engine checks them after start-up, a slice at a time.
  while (catalog.checkSavedOrders(64).more);
  return {
    catalog,
    sorted: indexStats.builds - before.builds,
    fromSaved: indexStats.fromSavedOrder - before.fromSavedOrder,
  };
}

function indexesOf(catalog: Catalog): Map<string, OrderedIndex> {
  return new Map([...catalog.get(DB, COLL)!.orderedIndexes()].map((index) => [index.spec.name, index]));
}

/** Every index's entries, by name. */
function allEntries(catalog: Catalog): Record<string, unknown[][]> {
  return Object.fromEntries([...indexesOf(catalog)].map(([name, index]) => [name, entriesOf(index)]));
}

const orderChanges = (changes: readonly Change[]) => changes.filter((change) => change.op === "indexOrder");

describe("embedded engine: index orders saved in snapshots", () => {
  test("a snapshot saves the order of each index without arrays or paths, and recovery builds from it", () =>
    reportingSeed(() => {
      const source = recover(history(people(seededRandom(1), 400))).catalog;
      const dumped = [...source.dump()];
      assert.deepEqual(orderChanges(dumped).map((change) => change.op === "indexOrder" && change.name), SAVED);
      const copy = recover(dumped);
      assert.deepEqual(
        [copy.fromSaved, copy.sorted],
        [3, 2],
        "three from saved orders; tags_1 and address.city_1 sorted",
      );
      assert.deepEqual(allEntries(copy.catalog), allEntries(source), `seed ${TEST_SEED}`);
      // Writes after recovery maintain the indexes built from saved orders.
      const coll = copy.catalog.get(DB, COLL)!;
      coll.put({ _id: 1, name: "bob", age: 3 });
      coll.delete(0);
      const fresh = recover([...history([...people(seededRandom(1), 400), { _id: 1, name: "bob", age: 3 }])]);
      fresh.catalog.get(DB, COLL)!.delete(0);
      assert.deepEqual(allEntries(copy.catalog), allEntries(fresh.catalog));
    }));

  test("an order that does not fit the documents is not used: the index is sorted", () =>
    reportingSeed(() => {
      const source = recover(history(people(seededRandom(2), 300))).catalog;
      const expected = allEntries(source);
      const dumped = [...source.dump()];
      const tamper = (edit: (positions: Int32Array) => Int32Array): Change[] =>
        dumped.map((change) =>
          change.op === "indexOrder" && change.name === "age_-1_name_1"
            ? { ...change, positions: new Uint8Array(edit(new Int32Array(change.positions.slice().buffer)).buffer) }
            : change
        );
      const cases: [string, Change[]][] = [
        [
          "two entries swapped",
          tamper((p) => p.map((v, k) => (k === 0 ? p[p.length - 1] : k === p.length - 1 ? p[0] : v))),
        ],
        ["a position repeated", tamper((p) => p.map((v, k) => (k === 1 ? p[0] : v)))],
        ["a position out of range", tamper((p) => p.map((v, k) => (k === 5 ? 9999 : v)))],
        ["one entry short", tamper((p) => p.slice(1))],
        ["equal keys out of _id order", tamper(swapFirstTie(source))],
      ];
      for (const [what, changes] of cases) {
        const copy = recover(changes);
        assert.equal(copy.sorted, 3, what);
        assert.deepEqual(allEntries(copy.catalog), expected, what);
      }
    }));

  test("the journal's writes after a snapshot are merged into the saved orders", () =>
    reportingSeed(() => {
      const random = seededRandom(6);
      const source = recover(history(people(random, 500))).catalog;
      const dumped = [...source.dump()];
      // A journal: new people, renamed and re-aged ones (keys that move), some written twice,
      // deletions of snapshot and journal documents alike.
      const journal: Change[] = [];
      const put = (doc: Document): Change => ({ op: "put", db: DB, coll: COLL, doc });
      for (let i = 0; i < 300; i++) {
        const id = Math.floor(random() * 1700) * (random() < 0.7 ? 3 : 1);
        if (random() < 0.2) journal.push({ op: "delete", db: DB, coll: COLL, id });
        else journal.push(put({ _id: id, name: NAMES[Math.floor(random() * NAMES.length)], age: i % 7, tags: ["j"] }));
      }
      const merged = recover([...dumped, ...journal]);
      assert.deepEqual([merged.fromSaved, merged.sorted], [3, 2]);
      // The same documents with no saved orders at all: every index sorted.
      const sorted = recover([...history([]), ...dumped.filter((c) => c.op === "put"), ...journal]);
      assert.equal(sorted.fromSaved, 0);
      assert.deepEqual(allEntries(merged.catalog), allEntries(sorted.catalog), `seed ${TEST_SEED}`);
      // A written version holding an array on an indexed field: that index is sorted (multikey).
      const arrays = recover([...dumped, put({ _id: 0, name: "x", age: [1, 2] })]);
      assert.deepEqual([arrays.fromSaved, arrays.sorted], [2, 3], "age_-1_name_1 is sorted");
      assert.equal(indexesOf(arrays.catalog).get("age_-1_name_1")!.multikey, true);
      assert.deepEqual(
        allEntries(arrays.catalog)["name_1__id_1"],
        allEntries(
          recover([
            ...history([]),
            ...dumped.filter((c) => c.op === "put"),
            put({ _id: 0, name: "x", age: [1, 2] }),
          ]).catalog,
        )["name_1__id_1"],
      );
    }));

  test("an order comes in parts, put back together by recovery; a part missing means a sort", () =>
    reportingSeed(() => {
      const source = recover(history(people(seededRandom(7), 250))).catalog;
      const dumped = [...source.dump(100)];
      const parts = orderChanges(dumped).map((change) => change.op === "indexOrder" && [change.name, change.from]);
      assert.deepEqual(parts, SAVED.flatMap((name) => [[name, 0], [name, 100], [name, 200]]));
      const whole = recover(dumped);
      assert.deepEqual([whole.fromSaved, whole.sorted], [3, 2]);
      assert.deepEqual(allEntries(whole.catalog), allEntries(source));
      const gap = dumped.filter((change) =>
        !(change.op === "indexOrder" && change.name === "name_ci" && change.from === 100)
      );
      const gapped = recover(gap);
      assert.deepEqual([gapped.fromSaved, gapped.sorted], [2, 3]);
      assert.deepEqual(allEntries(gapped.catalog), allEntries(source));
    }));

  test("a part of the default size encodes as one BSON document, as a snapshot record", () => {
    // BSON documents hold at most 16 MiB (the bson library's buffer 17 MiB): an order of more
    // than ~4 million entries in one piece made every snapshot fail.
    const positions = new Uint8Array(ORDER_PART * 4);
    const change: Change = { op: "indexOrder", db: DB, coll: COLL, name: "n", count: ORDER_PART, from: 0, positions };
    assert.ok(encodeChanges([change]).length > positions.length);
  });

  test("no order is saved when the collection is written while the snapshot lists it", () => {
    const source = recover(history(people(seededRandom(3), 50))).catalog;
    const dumped: Change[] = [];
    for (const change of source.dump()) {
      dumped.push(change);
      if (change.op === "put" && change.doc._id === 30) source.get(DB, COLL)!.put({ _id: 31, name: "late" });
    }
    assert.deepEqual(orderChanges(dumped), []);
    // Taken again, quietly, the snapshot saves them.
    assert.equal(orderChanges([...source.dump()]).length, SAVED.length);
  });

  test(
    "restarting from a compacted folder, with and without a journal on top, serves the same answers",
    { skip: process.env.MONGODB_URI !== undefined },
    () =>
      reportingSeed(async () => {
        const dataDir = await mkdtemp(join(tmpdir(), "saved-index-order-"));
        try {
          const docs = people(seededRandom(4), 2000);
          await compactedFolder(dataDir, history(docs));
          const expectedAges = (rows: Document[]) =>
            rows.filter((d) => typeof d.age === "number" && d.age >= 7).sort((a, b) =>
              b.age - a.age || (a.name < b.name ? -1 : a.name > b.name ? 1 : a._id - b._id)
            ).map((d) => d._id);

          // 1. Straight from the snapshot: every saved order is used.
          let before = { ...indexStats };
          let conn = await connectTarget("saved_index_order", { dataDir });
          let people_ = conn.db.collection<Person>(COLL);
          try {
            assert.equal(indexStats.fromSavedOrder - before.fromSavedOrder, 3);
            await assertServed(people_, expectedAges(docs));
            // A small journal on top (well under 1/32 of the snapshot): an update that moves
            // a document's keys, a delete, an insert.
            const moved = docs.find((d) => d.age === 0)!._id;
            await people_.updateOne({ _id: moved }, { $set: { age: 9 } });
            await people_.deleteOne({ _id: 3 });
            await people_.insertOne({ _id: 1, name: "zed", age: 8 });
          } finally {
            await conn.close();
          }
          const moved = docs.find((d) => d.age === 0)!._id;
          const now = docs.map((d) => (d._id === moved ? { ...d, age: 9 } : d)).filter((d) => d._id !== 3);
          now.push({ _id: 1, name: "zed", age: 8 });

          // 2. Snapshot then journal: built from the saved orders, then maintained write by write.
          before = { ...indexStats };
          conn = await connectTarget("saved_index_order", { dataDir });
          people_ = conn.db.collection<Person>(COLL);
          try {
            assert.equal(indexStats.fromSavedOrder - before.fromSavedOrder, 3);
            assert.equal(indexStats.builds - before.builds, 2, "tags_1 and address.city_1");
            await assertServed(people_, expectedAges(now));
            // 3. A larger journal: the indexes wait for it, then merge it into the saved orders.
            await people_.insertMany(
              people(seededRandom(5), 6000).map((d) => ({ ...d, _id: d._id + 100_000 }) as Person),
            );
          } finally {
            await conn.close();
          }
          before = { ...indexStats };
          conn = await connectTarget("saved_index_order", { dataDir });
          try {
            assert.equal(indexStats.fromSavedOrder - before.fromSavedOrder, 3);
            assert.equal(indexStats.builds - before.builds, 2);
            const added = people(seededRandom(5), 6000).map((d) => ({ ...d, _id: d._id + 100_000 }) as Person);
            await assertServed(conn.db.collection<Person>(COLL), expectedAges([...now, ...added]));
          } finally {
            await conn.close();
          }
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      }),
  );
});

/** Swaps the `_id` order of the first two entries of age_-1_name_1 that share their keys. */
function swapFirstTie(source: Catalog): (positions: Int32Array) => Int32Array {
  const index = indexesOf(source).get("age_-1_name_1")!;
  const entries = entriesOf(index);
  const tie = entries.findIndex((entry, k) =>
    k > 0 && entry[1] === entries[k - 1][1] && entry[2] === entries[k - 1][2]
  );
  assert.ok(tie > 0, "the seeded people repeat an (age, name) pair");
  return (positions) => {
    const out = positions.slice();
    [out[tie - 1], out[tie]] = [out[tie], out[tie - 1]];
    return out;
  };
}

/** Writes `changes` into `dir` as the engine would, then compacts it into one snapshot. */
async function compactedFolder(dir: string, changes: readonly Change[]): Promise<void> {
  const catalog = new Catalog();
  const store = await openDurableStore(dir, () => catalog.dump(), { warn: () => {} });
  await store.recover((change) => catalog.applyChange(change));
  catalog.finishRecovery();
  for (const change of changes) catalog.applyChange(change);
  catalog.finishRecovery();
  await store.append(changes);
  await store.compact();
  await store.close();
}

/** The `age >= 7` page through the age index, compared with what the documents say. */
async function assertServed(people: Collection<Person>, expected: unknown[]): Promise<void> {
  const query = people.find({ age: { $gte: 7 } }).sort({ age: -1, name: 1 }).hint("age_-1_name_1");
  const explained = await query.explain("executionStats");
  assert.equal(explained.executionStats.totalKeysExamined, expected.length);
  assert.deepEqual((await query.toArray()).map((d) => d._id), expected);
  assert.equal(
    await people.countDocuments({ name: "ADA" }, { collation: { locale: "en", strength: 2 } }),
    await people.countDocuments({ name: { $in: ["ada", "Ada"] } }),
  );
}
