import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Double, Int32, Long } from "bson";
import type { CollationOptions, Collection as DriverCollection, Document, Filter, Sort } from "mongodb";
import type { Change, IndexSpec } from "../../src/embedded/changes.ts";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { parseCollation } from "../../src/embedded/store/collation.ts";
import { Collection } from "../../src/embedded/store/collection.ts";
import { OrderedIndex } from "../../src/embedded/store/ordered-index.ts";
import { compareValues, keyOf } from "../../src/embedded/store/values.ts";
import { entriesOf } from "../helpers/index-entries.ts";
import { reportingSeed, seededRandom, TEST_SEED } from "../helpers/seed.ts";
import { type Connected, connectTarget } from "./helpers.ts";
import { collectionHistory } from "../helpers/collection-history.ts";

// An index whose fields are all top-level, none holding an array, keeps no keys: its entries
// name documents by number and read their keys from the documents' bytes. These tests hold
// such indexes to what a fresh sort of the same documents builds, through writes, the switch to
// held keys a first array forces, and the slice-by-slice check of an order recovery loaded
// unchecked; and the sort of an exact index scan's matches on their sort fields alone to what a
// collection scan returns.

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** The entries a fresh build of `index`'s spec over `coll`'s documents holds. */
function freshEntries(coll: Collection, index: OrderedIndex): unknown[][] {
  const fresh = new OrderedIndex(index.spec, coll.docs.table);
  fresh.build(coll.docs.numbers());
  return entriesOf(fresh);
}

/** Entries with each key as its canonical value (1, 1.0 and Long(1) one value, as the index compares them). */
const canonical = (entries: unknown[][]): unknown[][] => entries.map(([id, ...keys]) => [id, ...keys.map(keyOf)]);

/**
 * Every index of `coll` holds what a fresh build over its documents would: the same entries in
 * the same order with the same key values. An index holding its keys is compared on canonical
 * keys: a replacement that keeps an entry's key by value (2 becoming Long(2)) keeps the key as
 * first held, which compares and orders the same.
 */
function assertAsFresh(coll: Collection, what: string): void {
  for (const index of coll.orderedIndexes()) {
    const [held, fresh] = [entriesOf(index), freshEntries(coll, index)];
    const message = `${index.spec.name}: ${what} (seed ${TEST_SEED})`;
    if (index.entries.holdsKeys) assert.deepEqual(canonical(held), canonical(fresh), message);
    else assert.deepEqual(held, fresh, message);
  }
}

function indexNamed(coll: Collection, name: string): OrderedIndex {
  const index = [...coll.orderedIndexes()].find((each) => each.spec.name === name);
  assert.ok(index, `index ${name}`);
  return index;
}

/** Whether each index holds its keys (true) or reads them from the documents (false), by name. */
function holding(coll: Collection): Record<string, boolean> {
  return Object.fromEntries([...coll.orderedIndexes()].map((index) => [index.spec.name, index.entries.holdsKeys]));
}

function multikeys(coll: Collection): Record<string, boolean> {
  return Object.fromEntries([...coll.orderedIndexes()].map((index) => [index.spec.name, index.multikey]));
}

const FLAT_SPECS: IndexSpec[] = [
  { name: "a_1", key: { a: 1 } },
  { name: "b_-1", key: { b: -1 } },
  { name: "a_1_b_-1", key: { a: 1, b: -1 } },
  { name: "s_ci", key: { s: 1 }, collation: { locale: "en", strength: 2 } },
];

/** Ids of two types (numbers sort before strings), so ties in every index are broken across them. */
function someId(random: () => number): unknown {
  return random() < 0.85 ? Math.floor(random() * 260) : `k${Math.floor(random() * 40)}`;
}

/**
 * A flat value from a small set, so keys repeat: numbers of several widths equal by value,
 * strings, null, booleans, dates, a sub-document; `undefined` leaves the field out.
 */
function flatValue(random: () => number): unknown {
  return pick(random, [
    () => Math.floor(random() * 6),
    () => pick(random, [2.5, -1, 0]),
    () => new Long(Math.floor(random() * 6)),
    () => new Int32(Math.floor(random() * 6)),
    () => new Double(Math.floor(random() * 6)),
    () => pick(random, ["x", "X", "y", "é", "E", ""]),
    () => pick(random, [null, undefined, true, false]),
    () => new Date(Date.UTC(2026, 0, 1 + Math.floor(random() * 3))),
    () => pick(random, [{ z: 1 }, { z: [1] }]),
  ])();
}

