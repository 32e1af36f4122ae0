import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  Binary,
  BSON,
  BSONRegExp,
  Code,
  Decimal128,
  type Document,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from "bson";
import type { Change, EncodedPut, IndexSpec, RecoveredChange } from "../../src/embedded/changes.ts";
import { SERIALIZE } from "../../src/embedded/bson.ts";
import { encodeChange, encodeDocument } from "../../src/embedded/durability/codec.ts";
import { Catalog } from "../../src/embedded/store/catalog.ts";
import { DocTable } from "../../src/embedded/store/doc-table.ts";
import { OrderedDocs } from "../../src/embedded/store/ordered.ts";
import { StoredKeyComparer } from "../../src/embedded/store/stored-keys.ts";
import { compareValues } from "../../src/embedded/store/values.ts";
import { reportingSeed, seededRandom, TEST_SEED } from "../helpers/seed.ts";

// The store compares keys and `_id`s on the documents' BSON bytes where it can, and writes
// snapshots from the stored bytes without decoding them. These tests hold each shortcut to what
// decoding gives: compareValues on the decoded values, and BSON.serialize of the decoded change.

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];
const int32 = (random: () => number): number => Math.floor(random() * 2 ** 32) - 2 ** 31;
/** -1, 0 or 1 (-0 counts as 0). */
const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);
const show = (value: unknown): string =>
  value instanceof Date
    ? `Date(${value.getTime()})`
    : typeof value === "string"
    ? JSON.stringify(value)
    : Object.is(value, -0)
    ? "-0"
    : String(value);

