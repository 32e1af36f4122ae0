import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Code, Decimal128, Long, ObjectId } from "bson";
import type { Change } from "../../src/embedded/changes.ts";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { OrderedDocs } from "../../src/embedded/store/ordered.ts";
import { DocTable } from "../../src/embedded/store/doc-table.ts";
import { SortedBlocks } from "../../src/embedded/store/blocks.ts";
import { compareValues, keyOf } from "../../src/embedded/store/values.ts";
import { reportingSeed, seededRandom } from "../helpers/seed.ts";

/** The in-memory structures under the commands (no driver involved). */
describe("embedded engine: document store", () => {
  test("documents stay in BSON _id order whatever the insertion order and type", () => {
    const docs = new OrderedDocs();
    const oid = new ObjectId("0000000000000000000000aa");
    const ids: unknown[] = [oid, "b", 3, true, { x: 1 }, 1.5, "a", new Date(0), -2, null];
    for (const _id of ids) docs.put({ _id });
    const order = [...docs.iterate()].map((d) => d._id);
    assert.deepEqual(order, [null, -2, 1.5, 3, "a", "b", { x: 1 }, oid, true, new Date(0)]);
    assert.deepEqual([...docs.iterate(true)].map((d) => d._id), [...order].reverse());
  });

  test("1, 1.0 and Long(1) are the same _id", () => {
    const docs = new OrderedDocs();
    docs.put({ _id: 1, v: "int" });
    assert.equal(docs.get(Long.fromNumber(1))?.v, "int");
    docs.put({ _id: Long.fromNumber(1), v: "long" });
    assert.equal(docs.size, 1);
    // Lookups are binary searches of the _id order: misses before, between and after ids.
    for (const id of [3, 5]) docs.put({ _id: id });
    assert.deepEqual([0, 2, 4, 6, "1"].map((id) => docs.get(id)), [
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    assert.equal(docs.delete(2), undefined);
    assert.equal(docs.delete(1.0)?.v, "long");
    assert.deepEqual([...docs.iterate()].map((d) => d._id), [3, 5]);
    assert.equal(keyOf(Long.fromString("9007199254740993")) === keyOf(9007199254740992), false);
    assert.equal(compareValues(Long.fromNumber(2), 1.5), 1);
  });

  test("ids the BSON order only calls equal approximately stay distinct documents", () => {
    // compareValues compares a Decimal128 through a double and a Code by type only: the
    // binary search finds them together, and the canonical key tells them apart.
    const docs = new OrderedDocs();
    const ids = [
      Decimal128.fromString("0.10000000000000000001"),
      Decimal128.fromString("0.10000000000000000002"),
      0.1,
      new Code("a"),
      new Code("b"),
    ];
    ids.forEach((_id, v) => docs.put({ _id, v }));
    assert.equal(docs.size, ids.length);
    assert.deepEqual(ids.map((id) => docs.get(id)?.v), [0, 1, 2, 3, 4]);
    docs.put({ _id: Decimal128.fromString("0.10000000000000000002"), v: "again" });
    assert.equal(docs.delete(new Code("a"))?.v, 3);
    assert.deepEqual(ids.map((id) => docs.get(id)?.v), [0, "again", 2, undefined, 4]);
  });

  test("an iterator returns each surviving document exactly once across concurrent writes", () => {
    const docs = new OrderedDocs();
    for (let i = 0; i < 100; i++) docs.put({ _id: i * 2 });
    const it = docs.iterate();
    const seen: number[] = [];
    for (let step = it.next(); !step.done; step = it.next()) {
      const id = step.value._id as number;
      seen.push(id);
      if (id === 20) { for (let j = 0; j < 10; j++) docs.delete(j * 2); }
      if (id === 40) docs.put({ _id: 41 });
      if (id === 60) docs.put({ _id: 1 });
    }
    const expected = Array.from({ length: 100 }, (_, i) => i * 2).concat(41).sort((a, b) => a - b);
    assert.deepEqual(seen, expected);
  });

  test("a backward iterator also survives concurrent writes", () => {
    const docs = new OrderedDocs();
    for (let i = 0; i < 20; i++) docs.put({ _id: i });
    const seen: number[] = [];
    for (const doc of docs.iterate(true)) {
      seen.push(doc._id as number);
      if (doc._id === 15) {
        docs.delete(19);
        docs.delete(3);
        docs.put({ _id: 7.5 });
      }
    }
    const expected = [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7.5, 7, 6, 5, 4, 2, 1, 0];
    assert.deepEqual(seen, expected);
  });

  test("skip is a position, not a scan", () => {
    const docs = new OrderedDocs();
    for (let i = 0; i < 1000; i++) docs.put({ _id: i });
    assert.equal(docs.iterate(false, 990).next().value?._id, 990);
    assert.equal(docs.iterate(true, 5).next().value?._id, 994);
  });

  test("applyChange replays idempotently and dump reproduces the state", () => {
    const source = new Catalog();
    const changes: Change[] = [
      { op: "createCollection", db: "d", coll: "c" },
      { op: "createIndex", db: "d", coll: "c", spec: { name: "k_1", key: { k: 1 }, unique: true } },
      { op: "put", db: "d", coll: "c", doc: { _id: 1, k: "a" } },
      { op: "put", db: "d", coll: "c", doc: { _id: 2, k: "a" } },
      { op: "put", db: "d", coll: "c", doc: { _id: 1, k: "b" } },
      { op: "delete", db: "d", coll: "c", id: 3 },
      { op: "createCollection", db: "d", coll: "c" },
      { op: "put", db: "d", coll: "gone", doc: { _id: 1 } },
      { op: "dropCollection", db: "d", coll: "gone" },
    ];
    for (const change of [...changes, ...changes]) source.applyChange(change);
    source.finishRecovery();
    const coll = source.get("d", "c")!;
    assert.deepEqual([...coll.docs.iterate()], [{ _id: 1, k: "b" }, { _id: 2, k: "a" }]);
    assert.equal(coll.findDuplicate({ _id: 9, k: "a" }, true)?.index.name, "k_1");
    assert.equal(source.get("d", "gone"), undefined);
    const copy = new Catalog();
    for (const change of source.dump()) copy.applyChange(change);
    copy.finishRecovery();
    assert.deepEqual([...copy.get("d", "c")!.docs.iterate()], [...coll.docs.iterate()]);
    assert.deepEqual([...copy.get("d", "c")!.indexes.keys()], ["k_1"]);
  });

  test("a replay maintains no index per document: each is built once, by finishRecovery", () => {
    const catalog = new Catalog();
    catalog.applyChange({ op: "createCollection", db: "d", coll: "c" });
    catalog.applyChange({ op: "createIndex", db: "d", coll: "c", spec: { name: "k_1", key: { k: 1 } } });
    for (let i = 0; i < 500; i++) catalog.applyChange({ op: "put", db: "d", coll: "c", doc: { _id: i, k: 499 - i } });
    catalog.applyChange({ op: "delete", db: "d", coll: "c", id: 7 });
    const index = [...catalog.get("d", "c")!.orderedIndexes()][0];
    const movesBefore = index.entries.epoch;
    catalog.finishRecovery();
    // The epoch counts every change to the entries: one bulk load, not one per put.
    assert.ok(index.entries.epoch - movesBefore <= 1 && index.entries.epoch <= 2, `epoch ${index.entries.epoch}`);
    assert.equal(index.entries.size, 499);
    const first = index.entries.seek(() => 0);
    assert.deepEqual([index.entries.keyAt(first, 0), index.entries.docAt(first)._id], [0, 499]);
    const coll = catalog.get("d", "c")!;
    coll.put({ _id: 1000, k: -1 });
    assert.equal(index.entries.size, 500, "writes after recovery maintain the index again");
  });

  test("dump tolerates writes between steps and yields every document that existed throughout", () => {
    const catalog = new Catalog();
    for (let i = 0; i < 50; i++) catalog.applyChange({ op: "put", db: "d", coll: "c", doc: { _id: i } });
    const coll = catalog.get("d", "c")!;
    const put: number[] = [];
    for (const change of catalog.dump()) {
      if (change.op !== "put") continue;
      put.push(change.doc._id as number);
      if (change.doc._id === 10) { for (let j = 0; j < 10; j++) coll.delete(j); }
    }
    assert.deepEqual(put, Array.from({ length: 50 }, (_, i) => i));
  });

  test("seeks find the model's place through inserts, swaps, removals that empty blocks, and loads", () =>
    reportingSeed(() => {
      // Seeks search a directory of each block's last entry (its fence): every write that
      // changes a block's last entry, splits a block or removes one must keep it true.
      const random = seededRandom(11);
      const table = new DocTable();
      const blocks = new SortedBlocks([1], undefined, table);
      const model: [number, number][] = [];
      const order = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
      const lowerBound = (target: [number, number]) => model.filter((e) => order(e, target) < 0).length;
      const seekRank = (target: [number, number]) =>
        blocks.rank(blocks.seek((keys, base, doc) => order([keys[base] as number, table.id(doc) as number], target)));
      const check = () => {
        // Every entry, and just past it: the places where a stale fence would send a seek astray.
        model.forEach(([key, id], i) => {
          assert.equal(seekRank([key, id]), i, `seek to entry ${i} (${key}, ${id})`);
          assert.equal(seekRank([key, id + 0.5]), i + 1, `seek past entry ${i}`);
        });
        for (let i = 0; i < 20; i++) {
          const target: [number, number] = [Math.floor(random() * 120) - 10, Math.floor(random() * 5000)];
          assert.equal(seekRank(target), lowerBound(target), `seek ${target}`);
        }
      };
      let next = 0;
      for (let step = 0; step < 6000; step++) {
        const r = random();
        if (r < 0.6 || model.length === 0) {
          const entry: [number, number] = [Math.floor(random() * 100), next++];
          blocks.insert([entry[0]], table.add({ _id: entry[1] }), entry[1]);
          model.push(entry);
          model.sort(order);
        } else if (r < 0.65) {
          const [key, id] = model[Math.floor(random() * model.length)];
          assert.ok(blocks.swap([key], table.add({ _id: id, again: step }), id));
        } else if (step % 500 === 499 && model.length > 400) {
          // A run of neighbours removed at once: the blocks holding them empty out and go.
          const at = Math.floor(random() * (model.length - 300));
          for (const [key, id] of model.splice(at, 300)) assert.ok(blocks.remove([key], id));
        } else {
          const [[key, id]] = model.splice(Math.floor(random() * model.length), 1);
          assert.ok(blocks.remove([key], id));
        }
        if (step % 200 === 0) check();
      }
      check();
      blocks.load(model.map(([k]) => k), model.map(([, id]) => table.add({ _id: id })));
      check();
    }));

  test("sorted blocks keep (key, _id) order through inserts, removals, block splits and a bulk load", () => {
    const table = new DocTable();
    const blocks = new SortedBlocks([-1], undefined, table);
    const model: [number, number][] = [];
    const order = (a: [number, number], b: [number, number]) => b[0] - a[0] || a[1] - b[1];
    const read = () => {
      const out: [number, number][] = [];
      for (let pos = blocks.seek(() => 0); blocks.valid(pos); pos = blocks.next(pos)) {
        out.push([blocks.keyAt(pos, 0) as number, blocks.docAt(pos)._id as number]);
      }
      return out;
    };
    // A fixed pseudo-random sequence: keys repeat, so ties are ordered by _id.
    for (let i = 0, x = 7; i < 2000; i++, x = (x * 48271) % 2147483647) {
      const entry: [number, number] = [x % 50, i];
      blocks.insert([entry[0]], table.add({ _id: entry[1] }), entry[1]);
      model.push(entry);
    }
    for (let i = 0; i < 2000; i += 3) assert.ok(blocks.remove([model[i][0]], model[i][1]));
    assert.equal(blocks.remove([1000], 1), false);
    const left = model.filter((_, i) => i % 3 !== 0).sort(order);
    assert.deepEqual(read(), left);
    assert.equal(blocks.size, left.length);
    const probe = (keys: readonly unknown[], base: number, doc: number) =>
      order([keys[base] as number, table.id(doc) as number], left[700]);
    const mid = blocks.seek(probe);
    assert.equal(blocks.rank(mid), 700);
    assert.equal(probe(blocks.keysAt(mid), 0, blocks.numberAt(mid)), 0);
    assert.deepEqual(blocks.keysAt(mid), [left[700][0]]);
    // Stepping in place visits the same entries as next/prev, both ways, across blocks.
    const forward: number[] = [];
    for (const pos = blocks.seek(() => 0); blocks.valid(pos); blocks.advance(pos)) forward.push(blocks.docAt(pos)._id);
    assert.deepEqual(forward, left.map(([, id]) => id));
    const backward: number[] = [];
    for (const pos = blocks.prev(blocks.atRank(left.length)); blocks.valid(pos); blocks.retreat(pos)) {
      backward.push(blocks.docAt(pos)._id);
    }
    assert.deepEqual(backward, left.map(([, id]) => id).reverse());
    blocks.load(left.flatMap(([k]) => [k]).reverse(), left.map(([, id]) => table.add({ _id: id })).reverse());
    assert.deepEqual(read(), left);
  });
});