function flatDoc(random: () => number, id: unknown): Document {
  const doc: Document = { _id: id };
  for (const field of ["a", "b", "s", "other"]) {
    const value = field === "s"
      ? pick(random, ["ab", "AB", "Ab", "b", "B", "é", "e", 3, undefined])
      : flatValue(random);
    if (value !== undefined) doc[field] = value;
  }
  return doc;
}

/** Counts of what a random write did, to hold the sequence to covering every kind. */
interface Tally {
  inserts: number;
  replacements: number;
  sameKeys: number;
  deletes: number;
}

/**
 * One random write: an insert or a replacement (a whole new document, or one field changed so
 * that some indexes keep their key and others move), or a delete.
 */
function randomWrite(
  coll: Collection,
  random: () => number,
  tally: Tally,
  makeDoc: (random: () => number, id: unknown) => Document = flatDoc,
): void {
  const id = someId(random);
  const r = random();
  if (r < 0.2) {
    if (coll.delete(id)) tally.deletes++;
    return;
  }
  const old = coll.docs.get(id);
  if (old !== undefined && r < 0.45) {
    // One field changed: the other indexes keep their keys (and only repoint their entries).
    const field = pick(random, ["a", "b", "s", "other"]);
    coll.put({ ...old, [field]: flatValue(random) });
    tally.sameKeys++;
    return;
  }
  coll.put(makeDoc(random, id));
  if (old === undefined) tally.inserts++;
  else tally.replacements++;
}

