import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Decimal128, type Document, Int32, Long, MaxKey, MinKey, ObjectId } from "bson";
import type { IndexSpec } from "../../src/embedded/changes.ts";
import { Collection } from "../../src/embedded/store/collection.ts";
import { OrderedIndex } from "../../src/embedded/store/ordered-index.ts";
import { parseCollation } from "../../src/embedded/store/collation.ts";
import { type KeyCompare, sortedOrder, type SortField } from "../../src/embedded/store/rank-sort.ts";
import { compareValues } from "../../src/embedded/store/values.ts";
import { entriesOf } from "../helpers/index-entries.ts";
import { mulberry32 } from "../helpers/random.ts";

/** The order a stable sort with the generic comparator gives: what sortedOrder must reproduce. */
function referenceOrder(fields: readonly SortField[], count: number): number[] {
  return Array.from({ length: count }, (_, i) => i).sort((a, b) => {
    for (const { valueAt, dir, compare } of fields) {
      const c = compare(valueAt(a), valueAt(b));
      if (c !== 0) return c * dir;
    }
    return a - b;
  });
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Values of every BSON type the engine stores, with repeats and values equal across widths. */
function mixedValue(random: () => number): unknown {
  return pick(random, [
    () => Math.floor(random() * 20) - 5,
    () => pick(random, [0, -0, NaN, 1.5, -Infinity, Infinity]),
    () => Long.fromNumber(Math.floor(random() * 10)),
    () => new Int32(Math.floor(random() * 10)),
    () => Decimal128.fromString(String(Math.floor(random() * 10))),
    () => pick(random, ["a", "A", "b", "B", "ab", "", "é", "E", "Z"]),
    () => pick(random, [null, undefined, true, false]),
    () => new Date(Date.UTC(2025, 0, 1) + Math.floor(random() * 5) * 1000),
    () => new ObjectId(String(Math.floor(random() * 4)).padStart(24, "0")),
    () => pick(random, [[1, 2], [1], [], ["a"]]),
    () => pick(random, [{ a: 1 }, { a: "x" }, { b: 1 }, {}]),
    () => pick(random, [new MinKey(), new MaxKey()]),
  ])();
}

function check(values: unknown[][], dirs: (1 | -1)[], compare: KeyCompare, binaryStrings = true): void {
  const fields: SortField[] = dirs.map((dir, f) => ({ valueAt: (i) => values[i][f], dir, compare, binaryStrings }));
  assert.deepEqual([...sortedOrder(fields, values.length)], referenceOrder(fields, values.length));
}

describe("index builds sort on precomputed key ranks", () => {
  test("mixed BSON types, one to three fields, both directions: the generic comparator's order", () => {
    const random = mulberry32(7);
    for (let round = 0; round < 40; round++) {
      const width = 1 + Math.floor(random() * 3);
      const dirs = Array.from({ length: width }, () => (random() < 0.5 ? 1 : -1) as 1 | -1);
      const rows = Array.from(
        { length: 1 + Math.floor(random() * 300) },
        () => Array.from({ length: width }, () => mixedValue(random)),
      );
      check(rows, dirs, (a, b) => compareValues(a, b));
    }
  });

  test("strings equal under a collation share a rank, so ties keep their given order", () => {
    const random = mulberry32(11);
    const collation = parseCollation({ locale: "en", strength: 2 })!;
    const rows = Array.from({ length: 500 }, () => [pick(random, ["a", "A", "b", "B", "é", "É", "e", 3])]);
    check(rows, [1], (a, b) => compareValues(a, b, collation.compare), false);
    check(rows, [-1], (a, b) => compareValues(a, b, collation.compare), false);
    const words = Array.from({ length: 500 }, () => [pick(random, ["a", "A", "b", "B", "é", "É", "e"])]);
    check(words, [1], (a, b) => compareValues(a, b, collation.compare), false);
  });

  test("only numbers, only dates or only strings (the comparator-free paths), many distinct values", () => {
    const random = mulberry32(13);
    const numbers = Array.from({ length: 5000 }, () => [random() * 1e6 - 5e5, Math.floor(random() * 3)]);
    check(numbers, [1, -1], (a, b) => compareValues(a, b));
    const dates = Array.from({ length: 5000 }, () => [new Date(Math.floor(random() * 1e9)), pick(random, ["x", "y"])]);
    check(dates, [-1, 1], (a, b) => compareValues(a, b));
    const strings = Array.from({ length: 5000 }, () => [String(Math.floor(random() * 1e5)), "\u{1F600}x", "\uFFFFy"]);
    check(strings.map((row) => [row[Math.floor(random() * 3)]]), [1], (a, b) => compareValues(a, b));
    const withNaN = [[NaN], [1], [-0], [0], [NaN], [-1]];
    check(withNaN, [1], (a, b) => compareValues(a, b));
  });

  test("columns that never decrease (ids, creation times) take the one-pass path and keep the comparator's order", () => {
    const random = mulberry32(19);
    let at = 0;
    const ascending = Array.from(
      { length: 3000 },
      (_, i) => [i * 2, new Date((at += Math.floor(random() * 3)) * 1000)],
    );
    check(ascending, [1, 1], (a, b) => compareValues(a, b));
    check(ascending, [-1, -1], (a, b) => compareValues(a, b));
    check(ascending.map(([id, date]) => [date, id]), [1, -1], (a, b) => compareValues(a, b));
    // One step down near the end: the general path.
    const almost = ascending.map(([id]) => [id]);
    almost[2990] = [-1];
    check(almost, [1], (a, b) => compareValues(a, b));
    check([[5], [5], [5]], [1], (a, b) => compareValues(a, b));
  });

  test("keys whose combined ranks exceed a double's exact range are re-ranked, not mis-ordered", () => {
    const random = mulberry32(17);
    // Six fields of up to 1,000 distinct values each: the product of their counts is past 2^53.
    const rows = Array.from({ length: 3000 }, () => Array.from({ length: 6 }, () => Math.floor(random() * 1000)));
    check(rows, [1, -1, 1, 1, -1, 1], (a, b) => compareValues(a, b));
  });
});

describe("recovery's index builds share the ranks of a field", () => {
  test("indexes rebuilt together hold the same entries as each built alone, multikey and collated ones included", () => {
    const random = mulberry32(31);
    const specs: IndexSpec[] = [
      { name: "name_1", key: { name: 1 } },
      { name: "at_-1_name_1", key: { at: -1, name: 1 } },
      { name: "name_ci", key: { name: 1 }, collation: { locale: "en", strength: 2 } },
      { name: "tags_1_name_1", key: { tags: 1, name: -1 } },
      { name: "name_1_tags_1", key: { name: 1, tags: 1 } },
    ];
    const together = new Collection("db", "c");
    together.deferIndexes();
    for (const spec of specs) together.addIndex(spec, true);
    for (let id = 0; id < 400; id++) {
      const doc: Document = { _id: id, name: pick(random, ["a", "A", "b", "é", "E", 3, null]) };
      if (random() < 0.8) doc.at = new Date(Math.floor(random() * 50) * 1000);
      if (random() < 0.1) doc.tags = pick(random, [["x", "y"], [], ["y"]]);
      together.put(doc);
    }
    together.rebuildIndexes();
    for (const index of together.orderedIndexes()) {
      const alone = new OrderedIndex(index.spec, together.docs.table);
      alone.build(together.docs.numbers());
      assert.deepEqual(entriesOf(index), entriesOf(alone), index.spec.name);
    }
  });
});

describe("an index whose last key is _id", () => {
  /** The same entries sorted with the index's own comparator, field by field. */
  function referenceEntries(spec: IndexSpec, docs: readonly Document[]): unknown[][] {
    const fields = Object.keys(spec.key);
    const strings = parseCollation(spec.collation)?.compare;
    const compare = (a: unknown, b: unknown) => compareValues(a, b, strings);
    return docs.map((doc) => [doc._id, ...fields.map((field) => doc[field] ?? null)]).sort((a, b) => {
      for (let f = 0; f < fields.length; f++) {
        const c = compare(a[f + 1], b[f + 1]);
        if (c !== 0) return c * spec.key[fields[f]!]!;
      }
      return 0;
    });
  }

  test("is built in the comparator's order, ascending or descending, with or without a collation", () => {
    const random = mulberry32(37);
    const docs: Document[] = [];
    // String ids alternate K and k: binary order (K first) and a case-blind collation's disagree.
    for (let id = 0; id < 600; id++) {
      docs.push({
        _id: id < 300 ? id : `${id % 2 ? "K" : "k"}${id}`,
        name: pick(random, ["a", "A", "b", "é", "E", 3, null]),
        at: new Date(id % 7),
      });
    }
    const specs: IndexSpec[] = [
      { name: "name_1__id_1", key: { name: 1, _id: 1 } },
      { name: "at_-1_name_1__id_1", key: { at: -1, name: 1, _id: 1 } },
      { name: "name_1__id_-1", key: { name: 1, _id: -1 } },
      { name: "name_ci__id_1", key: { name: 1, _id: 1 }, collation: { locale: "en", strength: 2 } },
    ];
    const collection = new Collection("db", "c");
    for (const doc of docs) collection.put(doc);
    for (const spec of specs) {
      const index = new OrderedIndex(spec, collection.docs.table);
      index.build(collection.docs.numbers());
      assert.deepEqual(entriesOf(index), referenceEntries(spec, [...collection.docs.iterate()]), spec.name);
    }
  });
});