function shuffle<T>(random: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function randomObjectId(random: () => number, alphabet?: readonly number[]): ObjectId {
  const bytes = new Uint8Array(12);
  for (let i = 0; i < 12; i++) bytes[i] = alphabet ? pick(random, alphabet) : Math.floor(random() * 256);
  return new ObjectId(bytes);
}

/** A fullwidth form, U+FF01..U+FF5E: above every surrogate in UTF-16, below every emoji in UTF-8. */
const fullwidth = (random: () => number): string => String.fromCharCode(0xff01 + Math.floor(random() * 0x5e));

/**
 * Pieces strings are made of: ASCII, Latin-1 accents, CJK, emoji (surrogate pairs), fullwidth
 * forms, a NUL. Few of them, so that strings tie and are prefixes of each other.
 */
const ATOMS = ["a", "b", "A", "z", " ", "~", "\u0000", "é", "É", "ß", "ÿ", "名", "前", "😀", "🎉", "\u{10FFFF}"];

function randomText(random: () => number): string {
  if (random() < 0.1) return "";
  const long = random() < 0.05;
  let text = "";
  for (let i = long ? 30 + Math.floor(random() * 60) : Math.floor(random() * 4) + 1; i > 0; i--) {
    text += random() < 0.15 ? fullwidth(random) : pick(random, ATOMS);
  }
  return text;
}

const DAY = 86_400_000;
/** Dates before and after 1970, near each other (ties) and far apart, to the ends of a JS Date's range. */
function randomDate(random: () => number): Date {
  const r = random();
  if (r < 0.4) return new Date((Math.floor(random() * 7) - 3) * DAY);
  if (r < 0.8) return new Date(Math.floor((random() - 0.5) * 2 ** 45));
  if (r < 0.9) return new Date(Math.floor(random() * 3) - 1);
  return new Date(pick(random, [8.64e15, -8.64e15, 2 ** 32, -(2 ** 32), 2 ** 32 - 1, -(2 ** 31)]));
}

function randomNumber(random: () => number): unknown {
  const r = random();
  if (r < 0.35) return Math.floor(random() * 11) - 5; // int32, ties
  if (r < 0.45) return int32(random);
  if (r < 0.55) return new Double(Math.floor(random() * 11) - 5); // an integral double, stored as 0x01
  if (r < 0.6) return new Int32(Math.floor(random() * 11) - 5);
  return pick(random, [
    -0,
    0.5,
    -0.5,
    -1.5,
    2.25,
    1e300,
    -1e300,
    5e-324,
    -5e-324,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    -(2 ** 60),
    Infinity,
    -Infinity,
    Number.NaN,
  ]);
}

/** A key value for the key comparer's documents: mostly the types it compares on the bytes, sometimes others. */
function randomKeyValue(random: () => number, kind?: number): unknown {
  switch (kind ?? Math.floor(random() * 5)) {
    case 0:
      return randomText(random);
    case 1:
      return randomNumber(random);
    case 2:
      return randomDate(random);
    case 3:
      return pick(random, [null, true, false]);
  }
  return pick(random, [
    () => Long.fromNumber(Math.floor(random() * 11) - 5),
    () => Decimal128.fromString("1.5"),
    () => randomObjectId(random),
    () => ({ a: 1 }),
    () => [1, "a"],
    () => new Binary(new Uint8Array([1, 2])),
  ])();
}

/** Values the key comparer answers for: a string, a number (not NaN), a valid date. */
function simpleKind(value: unknown): string | undefined {
  if (typeof value === "string") return "string";
  if (typeof value === "number" && !Number.isNaN(value)) return "number";
  if (value instanceof Date && !Number.isNaN(value.getTime())) return "date";
  return undefined;
}

const KEY_FIELDS = ["_id", "a", "b", "ab", "c"];
const OTHER_FIELDS = ["x", "prénom", "名前", "aa", "pad"];

/**
 * A document for an index on `fields`: each field present with probability 0.9, of a type the
 * field mostly keeps (`kinds`), sometimes another; other fields before, between and after.
 */
function keyedDocument(random: () => number, fields: readonly string[], kinds: readonly number[]): Document {
  const entries: [string, unknown][] = [];
  fields.forEach((field, f) => {
    if (random() < 0.9) entries.push([field, randomKeyValue(random, random() < 0.8 ? kinds[f] : undefined)]);
  });
  for (const field of OTHER_FIELDS) if (random() < 0.3) entries.push([field, randomKeyValue(random)]);
  if (!fields.includes("_id") && random() < 0.8) entries.push(["_id", randomKeyValue(random)]);
  shuffle(random, entries);
  // Mostly _id first, as the engine stores documents.
  const id = entries.findIndex(([name]) => name === "_id");
  if (id > 0 && random() < 0.7) entries.unshift(...entries.splice(id, 1));
  return Object.fromEntries(entries);
}

/** The key tuple of a stored (decoded) document, as an index holds it: a missing field is null. */
const keyOf = (doc: Document, fields: readonly string[]): unknown[] => fields.map((field) => doc[field] ?? null);

/** compareValues field by field, directions applied: the stored tuple against the probe. */
function referenceCompare(stored: readonly unknown[], probe: readonly unknown[], dirs: readonly (1 | -1)[]): number {
  for (let f = 0; f < dirs.length; f++) {
    const c = sign(compareValues(stored[f], probe[f]));
    if (c !== 0) return c * dirs[f];
  }
  return 0;
}

/** Whether setProbe should take the tuple: every value a string, a number other than NaN or a valid date. */
const probeable = (probe: readonly unknown[]): boolean => probe.every((value) => simpleKind(value) !== undefined);

/** A random `_id` of the types compareIds and idComparer take shortcuts for, and others. */
function randomId(random: () => number): unknown {
  const r = random();
  if (r < 0.3) return Math.floor(random() * 21) - 10;
  if (r < 0.4) return int32(random);
  if (r < 0.5) return (Math.floor(random() * 41) - 20) / 4;
  if (r < 0.55) return new Double(Math.floor(random() * 21) - 10);
  if (r < 0.6) return new Int32(Math.floor(random() * 21) - 10);
  if (r < 0.7) {
    return pick(random, [
      -0,
      0,
      Number.NaN,
      Infinity,
      -Infinity,
      1e300,
      -1e300,
      2 ** 31,
      -(2 ** 31),
      2 ** 31 - 1,
      2 ** 53,
      2 ** 53 + 2,
      -(2 ** 63),
      2 ** 63,
      5e-324,
      0.1,
      -0.1,
    ]);
  }
  if (r < 0.8) {
    return pick(random, [
      () => Long.fromNumber(Math.floor(random() * 21) - 10),
      () => Long.fromString(pick(random, ["9007199254740993", "-9223372036854775808", "9223372036854775807"])),
      () => Long.fromNumber(2 ** 53),
    ])();
  }
  if (r < 0.9) return randomText(random);
  return randomObjectId(random, [0x00, 0x01, 0x7f, 0x80, 0xff]);
}

describe("embedded engine: comparing and copying raw BSON", () => {
  console.log(`raw-compare: seed ${TEST_SEED} (set TEST_SEED to change it)`);

  test("StoredKeyComparer agrees in sign with compareValues, and answers for same-typed strings, numbers, dates", () =>
    reportingSeed(() => {
      const random = seededRandom(101);
      let cases = 0, answered = 0, simple = 0, refused = 0;
      const signs = new Map<number, number>();
      for (let shape = 0; shape < 60; shape++) {
        const width = 1 + Math.floor(random() * 3);
        const fields = shuffle(random, [...KEY_FIELDS]).slice(0, width);
        const dirs = fields.map((): 1 | -1 => (random() < 0.5 ? 1 : -1));
        // Per field, the type its values mostly have (sometimes the same for all: fewer mixed pairs).
        const kinds = fields.map(() => Math.floor(random() * 3));
        // Small first chunks: the documents span several chunks of the table.
        const table = new DocTable(pick(random, [256, 1024, 64 << 10]));
        const numbers: number[] = [];
        for (let i = 0; i < 120; i++) numbers.push(table.add(keyedDocument(random, fields, kinds)));
        const keys = numbers.flatMap((n) => keyOf(table.decode(n), fields));
        const comparer = new StoredKeyComparer(fields, dirs, table);
        for (let k = 0; k < 800; k++) {
          const j = Math.floor(random() * numbers.length);
          const n = pick(random, numbers);
          const probe = keys.slice(j * width, (j + 1) * width);
          const stored = keyOf(table.decode(n), fields);
          const message = `index ${JSON.stringify(fields)} ${JSON.stringify(dirs)}: probe ${probe.map(show)}, ` +
            `document ${JSON.stringify(table.decode(n), (_, v) => typeof v === "bigint" ? String(v) : v)} ` +
            `(seed ${TEST_SEED})`;
          const ok = comparer.setProbe(keys, j);
          assert.equal(ok, probeable(probe), message);
          if (!ok) {
            refused++;
            continue;
          }
          cases++;
          const actual = comparer.compare(n);
          const sameSimple = fields.every((field, f) =>
            field in table.decode(n) && simpleKind(probe[f]) !== undefined &&
            simpleKind(probe[f]) === simpleKind(stored[f])
          );
          if (sameSimple) {
            simple++;
            assert.notEqual(actual, undefined, `the bytes tell same-typed keys apart: ${message}`);
          }
          if (actual === undefined) continue;
          answered++;
          const expected = referenceCompare(stored, probe, dirs);
          assert.equal(sign(actual), expected, message);
          signs.set(expected, (signs.get(expected) ?? 0) + 1);
        }
      }
      // The fast path ran on a healthy share, with every outcome, and the slow path had its share too.
      assert.ok(cases > 10_000, `${cases} probes compared`);
      assert.ok(simple > cases / 4, `${simple} of ${cases} with same-typed keys`);
      assert.ok(answered >= simple && answered < cases, `${answered} of ${cases} answered`);
      assert.ok(refused > 500, `${refused} probes refused`);
      for (const s of [-1, 0, 1]) assert.ok((signs.get(s) ?? 0) > 200, `${signs.get(s)} answers of sign ${s}`);
    }));

  test("StoredKeyComparer: strings in UTF-8 byte order, prefixes first, across chunk and buffer sizes", () => {
    // Pairs in binary (code point) order, each the first before the second.
    const ordered = [
      ["", "\u0000"],
      ["a", "ab"],
      ["ab", "b"],
      ["Z", "a"],
      ["z", "é"],
      ["é", "名"],
      ["\uFF5E", "😀"], // fullwidth tilde (EF BD 9E) before an emoji (F0 ..), though not in UTF-16 order
      ["\uFFFD", "\u{10000}"],
      ["😀", "😀a"],
      ["🎉", "😀"], // U+1F389 before U+1F600
      ["a".repeat(100), "a".repeat(100) + "\u0000"],
      ["名".repeat(40), "名".repeat(39) + "😀"],
    ];
    for (const width of [1, 2]) {
      const fields = width === 1 ? ["s"] : ["k", "s"];
      const table = new DocTable(128);
      for (const dir of [1, -1] as const) {
        const comparer = new StoredKeyComparer(fields, width === 1 ? [dir] : [1, dir], table);
        for (const [low, high] of ordered) {
          const message = `${JSON.stringify(low)} < ${JSON.stringify(high)}, width ${width}, dir ${dir}`;
          assert.equal(sign(compareValues(low, high)), -1, message);
          const lowDoc = table.add(width === 1 ? { _id: 1, s: low } : { s: low, k: 7, _id: 1 });
          const highDoc = table.add(width === 1 ? { s: high } : { k: 7, s: high });
          const keys = width === 1 ? [low, high] : [7, low, 7, high];
          assert.equal(comparer.setProbe(keys, 0), true);
          assert.equal(comparer.compare(lowDoc), 0, message);
          assert.equal(sign(comparer.compare(highDoc)!), dir, message);
          assert.equal(comparer.setProbe(keys, 1), true);
          assert.equal(sign(comparer.compare(lowDoc)!), -dir, message);
          assert.equal(comparer.compare(highDoc), 0, message);
        }
      }
    }
  });

  test("StoredKeyComparer.setProbe refuses null, booleans, objects, NaN and invalid dates, wherever in the tuple", () => {
    const table = new DocTable();
    const n = table.add({ _id: 1, a: "x", b: 2 });
    const comparer = new StoredKeyComparer(["a", "b"], [1, 1], table);
    const bad: unknown[] = [
      null,
      undefined,
      true,
      false,
      { a: 1 },
      {},
      [1],
      Number.NaN,
      new Date(Number.NaN),
      Long.fromNumber(2),
      new ObjectId(),
      Decimal128.fromString("2"),
      /x/,
    ];
    for (const value of bad) {
      assert.equal(comparer.setProbe(["x", value], 0), false, `${show(value)} second`);
      assert.equal(comparer.setProbe([value, 2], 0), false, `${show(value)} first`);
      // In the tuple asked for, not in another one.
      assert.equal(comparer.setProbe(["x", 2, value, 2], 1), false, `${show(value)} in tuple 1`);
      assert.equal(comparer.setProbe(["x", 2, value, 2], 0), true, `${show(value)} in tuple 1, tuple 0 asked`);
      // A refused probe leaves nothing behind: the next good one compares.
      comparer.setProbe(["x", value], 0);
      assert.equal(comparer.setProbe(["x", 2], 0), true);
      assert.equal(comparer.compare(n), 0);
    }
    for (const good of [["", 0], ["名", -0], ["x", Infinity], ["x", new Date(-1)], [new Date(0), -Infinity]]) {
      assert.equal(comparer.setProbe(good, 0), true, good.map(show).join());
    }
  });

  test("StoredKeyComparer.compare answers undefined for a missing field or types that differ", () => {
    const table = new DocTable();
    const single = (fields: string[], doc: Document, probe: unknown[], dirs?: (1 | -1)[]) => {
      const comparer = new StoredKeyComparer(fields, dirs ?? fields.map(() => 1), table);
      assert.equal(comparer.setProbe(probe, 0), true);
      return comparer.compare(table.add(doc));
    };
    const cases: [string[], Document, unknown[]][] = [
      [["a"], { _id: 1 }, ["x"]], // missing
      [["a"], { _id: 1, b: "x" }, ["x"]], // missing, another field present
      [["a"], { _id: 1, ab: 1, aa: 1, A: 1 }, [1]], // names alike, not the same
      [["a", "b"], { a: "x" }, ["x", "y"]], // the second missing
      [["a", "b"], { b: "y" }, ["x", "y"]], // the first missing
      [["a"], { a: 5 }, ["5"]], // number vs string
      [["a"], { a: "5" }, [5]], // string vs number
      [["a"], { a: new Date(5) }, [5]], // date vs number
      [["a"], { a: 5 }, [new Date(5)]], // number vs date
      [["a"], { a: "x" }, [new Date(5)]], // string vs date
      [["a"], { a: new Date(5) }, ["x"]], // date vs string
      [["a"], { a: null }, ["x"]],
      [["a"], { a: null }, [0]],
      [["a"], { a: true }, [1]],
      [["a"], { a: Long.fromNumber(5) }, [5]], // int64: decoded, not compared on the bytes
      [["a"], { a: Decimal128.fromString("5") }, [5]],
      [["a"], { a: Number.NaN }, [5]],
      [["a"], { a: ["x"] }, ["x"]],
      [["a"], { a: { b: 1 } }, ["x"]],
      [["a", "b"], { a: "x", b: 1 }, ["x", "y"]], // first equal, second of another type
      [["a", "b"], { a: 5, b: new Date(1) }, [5, 1]],
      [["prénom"], { prénom: "x" }, ["x"]], // a non-ASCII field name
    ];
    for (const [fields, doc, probe] of cases) {
      assert.equal(single(fields, doc, probe), undefined, `${JSON.stringify(fields)} ${JSON.stringify(doc)}`);
    }
    // Yet the first field deciding is enough, whatever the second holds.
    assert.equal(sign(single(["a", "b"], { a: "y", b: 1 }, ["x", "y"])!), 1);
    assert.equal(sign(single(["a", "b"], { a: 4, b: null }, [5, 1])!), -1);
    // And the same-typed pairs answer.
    assert.equal(sign(single(["a"], { a: new Double(5) }, [5])!), 0);
    assert.equal(sign(single(["a"], { a: 2 ** 40 }, [5])!), 1);
    assert.equal(sign(single(["a"], { a: new Date(-DAY) }, [new Date(DAY)])!), -1);
  });

  test("StoredKeyComparer.compare reads nothing past the document: a date probe against a short last value", () => {
    // A document larger than the table's next chunk gets a chunk of exactly its size: its last
    // byte is the chunk's last. A date's 8 bytes must not be read before its type is checked.
    for (const last of [null, true, 7, "", new Double(1.5)]) {
      for (const size of [70_000, 2 << 20]) {
        const table = new DocTable();
        const n = table.add({ _id: 1, pad: "x".repeat(size), a: last });
        const comparer = new StoredKeyComparer(["a"], [1], table);
        assert.equal(comparer.setProbe([new Date(0)], 0), true);
        let result: number | undefined | Error;
        try {
          result = comparer.compare(n);
        } catch (error) {
          result = error as Error;
        }
        assert.equal(result, undefined, `stored ${show(last)}, ${size} bytes of padding`);
      }
    }
  });

  test("StoredKeyComparer: a direction of -1 flips the sign of the field that decides", () =>
    reportingSeed(() => {
      const random = seededRandom(102);
      const table = new DocTable(512);
      const fields = ["a", "b"];
      const docs = Array.from({ length: 200 }, () => {
        const kind = Math.floor(random() * 3);
        return { _id: int32(random), a: randomKeyValue(random, kind), b: randomKeyValue(random, kind) };
      });
      const numbers = docs.map((doc) => table.add(doc));
      const keys = numbers.flatMap((n) => keyOf(table.decode(n), fields));
      const comparers = new Map<string, StoredKeyComparer>();
      for (const a of [1, -1] as const) {
        for (const b of [1, -1] as const) comparers.set(`${a}${b}`, new StoredKeyComparer(fields, [a, b], table));
      }
      let flipped = 0;
      for (let k = 0; k < 5000; k++) {
        const j = Math.floor(random() * numbers.length), n = pick(random, numbers);
        const results = new Map<string, number | undefined>();
        for (const [dirs, comparer] of comparers) {
          if (!comparer.setProbe(keys, j)) break;
          results.set(dirs, comparer.compare(n));
        }
        if (results.size < 4 || results.get("11") === undefined) continue;
        const up = sign(results.get("11")!);
        const message = `probe ${keys.slice(j * 2, j * 2 + 2).map(show)} vs ${
          docs[numbers.indexOf(n)].a
        } (seed ${TEST_SEED})`;
        const down = sign(-up);
        assert.equal(sign(results.get("-1-1")!), down, message);
        // Only the deciding field's direction counts: the first, unless it ties.
        const firstTies = compareValues(table.decode(n).a, keys[j * 2]) === 0;
        assert.equal(sign(results.get("1-1")!), firstTies ? down : up, message);
        assert.equal(sign(results.get("-11")!), firstTies ? up : down, message);
        if (up !== 0) flipped++;
      }
      assert.ok(flipped > 1000, `${flipped} pairs flipped`);
    }));

  test("compareIds and idComparer agree in sign with compareValues: int32, double, Long, string and ObjectId ids", () =>
    reportingSeed(() => {
      const random = seededRandom(103);
      const table = new DocTable(1024);
      const numbers: number[] = [];
      for (let i = 0; i < 500; i++) {
        const _id = randomId(random);
        // Mostly first, as the engine stores them; sometimes after another field (the decoding path).
        numbers.push(table.add(random() < 0.15 ? { v: i, _id } : { _id, v: i }));
      }
      // Whatever the seed drew: NaN (below every number, equal to itself), -0 and 2 in every width.
      for (const _id of [Number.NaN, Number.NaN, -0, 0, 2, new Double(2), new Int32(2), Long.fromNumber(2)]) {
        numbers.push(table.add({ _id }), table.add({ v: 0, _id }));
      }
      const ids = numbers.map((n) => table.id(n));
      const signs = new Set<number>();
      for (let k = 0; k < 30_000; k++) {
        const i = Math.floor(random() * numbers.length), j = Math.floor(random() * numbers.length);
        const expected = sign(compareValues(ids[i], ids[j]));
        const message = `${show(ids[i])} vs ${show(ids[j])} (seed ${TEST_SEED})`;
        assert.equal(sign(table.compareIds(numbers[i], numbers[j])), expected, message);
        signs.add(expected);
      }
      assert.deepStrictEqual([...signs].sort(), [-1, 0, 1]);
      // idComparer(id)(n) is compareValues(id(n), id), for every id it takes a shortcut for.
      let compared = 0;
      for (let j = 0; j < numbers.length; j++) {
        const id = ids[j];
        if (typeof id !== "number" && typeof id !== "string" && !(id instanceof ObjectId)) continue;
        const comparer = table.idComparer(id);
        for (let i = 0; i < numbers.length; i++) {
          const message: string = `${show(ids[i])} vs ${show(id)} (seed ${TEST_SEED})`;
          assert.equal(sign(comparer(numbers[i])), sign(compareValues(ids[i], id)), message);
          compared++;
        }
      }
      assert.ok(compared > 100_000, `${compared} idComparer calls`);
    }));

  test("compareIds and idComparer on numbers at the edges: NaN lowest and equal to itself, -0 equal to 0", () => {
    const table = new DocTable();
    const ordered: unknown[][] = [
      [Number.NaN],
      [-Infinity],
      [-1e300, -1e300],
      [-(2 ** 63), Long.fromString("-9223372036854775808")],
      [-(2 ** 31) - 1],
      [-(2 ** 31), new Int32(-(2 ** 31))],
      [-1.5],
      [-1, new Double(-1), Long.fromNumber(-1), new Int32(-1)],
      [-5e-324],
      [0, -0, new Double(0), new Double(-0), Long.fromNumber(0)],
      [5e-324],
      [0.5],
      [1, new Double(1), new Int32(1), Long.fromNumber(1)],
      [2 ** 31 - 1],
      [2 ** 31, new Double(2 ** 31)],
      [2 ** 53, Long.fromNumber(2 ** 53)],
      [Long.fromString("9007199254740993")],
      [1e300],
      [Infinity],
      ["", "", ""],
      ["a"],
    ];
    const groups = ordered.map((ids) => ids.flatMap((_id) => [table.add({ _id }), table.add({ x: 1, _id })]));
    for (let g = 0; g < groups.length; g++) {
      for (let h = 0; h < groups.length; h++) {
        const expected = sign(g - h);
        for (const a of groups[g]) {
          for (const b of groups[h]) {
            const message = `${show(table.id(a))} vs ${show(table.id(b))}`;
            assert.equal(sign(compareValues(table.id(a), table.id(b))), expected, message);
            assert.equal(sign(table.compareIds(a, b)), expected, message);
            const id = table.id(b);
            if (typeof id === "number" || typeof id === "string") {
              assert.equal(sign(table.idComparer(id)(a)), expected, message);
            }
          }
        }
      }
    }
  });

  test("OrderedDocs.numbersInOrder yields ids in order through inserts, deletes and replacements", () =>
    reportingSeed(() => {
      const random = seededRandom(104);
      let steps = 0, writes = 0;
      for (let round = 0; round < 40; round++) {
        const docs = new OrderedDocs();
        const live = new Set<number>();
        const size = 100 + Math.floor(random() * 300);
        const pad = (id: number) => "p".repeat(Math.floor(random() * 200) + (id & 7));
        // Shuffled: most are placed by a binary search, not appended.
        for (const id of shuffle(random, Array.from({ length: size }, (_, i) => i * 2 - 100))) {
          docs.put(random() < 0.3 ? { v: 0, _id: id } : { _id: id, v: 0, pad: pad(id) });
          live.add(id);
        }
        // A fraction are 1.5-steps: doubles between the int32s.
        const initial = new Set(live);
        const deleted = new Set<number>();
        const yielded: number[] = [];
        const rate = pick(random, [0.2, 1, 3]);
        const write = () => {
          const r = random();
          writes++;
          if (r < 0.35) {
            // A new id, an int32 or a double between two of them, anywhere in the order.
            const id = random() < 0.5
              ? Math.floor(random() * (size * 2 + 40)) - 120
              : Math.floor(random() * (size * 2)) - 100.5;
            if (live.has(id) || deleted.has(id)) return;
            docs.put({ _id: id, v: 1, pad: pad(id) });
            live.add(id);
          } else if (r < 0.7) {
            const id = pick(random, [...live]);
            if (id === undefined) return;
            assert.notEqual(docs.delete(id), undefined);
            live.delete(id);
            deleted.add(id);
          } else {
            // A replacement: a new number (maybe a freed one reused) for the same _id.
            const id = pick(random, [...live]);
            if (id !== undefined) assert.notEqual(docs.put({ _id: id, v: 2, pad: pad(id) }), undefined);
          }
        };
        for (const n of docs.numbersInOrder()) {
          steps++;
          const id = docs.table.id(n) as number;
          assert.ok(live.has(id), `yielded ${id}, not stored (seed ${TEST_SEED})`);
          if (yielded.length > 0) {
            const last = yielded[yielded.length - 1];
            assert.ok(compareValues(last, id) < 0, `${id} after ${last} (seed ${TEST_SEED})`);
          }
          yielded.push(id);
          for (let w = rate; w > 0; w--) if (w >= 1 || random() < w) write();
        }
        const count = new Map<number, number>();
        for (const id of yielded) count.set(id, (count.get(id) ?? 0) + 1);
        for (const id of initial) {
          if (deleted.has(id)) continue;
          assert.equal(count.get(id), 1, `_id ${id}, present throughout, yielded once (seed ${TEST_SEED})`);
        }
        assert.equal(docs.size, live.size);
      }
      assert.ok(steps > 5000 && writes > 5000, `${steps} steps, ${writes} writes`);
    }));

  test("OrderedDocs finds numeric _ids by interpolation exactly as a binary search would, whatever their spread", () =>
    reportingSeed(() => {
      const random = seededRandom(105);
      // Spreads an interpolation guesses well or badly on, and ids it must not read as numbers.
      const spreads: Record<string, (i: number) => unknown> = {
        dense: (i) => i + 1,
        gaps: (i) => i * 3 + (i > 500 ? 100_000 : 0),
        skewed: (i) => i ** 3 / 7,
        negative: (i) => -5000 + i * 1.5,
        "a Long among them": (i) => (i === 300 ? Long.fromNumber(300 * 2) : i * 2),
        "NaN first": (i) => (i === 0 ? NaN : i),
        "infinities at the ends": (i) => (i === 0 ? -Infinity : i === 799 ? Infinity : i * 10),
        "strings last": (i) => (i > 700 ? `s${i}` : i),
      };
      let probes = 0;
      for (const [name, idOf] of Object.entries(spreads)) {
        const docs = new OrderedDocs();
        const ids = Array.from({ length: 800 }, (_, i) => idOf(i));
        for (const id of shuffle(random, ids)) docs.put({ _id: id });
        const sorted = [...ids].sort(compareValues);
        const targets = [...ids.filter((id) => typeof id === "number"), -1e9, 1e9, 0.5, -0, 2.25, Infinity, -Infinity];
        for (let k = 0; k < 400; k++) targets.push((random() - 0.5) * 2 * 1e6 ** random());
        for (const target of targets) {
          for (const inclusive of [true, false]) {
            const expected = sorted.findIndex((id) => {
              const c = compareValues(id, target);
              return inclusive ? c >= 0 : c > 0;
            });
            const at = docs.seekAfter(target, inclusive);
            assert.equal(at, expected === -1 ? sorted.length : expected, `${name}: seekAfter(${target}, ${inclusive})`);
            probes++;
          }
          const found = docs.get(target);
          const present = sorted.some((id) => compareValues(id, target) === 0);
          assert.equal(found !== undefined, present, `${name}: get(${target}) (seed ${TEST_SEED})`);
        }
      }
      assert.ok(probes > 5000, `${probes} probes`);
    }));

  test("encodeChange of an encoded put is, byte for byte, encodeDocument of the put", () =>
    reportingSeed(() => {
      const random = seededRandom(105);
      const names = ["shop", "données", "名前", "😀db", "a.b", "ｆｕｌｌ", "x"];
      const leaf = (): unknown =>
        pick(random, [
          () => int32(random),
          () => randomNumber(random),
          () => randomText(random),
          () => randomDate(random),
          () => pick(random, [null, true, false, undefined]),
          () => Long.fromBits(int32(random), int32(random)),
          () => Decimal128.fromString(`${int32(random)}.${Math.floor(random() * 1000)}E${Math.floor(random() * 20)}`),
          () => new Binary(Uint8Array.from({ length: Math.floor(random() * 20) }, () => Math.floor(random() * 256))),
          () => new Binary(new Uint8Array(16).fill(Math.floor(random() * 256)), 4),
          () => randomObjectId(random),
          () => new BSONRegExp(pick(random, ["^a", "名+", ""]), pick(random, ["", "i", "imsx"])),
          () => pick(random, [/ab+c/i, /^é$/u, /x/gm]),
          () => new Timestamp({ t: Math.floor(random() * 2 ** 31), i: Math.floor(random() * 100) }),
          () => new MinKey(),
          () => new MaxKey(),
          () => new Code("function () { return 1; }"),
        ])();
      const value = (depth: number): unknown => {
        const r = random();
        if (depth < 3 && r < 0.15) return documentOf(depth + 1);
        if (depth < 3 && r < 0.25) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
        return leaf();
      };
      const documentOf = (depth: number): Document => {
        const doc: Document = {};
        for (let i = Math.floor(random() * 6); i > 0; i--) {
          doc[pick(random, [...KEY_FIELDS, ...OTHER_FIELDS])] = value(depth);
        }
        return doc;
      };
      for (let k = 0; k < 3000; k++) {
        const doc = documentOf(0);
        if (random() < 0.8) doc._id = randomId(random);
        const db = random() < 0.1 ? `db${k}` : pick(random, names);
        const coll = random() < 0.5 ? `c${Math.floor(random() * 1500)}` : pick(random, names);
        const bytes = BSON.serialize(doc, SERIALIZE);
        // The document inside a larger buffer, junk on either side.
        const before = Math.floor(random() * 40), after = Math.floor(random() * 40);
        const buffer = Buffer.alloc(before + bytes.length + after);
        for (let i = 0; i < buffer.length; i++) buffer[i] = Math.floor(random() * 256);
        buffer.set(bytes, before);
        const put: EncodedPut = { op: "putEncoded", db, coll, bytes: buffer, start: before, length: bytes.length };
        const expected = Buffer.from(encodeDocument({ op: "put", db, coll, doc }));
        assert.deepStrictEqual(
          Buffer.from(encodeChange(put)),
          expected,
          `put ${k} to ${db}.${coll} (seed ${TEST_SEED})`,
        );
        // Other changes are encoded as they are.
        const change: Change = { op: "put", db, coll, doc };
        assert.deepStrictEqual(Buffer.from(encodeChange(change)), expected);
      }
      // Names that run together alike are different collections, one after the other.
      const doc = { _id: 1, v: "x" };
      const bytes = BSON.serialize(doc);
      for (const [db, coll] of [["ab", "c"], ["a", "bc"], ["abc", ""], ["", "abc"], ["名", "前"], ["名前", "x"]]) {
        const put: EncodedPut = { op: "putEncoded", db, coll, bytes, start: 0, length: bytes.length };
        const expected = Buffer.from(encodeDocument({ op: "put", db, coll, doc }));
        assert.deepStrictEqual(Buffer.from(encodeChange(put)), expected, `${db}.${coll}`);
      }
    }));

  test("Catalog.dumpEncoded encodes, change by change, to the bytes of Catalog.dump", () =>
    reportingSeed(() => {
      const random = seededRandom(106);
      // Values that decode to what encodes to the same bytes (an integral Double would come back an int32).
      const roundTripping = (arrays: boolean): unknown =>
        pick(random, [
          () => int32(random),
          () => pick(random, [-0, 0.5, -2.25, 1e300, 2 ** 40, Infinity, Number.NaN]),
          () => randomText(random),
          () => randomDate(random),
          () => pick(random, [null, true, false]),
          () => Long.fromBits(int32(random), int32(random)),
          () => Decimal128.fromString(`${int32(random)}.25`),
          () => new Binary(Uint8Array.from({ length: Math.floor(random() * 9) }, () => Math.floor(random() * 256))),
          () => randomObjectId(random),
          () => ({ city: randomText(random), zip: int32(random) }),
          // Not in an indexed field: a multikey index has no saved order.
          () => (arrays ? [int32(random), randomText(random)] : int32(random)),
        ])();
      const collections: { db: string; coll: string; specs: IndexSpec[] }[] = [
        {
          db: "shop",
          coll: "people",
          specs: [
            { name: "name_1", key: { name: 1 } },
            { name: "age_-1_name_1", key: { age: -1, name: 1 } },
          ],
        },
        {
          db: "données",
          coll: "événements",
          specs: [
            { name: "when_1", key: { when: 1 } },
            { name: "kind_1_n_-1", key: { kind: 1, n: -1 } },
          ],
        },
      ];
      const changes: Change[] = [];
      const idsOf = new Map<string, unknown[]>();
      for (const { db, coll, specs } of collections) {
        changes.push({ op: "createCollection", db, coll });
        for (const spec of specs) changes.push({ op: "createIndex", db, coll, spec });
        idsOf.set(coll, []);
      }
      const newDoc = (coll: string, _id: unknown): Document =>
        coll === "people"
          ? { _id, name: randomText(random), age: Math.floor(random() * 10), extra: roundTripping(true) }
          : { _id, when: randomDate(random), kind: pick(random, ["a", "b", "名"]), n: roundTripping(false) };
      for (let i = 0; i < 600; i++) {
        const { db, coll } = pick(random, collections);
        const ids = idsOf.get(coll)!;
        const r = random();
        if (r < 0.75 || ids.length === 0) {
          const _id = pick(random, [() => i, () => i + 0.5, () => `id${i}`, () => randomObjectId(random)])();
          ids.push(_id);
          changes.push({ op: "put", db, coll, doc: newDoc(coll, _id) });
        } else if (r < 0.9) {
          changes.push({ op: "put", db, coll, doc: newDoc(coll, pick(random, ids)) });
        } else {
          changes.push({ op: "delete", db, coll, id: pick(random, ids) });
        }
      }
      const catalog = new Catalog();
      for (const change of changes) catalog.applyChange(change);
      catalog.finishRecovery();
      const check = (label: string) => {
        for (const orderPart of [7, 1 << 20]) {
          const plain = [...catalog.dump(orderPart)];
          const encoded: RecoveredChange[] = [...catalog.dumpEncoded(orderPart)];
          assert.equal(encoded.length, plain.length, label);
          const ops = new Map<string, number>();
          encoded.forEach((change, i) => {
            ops.set(change.op, (ops.get(change.op) ?? 0) + 1);
            assert.deepStrictEqual(
              Buffer.from(encodeChange(change)),
              Buffer.from(encodeChange(plain[i])),
              `${label}: change ${i}, ${change.op} (seed ${TEST_SEED})`,
            );
            assert.deepStrictEqual(Buffer.from(encodeChange(plain[i])), Buffer.from(encodeDocument(plain[i])));
          });
          const live = collections.reduce((sum, { db, coll }) => sum + catalog.get(db, coll)!.docs.size, 0);
          assert.equal(ops.get("putEncoded"), live, `${label}: every document, left encoded`);
          assert.equal(ops.get("put"), undefined);
          // Every index's order, in parts of orderPart entries.
          const parts = collections.reduce(
            (sum, { db, coll, specs }) => sum + specs.length * Math.ceil(catalog.get(db, coll)!.docs.size / orderPart),
            0,
          );
          assert.equal(ops.get("indexOrder"), parts, `${label}: index orders in parts of ${orderPart}`);
        }
      };
      check("recovered");
      // And after writes that maintain the built indexes.
      for (let i = 0; i < 100; i++) {
        const { db, coll } = pick(random, collections);
        const ids = idsOf.get(coll)!;
        catalog.applyChange(
          random() < 0.8
            ? { op: "put", db, coll, doc: newDoc(coll, random() < 0.5 ? pick(random, ids) : `late${i}`) }
            : { op: "delete", db, coll, id: pick(random, ids) },
        );
      }
      check("written since");
    }));
});