describe("indexes on top-level fields read their keys from the documents", () => {
  test("built over existing documents, then maintained through thousands of random writes, they hold no keys and match a fresh build", () =>
    reportingSeed(() => {
      const random = seededRandom(101);
      const coll = new Collection("index_keys", "flat");
      for (let i = 0; i < 200; i++) coll.put(flatDoc(random, someId(random)));
      for (const spec of FLAT_SPECS) assert.equal(coll.addIndex(spec), undefined, spec.name);
      const none = Object.fromEntries(FLAT_SPECS.map((spec) => [spec.name, false]));
      assert.deepEqual(holding(coll), none, "after addIndex over existing documents");
      assert.deepEqual(multikeys(coll), none);
      assertAsFresh(coll, "after addIndex");

      const tally: Tally = { inserts: 0, replacements: 0, sameKeys: 0, deletes: 0 };
      for (let op = 1; op <= 4000; op++) {
        randomWrite(coll, random, tally);
        if (op % 500 === 0) {
          assert.deepEqual(holding(coll), none, `after ${op} writes`);
          assertAsFresh(coll, `after ${op} writes`);
        }
      }
      for (const [kind, count] of Object.entries(tally)) assert.ok(count > 200, `${kind}: ${count}`);
      assert.ok(coll.docs.size > 100, `${coll.docs.size} documents left`);
      // Keys repeat: ties in each index are ordered by `_id`.
      const a = entriesOf(indexNamed(coll, "a_1"));
      assert.ok(a.some((entry, k) => k > 0 && compareValues(entry[1], a[k - 1][1]) === 0));
    }));

  test("an index created on an empty collection holds no keys after puts either", () =>
    reportingSeed(() => {
      const random = seededRandom(102);
      const coll = new Collection("index_keys", "empty_first");
      for (const spec of FLAT_SPECS) coll.addIndex(spec);
      const none = Object.fromEntries(FLAT_SPECS.map((spec) => [spec.name, false]));
      assert.deepEqual(holding(coll), none, "empty");
      const tally: Tally = { inserts: 0, replacements: 0, sameKeys: 0, deletes: 0 };
      for (let op = 0; op < 1500; op++) randomWrite(coll, random, tally);
      assert.deepEqual(holding(coll), none, "after puts");
      assertAsFresh(coll, "after puts");
      // Every document deleted, then written again.
      for (const id of [...coll.docs.iterate()].map((doc) => doc._id)) coll.delete(id);
      assert.deepEqual(entriesOf(indexNamed(coll, "a_1_b_-1")), []);
      for (let op = 0; op < 300; op++) randomWrite(coll, random, tally);
      assert.deepEqual(holding(coll), none, "after emptying and refilling");
      assertAsFresh(coll, "after emptying and refilling");
    }));

  test("a document with an array on an indexed field switches that index to held keys (multikey); the others keep reading", () =>
    reportingSeed(() => {
      const random = seededRandom(103);
      const coll = new Collection("index_keys", "arrays");
      for (let i = 0; i < 300; i++) coll.put(flatDoc(random, someId(random)));
      for (const spec of FLAT_SPECS) coll.addIndex(spec);
      assert.deepEqual(holding(coll), { "a_1": false, "b_-1": false, "a_1_b_-1": false, "s_ci": false });

      // An insert with an array on `a` (repeating an element).
      coll.put({ _id: "arr1", a: [3, 1, 3, "x"], b: 2, s: "ab" });
      const afterA = { "a_1": true, "b_-1": false, "a_1_b_-1": true, "s_ci": false };
      assert.deepEqual(holding(coll), afterA);
      assert.deepEqual(multikeys(coll), afterA);
      assertAsFresh(coll, "after the first array");
      assert.deepEqual(
        entriesOf(indexNamed(coll, "a_1")).filter((entry) => entry[0] === "arr1"),
        [["arr1", 1], ["arr1", 3], ["arr1", "x"]],
        "one entry per distinct element",
      );

      // Writes go on, with arrays (empty ones too) now and then on `a`.
      const withArrays = (random: () => number, id: unknown): Document => {
        const doc = flatDoc(random, id);
        if (random() < 0.15) doc.a = pick(random, [[1, 2], [], [2, "X"], [[1], 1], [null]]);
        return doc;
      };
      const tally: Tally = { inserts: 0, replacements: 0, sameKeys: 0, deletes: 0 };
      for (let op = 1; op <= 2000; op++) {
        randomWrite(coll, random, tally, withArrays);
        if (op % 500 === 0) {
          assert.deepEqual(holding(coll), afterA, `after ${op} writes`);
          assertAsFresh(coll, `after ${op} writes`);
        }
      }

      // A replacement bringing an array on `b`: b_-1 switches too; s_ci still reads.
      const target = [...coll.docs.iterate()].find((doc) => !Array.isArray(doc.a))!;
      coll.put({ ...target, b: ["q", 4] });
      const afterB = { "a_1": true, "b_-1": true, "a_1_b_-1": true, "s_ci": false };
      assert.deepEqual(holding(coll), afterB);
      assert.deepEqual(multikeys(coll), afterB);
      assertAsFresh(coll, "after an array on b");

      // Arrays deleted or replaced away: the indexes stay multikey, and still match a fresh build.
      for (const doc of [...coll.docs.iterate()]) {
        if (Array.isArray(doc.a) || Array.isArray(doc.b)) coll.put({ _id: doc._id, a: 1, b: 1 });
      }
      assert.deepEqual(holding(coll), afterB);
      assertAsFresh(coll, "after the arrays are gone");
      // An index added now, with no array left, reads its keys again.
      coll.addIndex({ name: "b_1_a_1", key: { b: 1, a: 1 } });
      assert.equal(indexNamed(coll, "b_1_a_1").entries.holdsKeys, false);
      assert.equal(indexNamed(coll, "b_1_a_1").multikey, false);
      assertAsFresh(coll, "after a new index");
    }));

  test("an index on a path inside a field (a.b) always holds its keys", () =>
    reportingSeed(() => {
      const random = seededRandom(104);
      const nested = (random: () => number, id: unknown): Document => {
        const doc = flatDoc(random, id);
        if (random() < 0.85) doc.p = random() < 0.8 ? { q: flatValue(random), r: 1 } : flatValue(random);
        return doc;
      };
      const coll = new Collection("index_keys", "paths");
      for (let i = 0; i < 300; i++) coll.put(nested(random, someId(random)));
      coll.addIndex({ name: "p.q_1", key: { "p.q": 1 } });
      coll.addIndex({ name: "p.q_1_a_-1", key: { "p.q": 1, a: -1 } });
      coll.addIndex({ name: "a_1", key: { a: 1 } });
      const expected = { "p.q_1": true, "p.q_1_a_-1": true, "a_1": false };
      assert.deepEqual(holding(coll), expected, "after addIndex, no array anywhere");
      assert.deepEqual(multikeys(coll), { "p.q_1": false, "p.q_1_a_-1": false, "a_1": false });
      assertAsFresh(coll, "after addIndex");
      const fresh = new OrderedIndex({ name: "p.q_1", key: { "p.q": 1 } }, coll.docs.table);
      fresh.build(coll.docs.numbers());
      assert.equal(fresh.entries.holdsKeys, true, "a fresh build too");

      const empty = new Collection("index_keys", "paths_empty");
      empty.addIndex({ name: "p.q_1", key: { "p.q": 1 } });
      assert.equal(indexNamed(empty, "p.q_1").entries.holdsKeys, true, "on an empty collection");

      const tally: Tally = { inserts: 0, replacements: 0, sameKeys: 0, deletes: 0 };
      for (let op = 1; op <= 2000; op++) {
        randomWrite(coll, random, tally, nested);
        randomWrite(empty, random, tally, nested);
        if (op % 500 === 0) {
          assert.deepEqual(holding(coll), expected, `after ${op} writes`);
          assert.equal(indexNamed(empty, "p.q_1").entries.holdsKeys, true);
          assertAsFresh(coll, `after ${op} writes`);
          assertAsFresh(empty, `after ${op} writes`);
        }
      }
      // An array under the path makes it multikey; it held its keys all along.
      coll.put({ _id: "arr", p: [{ q: 2 }, { q: 1 }], a: 1 });
      assert.equal(indexNamed(coll, "p.q_1").multikey, true);
      assert.deepEqual(holding(coll), expected);
      assertAsFresh(coll, "after an array under the path");
    }));
});

// ---------------------------------------------------------------------------------------------
// Saved orders checked a slice at a time, at the catalog level.

const DB = "index_keys";
const COLL = "items";
const SPECS: IndexSpec[] = [
  { name: "n_1", key: { n: 1 } },
  { name: "g_-1_n_1", key: { g: -1, n: 1 } },
  { name: "s_ci", key: { s: 1 }, collation: { locale: "en", strength: 2 } }, // checked at once
  { name: "t_1", key: { t: 1 } }, // multikey: no saved order
  { name: "p.q_1", key: { "p.q": 1 } }, // a path: no saved order
];
/** The indexes whose saved order loads unchecked: binary order, top-level fields, no arrays. */
const UNCHECKED = ["n_1", "g_-1_n_1"];
const ITEMS = 700;
const BUDGET = 50;

/** Items with repeated keys, some missing, in shuffled `_id` order. */
function items(random: () => number, count: number): Document[] {
  const ids = Array.from({ length: count }, (_, i) => i * 2);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids.map((id) => {
    const doc: Document = { _id: id, n: pick(random, [1, 2, 2.5, "a", "B", "b", null]), t: ["x", `t${id % 3}`] };
    if (random() < 0.8) doc.g = Math.floor(random() * 6);
    if (random() < 0.7) doc.s = pick(random, ["ab", "AB", "é", "E", "e"]);
    if (random() < 0.5) doc.p = { q: Math.floor(random() * 4) };
    return doc;
  });
}

/** The changes that make the collection: created, indexed, filled. */
const history = (docs: readonly Document[]): Change[] => collectionHistory(DB, COLL, SPECS, docs);

/** A catalog the changes recover, right after finishRecovery: saved orders not checked yet. */
function load(changes: Iterable<Change>): Catalog {
  const catalog = new Catalog();
  for (const change of changes) catalog.applyChange(change);
  catalog.finishRecovery();
  return catalog;
}

function itemsOf(catalog: Catalog): Collection {
  const coll = catalog.get(DB, COLL);
  assert.ok(coll);
  return coll;
}

function unchecked(catalog: Catalog): Record<string, boolean> {
  return Object.fromEntries(
    [...itemsOf(catalog).orderedIndexes()].map((index) => [index.spec.name, index.orderUnchecked]),
  );
}

function allEntries(catalog: Catalog): Record<string, unknown[][]> {
  return Object.fromEntries([...itemsOf(catalog).orderedIndexes()].map((index) => [index.spec.name, entriesOf(index)]));
}

/** Calls checkSavedOrders(budget) until nothing is left: every call's answer. */
function checkAll(catalog: Catalog, budget = BUDGET): { more: boolean; resorted: string[] }[] {
  const calls: { more: boolean; resorted: string[] }[] = [];
  do calls.push(catalog.checkSavedOrders(budget)); while (calls.at(-1)!.more && calls.length < 10_000);
  return calls;
}

/** A source catalog (indexes sorted) and its snapshot's changes, orders included. */
function snapshot(stream: number): { source: Catalog; dumped: Change[] } {
  const source = load(history(items(seededRandom(stream), ITEMS)));
  assert.deepEqual(source.checkSavedOrders(BUDGET), { more: false, resorted: [] }, "nothing to check: all sorted");
  const dumped = [...source.dump()];
  assert.deepEqual(
    dumped.filter((change) => change.op === "indexOrder").map((change) => change.op === "indexOrder" && change.name),
    ["n_1", "g_-1_n_1", "s_ci"],
  );
  return { source, dumped };
}

describe("saved index orders, checked a slice at a time after recovery", () => {
  test("binary-order indexes load unchecked; several slices check them all, re-sorting none", () =>
    reportingSeed(() => {
      const { source, dumped } = snapshot(201);
      const copy = load(dumped);
      assert.deepEqual(unchecked(copy), {
        "n_1": true,
        "g_-1_n_1": true,
        "s_ci": false,
        "t_1": false,
        "p.q_1": false,
      });
      for (const name of UNCHECKED) assert.equal(indexNamed(itemsOf(copy), name).entries.holdsKeys, false, name);
      const calls = checkAll(copy);
      assert.ok(calls.length >= Math.ceil(ITEMS / (BUDGET + 1)), `${calls.length} calls`);
      assert.ok(calls.slice(0, -1).every((call) => call.more), "more until the last call");
      assert.deepEqual(calls.at(-1), { more: false, resorted: [] });
      assert.deepEqual(calls.flatMap((call) => call.resorted), []);
      assert.deepEqual(Object.values(unchecked(copy)), [false, false, false, false, false]);
      assert.deepEqual(copy.checkSavedOrders(BUDGET), { more: false, resorted: [] }, "nothing left");
      assert.deepEqual(allEntries(copy), allEntries(source), `seed ${TEST_SEED}`);
      // A budget larger than the collection checks everything in one call.
      const whole = load(dumped);
      assert.deepEqual(whole.checkSavedOrders(ITEMS + 10), { more: false, resorted: [] });
      assert.deepEqual(Object.values(unchecked(whole)), [false, false, false, false, false]);
    }));

  test("a write between two slices restarts the check of the index it moved, which still completes", () =>
    reportingSeed(() => {
      const { source, dumped } = snapshot(202);
      const full = checkAll(load(dumped)).length;
      assert.ok(full > 6, `${full} calls for a full check`);

      const copy = load(dumped);
      const coll = itemsOf(copy);
      for (let i = 0; i < 4; i++) assert.equal(copy.checkSavedOrders(BUDGET).more, true);
      // Replaced with only `g` changed: g_-1_n_1's entry moves, n_1's only points at the new version.
      const before = coll.docs.get(0)!;
      coll.put({ ...before, g: before.g === 5 ? 0 : 5 });
      let calls = 4;
      while (unchecked(copy)["n_1"]) {
        copy.checkSavedOrders(BUDGET);
        calls++;
      }
      assert.equal(calls, full, "n_1 went on where it was");
      assert.equal(unchecked(copy)["g_-1_n_1"], true, "g_-1_n_1 started over");
      const rest = checkAll(copy);
      assert.ok(calls + rest.length >= 4 + full, `g_-1_n_1 took ${calls + rest.length - 4} calls after the write`);
      assert.deepEqual(rest.at(-1), { more: false, resorted: [] });
      assert.deepEqual(rest.flatMap((call) => call.resorted), []);
      assert.deepEqual(Object.values(unchecked(copy)), [false, false, false, false, false]);
      assertAsFresh(coll, "after the write and the check");

      // An insert and a delete in the middle of a check: both indexes start over, and still finish.
      const again = load(dumped);
      const coll2 = itemsOf(again);
      for (let i = 0; i < 3; i++) again.checkSavedOrders(BUDGET);
      coll2.put({ _id: 1, n: 2, g: 3, s: "AB", t: ["y"] });
      coll2.delete(2);
      for (let i = 0; i < full - 2; i++) assert.equal(again.checkSavedOrders(BUDGET).more, true, `slice ${i}`);
      const tail = checkAll(again);
      assert.deepEqual(tail.flatMap((call) => call.resorted), []);
      assert.deepEqual(Object.values(unchecked(again)), [false, false, false, false, false]);
      assertAsFresh(coll2, "after an insert and a delete mid-check");
      assert.notDeepEqual(allEntries(again)["n_1"], allEntries(source)["n_1"]);

      // A write bringing an array on `n` mid-check: n_1 turns multikey, its check still completes.
      const arrays = load(dumped);
      const coll3 = itemsOf(arrays);
      arrays.checkSavedOrders(BUDGET);
      coll3.put({ _id: 4, n: [2, "a"], g: 1 });
      assert.equal(indexNamed(coll3, "n_1").entries.holdsKeys, true);
      assert.equal(indexNamed(coll3, "n_1").multikey, true);
      assert.equal(indexNamed(coll3, "g_-1_n_1").multikey, true);
      const done = checkAll(arrays);
      assert.deepEqual(done.flatMap((call) => call.resorted), []);
      assert.deepEqual(Object.values(unchecked(arrays)), [false, false, false, false, false]);
      assertAsFresh(coll3, "after an array mid-check");
    }));

  test("a tampered order loads, is found wrong when the check reaches it, and is sorted again", () =>
    reportingSeed(() => {
      const { source, dumped } = snapshot(203);
      const expected = allEntries(source);
      // Two entries of g_-1_n_1 swapped, well into the order: the length and the set are kept.
      const [i, j] = [Math.floor(ITEMS * 0.6), Math.floor(ITEMS * 0.6) + 7];
      const tampered = dumped.map((change) => {
        if (change.op !== "indexOrder" || change.name !== "g_-1_n_1") return change;
        const positions = new Int32Array(change.positions.slice().buffer);
        [positions[i], positions[j]] = [positions[j], positions[i]];
        return { ...change, positions: new Uint8Array(positions.buffer) };
      });
      const copy = load(tampered);
      assert.deepEqual(unchecked(copy), { "n_1": true, "g_-1_n_1": true, "s_ci": false, "t_1": false, "p.q_1": false });
      assert.notDeepEqual(allEntries(copy)["g_-1_n_1"], expected["g_-1_n_1"], "loaded as saved");
      const calls = checkAll(copy);
      const found = calls.findIndex((call) => call.resorted.length > 0);
      assert.ok(found > 0, `found wrong at call ${found + 1}, once the check reached entry ${i}`);
      assert.ok(found <= Math.ceil(i / BUDGET), `found wrong at call ${found + 1}`);
      assert.deepEqual(calls[found].resorted, [`${DB}.${COLL}.g_-1_n_1`]);
      assert.deepEqual(calls.flatMap((call) => call.resorted), [`${DB}.${COLL}.g_-1_n_1`], "sorted once");
      assert.deepEqual(calls.at(-1)!.more, false);
      assert.deepEqual(Object.values(unchecked(copy)), [false, false, false, false, false]);
      assert.deepEqual(allEntries(copy), expected, `seed ${TEST_SEED}`);
      assert.equal(indexNamed(itemsOf(copy), "g_-1_n_1").entries.holdsKeys, false, "sorted again, reading keys");
    }));

  test("a write to a document a tampered order misplaced sorts the index again at once, before the check gets there", () => {
    // Ten documents, g = 10 * _id, and the saved order of g_1 with entries 2 and 7 swapped.
    const changes: Change[] = [
      { op: "createCollection", db: "d", coll: "c" },
      { op: "createIndex", db: "d", coll: "c", spec: { name: "g_1", key: { g: 1 } } },
      ...Array.from({ length: 10 }, (_, i): Change => ({ op: "put", db: "d", coll: "c", doc: { _id: i, g: i * 10 } })),
    ];
    const dumped = [...load(changes).dump()].map((change) => {
      if (change.op !== "indexOrder") return change;
      const positions = new Int32Array(change.positions.slice().buffer);
      [positions[2], positions[7]] = [positions[7], positions[2]];
      return { ...change, positions: new Uint8Array(positions.buffer) };
    });
    const expected = (write: (coll: Collection) => void) => {
      const fresh = load(changes);
      write(fresh.get("d", "c")!);
      return entriesOf([...fresh.get("d", "c")!.orderedIndexes()][0]);
    };
    const writes: [string, (coll: Collection) => void][] = [
      ["delete", (coll) => assert.ok(coll.delete(7))],
      ["replace", (coll) => coll.put({ _id: 7, g: 71 })],
    ];
    for (const [what, write] of writes) {
      const copy = load(dumped);
      const coll = copy.get("d", "c")!;
      const index = [...coll.orderedIndexes()][0];
      assert.equal(index.orderUnchecked, true, what);
      // The write's search in the misordered entries misses document 7's entry: left there, it
      // would name a freed document, and the check (or any read of it) would throw.
      write(coll);
      assert.equal(index.orderUnchecked, false, `${what}: sorted again at once`);
      assert.deepEqual(entriesOf(index), expected(write), what);
      assert.deepEqual(copy.checkSavedOrders(1000), { more: false, resorted: ["d.c.g_1"] }, `${what}: reported`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Through the driver: an exact index scan sorted in another order, on the sort fields alone.

type Row = { _id: number; group: number; name?: string; score?: unknown; label?: string; other: string };

const ROWS = 3000;
const CI: CollationOptions = { locale: "en", strength: 2 };

/** Rows in shuffled `_id` order; score of mixed numeric types, repeating, sometimes null, an array or missing. */
function rows(random: () => number): Row[] {
  const ids = Array.from({ length: ROWS }, (_, i) => i);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids.map((id) => {
    const row: Row = { _id: id, group: Math.floor(random() * 12), other: "x".repeat(Math.floor(random() * 200)) };
    if (random() < 0.9) row.name = `n${Math.floor(random() * 40)}`;
    const s = random();
    if (s < 0.4) row.score = Math.floor(random() * 25);
    else if (s < 0.55) row.score = Math.floor(random() * 50) / 4;
    else if (s < 0.62) row.score = new Long(Math.floor(random() * 25));
    else if (s < 0.7) row.score = new Double(Math.floor(random() * 25));
    else if (s < 0.75) row.score = null;
    else if (s < 0.79) row.score = [Math.floor(random() * 25), Math.floor(random() * 25)];
    // else: no score
    if (random() < 0.85) row.label = pick(random, ["a", "A", "ab", "Ab", "AB", "b", "B", "e", "E", "é", "É", "z"]);
    return row;
  });
}

/** What a descending sort on `score` sorts a row by: an array's largest element, missing as null. */
function scoreDesc(row: Row): number | null {
  const v = row.score;
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return Math.max(...v.map(Number));
  return v instanceof Long ? v.toNumber() : Number(v);
}

/** `find(filter).sort({ score: -1, _id: 1 }).skip(skip).limit(limit)`, computed here. */
function expectedByScore(all: Row[], match: (row: Row) => boolean, skip: number, limit: number): number[] {
  const sorted = all.filter(match).sort((a, b) => {
    const x = scoreDesc(a), y = scoreDesc(b);
    if (x !== y) return x === null ? 1 : y === null ? -1 : y - x;
    return a._id - b._id;
  });
  return sorted.slice(skip, limit === 0 ? undefined : skip + limit).map((row) => row._id);
}

/** `find(filter).sort({ label: 1, _id: 1 }).collation(CI)`, computed here with the engine's collation. */
function expectedByLabel(all: Row[], match: (row: Row) => boolean, skip: number, limit: number): number[] {
  const strings = parseCollation(CI)!.compare;
  const sorted = all.filter(match).sort((a, b) =>
    compareValues(a.label ?? null, b.label ?? null, strings) || a._id - b._id
  );
  return sorted.slice(skip, limit === 0 ? undefined : skip + limit).map((row) => row._id);
}

const WINDOWS: [number, number][] = [[0, 0], [0, 1], [0, 10], [5, 20], [37, 0], [100, 7], [240, 30], [1000, 5]];

describe("embedded engine: an exact index scan's matches sorted in another order", () => {
  let conn: Connected;
  let c: DriverCollection<Row>;
  let all: Row[];

  before(async () => {
    conn = await connectTarget("index_keys");
    c = conn.db.collection<Row>("rows");
    all = rows(seededRandom(301));
    await c.insertMany(all);
    await c.createIndex({ group: 1, name: 1 });
  });
  after(async () => {
    await c.drop();
    await conn.close();
  });

  /** The ids `find` returns for a query, as a page. */
  async function ids(
    filter: Filter<Row>,
    sort: Sort,
    skip: number,
    limit: number,
    options: { hint?: Document; collation?: CollationOptions } = {},
  ): Promise<number[]> {
    let cursor = c.find(filter).sort(sort).skip(skip).limit(limit);
    if (options.hint) cursor = cursor.hint(options.hint);
    if (options.collation) cursor = cursor.collation(options.collation);
    return (await cursor.toArray()).map((row) => row._id);
  }

  test("the query reads the index exactly and sorts; the references scan the collection", async (t) => {
    if (!conn.target.embedded) return t.skip("the engine's own plans");
    const explained = await c.find({ group: 3 }).sort({ score: -1, _id: 1 }).skip(5).limit(10).explain(
      "executionStats",
    );
    const plan = explained.queryPlanner.winningPlan;
    const sort = plan.inputStage.inputStage;
    assert.equal(sort.stage, "SORT");
    assert.equal(sort.inputStage.stage, "FETCH");
    assert.equal(sort.inputStage.filter, undefined, "exact: no filter left to test");
    assert.equal(sort.inputStage.inputStage.indexName, "group_1_name_1");
    assert.equal(explained.executionStats.nReturned, 10);
    const scanned = await c.find({ $expr: { $eq: ["$group", 3] } }).sort({ score: -1, _id: 1 }).explain();
    assert.equal(scanned.queryPlanner.winningPlan.inputStage.stage, "COLLSCAN");
  });

  test("find({ group }).sort({ score: -1, _id: 1 }) pages match a collection scan's, every window", async () => {
    for (const g of [0, 3, 7, 11, 99]) {
      for (const [skip, limit] of WINDOWS) {
        const what = `group ${g}, skip ${skip}, limit ${limit}`;
        const sort = { score: -1, _id: 1 } as const;
        const got = await ids({ group: g }, sort, skip, limit);
        assert.deepEqual(got, expectedByScore(all, (row) => row.group === g, skip, limit), what);
        assert.deepEqual(
          got,
          await ids({ group: g }, sort, skip, limit, { hint: { $natural: 1 } }),
          `${what}, $natural`,
        );
        assert.deepEqual(got, await ids({ $expr: { $eq: ["$group", g] } }, sort, skip, limit), `${what}, $expr`);
      }
    }
    // Rows without a score come last, in `_id` order, with those whose score is null.
    const unscored = all.filter((row) => row.group === 4 && (row.score === undefined || row.score === null));
    assert.ok(unscored.length > 10);
    const tail = await ids({ group: 4 }, { score: -1, _id: 1 }, all.filter((row) => row.group === 4).length - 5, 0);
    assert.deepEqual(tail, unscored.map((row) => row._id).sort((a, b) => a - b).slice(-5));
  });

  test("several ranges of the index, other sorts, a projection, an aggregate", async () => {
    const cases: [string, Filter<Row>, Sort][] = [
      ["$in", { group: { $in: [1, 4, 9] } }, { score: -1, _id: 1 }],
      ["a range", { group: { $gte: 2, $lt: 6 } }, { score: 1, _id: -1 }],
      ["both fields", { group: 5, name: { $in: ["n3", "n7", "n11"] } }, { score: -1, _id: 1 }],
      ["the index's second field reversed", { group: 6 }, { name: -1, _id: 1 }],
      ["a string field", { group: 2 }, { label: 1, _id: -1 }],
      ["two sort fields", { group: 8 }, { label: -1, score: 1, _id: 1 }],
    ];
    for (const [what, filter, sort] of cases) {
      for (const [skip, limit] of WINDOWS) {
        const got = await ids(filter, sort, skip, limit);
        const scan = { $and: [filter, { $expr: { $eq: [1, 1] } }] } as Filter<Row>;
        assert.deepEqual(got, await ids(scan, sort, skip, limit), `${what}, skip ${skip}, limit ${limit}`);
        assert.deepEqual(got, await ids(filter, sort, skip, limit, { hint: { $natural: 1 } }), `${what}, $natural`);
      }
    }
    const projected = await c.find({ group: 1 }, { projection: { score: 1, label: 1 } }).sort({ score: -1, _id: 1 })
      .skip(3).limit(15).toArray();
    const whole = await c.find({ group: 1 }).sort({ score: -1, _id: 1 }).skip(3).limit(15).toArray();
    assert.deepEqual(
      projected,
      whole.map((row) => {
        const out: Document = { _id: row._id };
        if ("score" in row) out.score = row.score;
        if ("label" in row) out.label = row.label;
        return out;
      }),
    );
    assert.deepEqual(whole.map((row) => row._id), expectedByScore(all, (row) => row.group === 1, 3, 15));
    const pipeline = [{ $match: { group: 10 } }, { $sort: { score: -1, _id: 1 } }, { $skip: 4 }, { $limit: 9 }];
    assert.deepEqual(
      (await c.aggregate<Row>(pipeline).toArray()).map((row) => row._id),
      expectedByScore(all, (row) => row.group === 10, 4, 9),
    );
  });

  test("a sort under a collation ({ locale: 'en', strength: 2 }) on a string field", async () => {
    const sort = { label: 1, _id: 1 } as const;
    for (const g of [0, 5, 11]) {
      for (const [skip, limit] of WINDOWS) {
        const what = `group ${g}, skip ${skip}, limit ${limit}`;
        const got = await ids({ group: g }, sort, skip, limit, { collation: CI });
        assert.deepEqual(got, expectedByLabel(all, (row) => row.group === g, skip, limit), what);
        assert.deepEqual(
          got,
          await ids({ group: g }, sort, skip, limit, { collation: CI, hint: { $natural: 1 } }),
          `${what}, $natural`,
        );
      }
    }
    // Descending, ties (equal under the collation) in `_id` order.
    const desc = await ids({ group: 2 }, { label: -1, _id: 1 }, 0, 0, { collation: CI });
    const strings = parseCollation(CI)!.compare;
    const expected = all.filter((row) => row.group === 2).sort((a, b) =>
      compareValues(b.label ?? null, a.label ?? null, strings) || a._id - b._id
    ).map((row) => row._id);
    assert.deepEqual(desc, expected);
  });

  test("findOneAndUpdate with a sort takes the first of the same order", async () => {
    for (const g of [1, 6]) {
      const first = expectedByScore(all, (row) => row.group === g, 0, 1)[0];
      const found = await c.findOneAndUpdate({ group: g }, { $set: { other: "touched" } }, {
        sort: { score: -1, _id: 1 },
      });
      assert.equal(found?._id, first, `group ${g}`);
      assert.equal((await c.findOne({ _id: first }))?.other, "touched");
    }
  });
});
