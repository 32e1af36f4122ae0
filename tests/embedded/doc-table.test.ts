import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Binary, BSON, Decimal128, type Document, Long, ObjectId } from "bson";
import { DocTable } from "../../src/embedded/store/doc-table.ts";
import { decodeDocumentAt, decodeFieldsAt, decodeIdAt, nameIs, textAt, walkFields } from "../../src/embedded/decode.ts";
import { compareValues } from "../../src/embedded/store/values.ts";
import { reportingSeed, seededRandom, TEST_SEED } from "../helpers/seed.ts";

/** What the wire would give back for a document: the oracle every decode is held to. */
const DESERIALIZE_OPTIONS: BSON.DeserializeOptions = {
  promoteLongs: false,
  promoteBuffers: false,
  promoteValues: true,
  bsonRegExp: false,
};
const roundTrip = (doc: Document): Document => BSON.deserialize(BSON.serialize(doc), DESERIALIZE_OPTIONS);

/** The full chunk size of doc-table.ts (CHUNK_BYTES there; the tests that count chunks start tables at it), and the bytes it puts before each document. */
const CHUNK = 4 << 20;
const NUMBER_BYTES = 4;

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];
const int32 = (random: () => number): number => Math.floor(random() * 2 ** 32) - 2 ** 31;
/** -1, 0 or 1 (Math.sign keeps -0, which strict equality tells from 0). */
const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);

/** An ObjectId of 12 seeded random bytes; `alphabet` narrows the bytes so that ids share prefixes and tie. */
function randomObjectId(random: () => number, alphabet?: readonly number[]): ObjectId {
  const bytes = new Uint8Array(12);
  for (let i = 0; i < 12; i++) bytes[i] = alphabet ? pick(random, alphabet) : Math.floor(random() * 256);
  return new ObjectId(bytes);
}

function asciiText(random: () => number, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += String.fromCharCode(32 + Math.floor(random() * 95));
  return text;
}

/** A value of any type the store keeps: the decoder's fast path types and those it hands to the library. */
function randomValue(random: () => number, depth: number): unknown {
  const makers: (() => unknown)[] = [
    () => int32(random),
    () => pick(random, [1.5, -0.25, 1e300, -1e-300, 2 ** 53 + 2, Number.NaN, -0, Infinity]),
    () => asciiText(random, Math.floor(random() * 12)),
    () => asciiText(random, 34 + Math.floor(random() * 40)),
    () => pick(random, ["Édith", "名前", "\u{1F600}", "naïve café"]),
    () => pick(random, [true, false, null]),
    () => new Date(Math.floor((random() - 0.5) * 2 ** 45)),
    () => Long.fromBits(int32(random), int32(random)),
    () => Decimal128.fromString(`${int32(random)}.${Math.floor(random() * 1000)}`),
    () => new Binary(Uint8Array.from({ length: Math.floor(random() * 9) }, () => Math.floor(random() * 256))),
    () => randomObjectId(random),
    () => (depth >= 2 ? int32(random) : randomDocument(random, depth + 1)),
    () => depth >= 2 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1)),
  ];
  return pick(random, makers)();
}

const FIELD_NAMES = ["_id", "a", "b", "name", "email", "when", "tags", "nested", "prénom", "名前", "z"];

function randomDocument(random: () => number, depth = 0): Document {
  const doc: Document = {};
  for (let i = Math.floor(random() * 7); i > 0; i--) doc[pick(random, FIELD_NAMES)] = randomValue(random, depth);
  return doc;
}

/** The fields of `doc` that `wanted` names (those it has). */
function pickFields(doc: Document, wanted: ReadonlySet<string>): Document {
  const out: Document = {};
  for (const name of Object.keys(doc)) if (wanted.has(name)) out[name] = doc[name];
  return out;
}

/** One example of every `_id` type the engine stores, each of them first and not first. */
const ID_EXAMPLES: unknown[] = [
  new ObjectId("64b7f0c2a1b2c3d4e5f60718"),
  42,
  -7,
  1.5,
  "abc",
  "Édith",
  "名前",
  Long.fromString("9007199254740993"),
  Long.fromNumber(-3),
  Decimal128.fromString("12345.6789"),
  new Date(1_700_000_000_000),
  { a: 1, b: "x" },
];

/** Documents of every value type, with ids of every type, first and not first. */
function sampleDocuments(): Document[] {
  const body = {
    name: "Ada Lovelace",
    nested: { level: 1, deeper: { list: [1, "two", { three: 3 }], when: new Date(-86_400_000) } },
    list: [1, 2.5, "s", null, true, [false, new ObjectId("000000000000000000000001")]],
    when: new Date(Date.UTC(2024, 1, 29, 12, 30)),
    nothing: null,
    yes: true,
    no: false,
    double: 3.25,
    negative: -1e-7,
    int: 2_147_483_647,
    minInt: -2_147_483_648,
    long: Long.fromString("-9223372036854775808"),
    bigLong: Long.fromString("1234567890123456789"),
    decimal: Decimal128.fromString("-0.000000000000000000000000000001"),
    binary: new Binary(new Uint8Array([0, 1, 2, 254, 255])),
    uuid: new Binary(new Uint8Array(16).fill(7), 4),
    accent: "Édith",
    kanji: "名前",
    empty: "",
    longText: "x".repeat(100),
  };
  const docs: Document[] = [];
  for (const _id of ID_EXAMPLES) {
    docs.push({ _id, ...body });
    docs.push({ first: 1, ...body, _id });
  }
  docs.push({});
  docs.push({ noId: true });
  return docs;
}

/** A maker of 300-byte documents `{ _id: i, k, pad }`, their content drawn from `random`. */
function paddedDocuments(random: () => number): (i: number | string) => Document {
  const pool = asciiText(random, 8192);
  return (i) => ({
    _id: i,
    k: int32(random),
    pad: pool.substr(Math.floor(random() * (pool.length - 269)), typeof i === "number" ? 269 : 268 - i.length),
  });
}

describe("embedded engine: DocTable (BSON document store)", () => {
  test("add then decode gives what BSON.deserialize gives, for every value and _id type", () =>
    reportingSeed(() => {
      const table = new DocTable();
      const docs = sampleDocuments();
      const random = seededRandom(1);
      for (let i = 0; i < 300; i++) docs.push(randomDocument(random));
      const numbers = docs.map((doc) => table.add(doc));
      assert.equal(new Set(numbers).size, docs.length, "every document has a number of its own");
      numbers.forEach((n, i) => {
        assert.deepStrictEqual(table.decode(n), roundTrip(docs[i]), `document ${i} (seed ${TEST_SEED})`);
        assert.deepStrictEqual(Buffer.from(table.bytes(n)), Buffer.from(BSON.serialize(docs[i])));
      });
    }));

  test("addBytes stores a document found at an offset inside a larger buffer, as a copy", () =>
    reportingSeed(() => {
      const random = seededRandom(2);
      const table = new DocTable();
      const docs = sampleDocuments().slice(0, 6);
      const encoded = docs.map((doc) => BSON.serialize(doc));
      // All the documents back to back, with junk before, between and after them.
      const total = encoded.reduce((sum, bytes) => sum + bytes.length + 13, 17);
      const buffer = Buffer.alloc(total);
      for (let i = 0; i < total; i++) buffer[i] = Math.floor(random() * 256);
      const starts: number[] = [];
      let at = 17;
      for (const bytes of encoded) {
        buffer.set(bytes, at);
        starts.push(at);
        at += bytes.length + 13;
      }
      const numbers = encoded.map((bytes, i) => table.addBytes(buffer, starts[i], bytes.length));
      // The table copied the bytes: overwriting the source changes nothing.
      buffer.fill(0xee);
      numbers.forEach((n, i) => {
        assert.deepStrictEqual(table.decode(n), roundTrip(docs[i]));
        assert.deepStrictEqual(table.id(n), roundTrip(docs[i])._id);
        assert.deepStrictEqual(Buffer.from(table.bytes(n)), Buffer.from(encoded[i]));
      });
    }));

  test("id(n) is decode(n)._id for every _id type, first or not, and undefined without one", () => {
    const table = new DocTable();
    const docs = sampleDocuments();
    const numbers = docs.map((doc) => table.add(doc));
    numbers.forEach((n, i) => {
      const expected = roundTrip(docs[i])._id;
      assert.deepStrictEqual(table.id(n), table.decode(n)._id, `document ${i}`);
      assert.deepStrictEqual(table.id(n), expected, `document ${i}`);
      assert.deepStrictEqual(table.idOf(n), expected, `document ${i}`);
    });
    assert.equal(table.id(numbers[numbers.length - 1]), undefined);
    assert.equal(table.id(numbers[numbers.length - 2]), undefined);
    // The type survives: a Long _id stays a Long, an int32 a number, a Decimal128 a Decimal128.
    const long = table.add({ x: 1, _id: Long.fromNumber(5) });
    assert.ok(table.id(long) instanceof Long);
    const decimal = table.add({ _id: Decimal128.fromString("1.10") });
    assert.equal(String(table.id(decimal)), "1.10");
    assert.equal(table.id(table.add({ _id: 5 })), 5);
  });

  test("fields(n, wanted) is the wanted top-level fields of the whole decode, missing ones left out", () =>
    reportingSeed(() => {
      const random = seededRandom(3);
      const table = new DocTable();
      const docs: Document[] = sampleDocuments();
      for (let i = 0; i < 1500; i++) docs.push(randomDocument(random));
      // Non-ASCII strings in wanted and unwanted fields, before and after them: the fallback path.
      docs.push({ _id: 1, name: "Édith", email: "e@x" }, { _id: 2, email: "e@x", name: "名前" });
      docs.push({ _id: "名前", a: 1 }, { prénom: "Ada", a: 2, b: { c: "Édith" } }, { a: [1, "名前"], b: 3 });
      const numbers = docs.map((doc) => table.add(doc));
      const names = [...FIELD_NAMES, "missing", "nested.level", "", "list", "accent", "kanji", "long"];
      for (let round = 0; round < 3; round++) {
        numbers.forEach((n, i) => {
          const wanted = new Set(names.filter(() => random() < 0.3));
          const expected = pickFields(roundTrip(docs[i]), wanted);
          const message = `document ${i}, fields ${[...wanted].join(",")} (seed ${TEST_SEED})`;
          assert.deepStrictEqual(table.fields(n, wanted), expected, message);
          assert.deepStrictEqual(table.fields(n, wanted), pickFields(table.decode(n), wanted), message);
        });
      }
      const last = numbers[numbers.length - 2];
      assert.deepStrictEqual(table.fields(last, new Set(["prénom", "b"])), { prénom: "Ada", b: { c: "Édith" } });
      assert.deepStrictEqual(table.fields(last, new Set(["nope"])), {});
      assert.deepStrictEqual(table.fields(last, new Set()), {});
    }));

  test("compareIds agrees in sign with compareValues of the decoded ids: random ObjectIds", () =>
    reportingSeed(() => {
      const random = seededRandom(4);
      const table = new DocTable();
      const numbers: number[] = [];
      const ids: ObjectId[] = [];
      for (let i = 0; i < 400; i++) {
        // A narrow alphabet makes ids that share long prefixes, tie, and differ in the sign bit.
        const id = i % 2 === 0 ? randomObjectId(random) : randomObjectId(random, [0x00, 0x01, 0x7f, 0x80, 0xff]);
        // Mostly first, as the engine stores them; sometimes after another field (the decoding path).
        numbers.push(table.add(i % 5 === 4 ? { v: i, _id: id } : { _id: id, v: i }));
        ids.push(id);
      }
      // A few exact duplicates, first and not first.
      for (let i = 0; i < 10; i++) {
        const id = ids[i * 7];
        numbers.push(table.add(i % 2 === 0 ? { _id: new ObjectId(id.id) } : { w: 0, _id: new ObjectId(id.id) }));
        ids.push(id);
      }
      let ties = 0;
      for (let k = 0; k < 20_000; k++) {
        const i = Math.floor(random() * numbers.length);
        const j = k % 10 === 0 ? (i + numbers.length - 10) % numbers.length : Math.floor(random() * numbers.length);
        const [a, b] = [numbers[i], numbers[j]];
        const actual = sign(table.compareIds(a, b));
        const expected = sign(compareValues(table.decode(a)._id, table.decode(b)._id));
        assert.equal(actual, expected, `${ids[i]} vs ${ids[j]} (seed ${TEST_SEED})`);
        // And the BSON order of ObjectIds is the unsigned order of their bytes.
        assert.equal(actual, sign(Buffer.compare(ids[i].id, ids[j].id)), `${ids[i]} vs ${ids[j]}`);
        if (actual === 0) ties++;
      }
      assert.ok(ties > 0, "some pairs compared equal ids");
      for (const n of numbers) assert.equal(table.compareIds(n, n), 0);
      // ObjectIds that differ in one byte only, at every position, both ways across the sign bit.
      for (let p = 0; p < 12; p++) {
        const base = randomObjectId(random).id;
        for (const [x, y] of [[0x00, 0xff], [0x7f, 0x80], [0x10, 0x11]]) {
          const low = Uint8Array.from(base), high = Uint8Array.from(base);
          low[p] = x;
          high[p] = y;
          const [a, b] = [table.add({ _id: new ObjectId(low) }), table.add({ _id: new ObjectId(high) })];
          const [c, d] = [table.add({ v: 1, _id: new ObjectId(low) }), table.add({ v: 2, _id: new ObjectId(high) })];
          for (const [m, n] of [[a, b], [a, d], [c, b], [c, d]]) {
            const message = `byte ${p}: ${x} < ${y}`;
            assert.equal(sign(table.compareIds(m, n)), -1, message);
            assert.equal(sign(table.compareIds(n, m)), 1, message);
            assert.equal(sign(compareValues(table.id(m), table.id(n))), -1, message);
          }
        }
      }
    }));

  test("compareIds agrees in sign with compareValues of the decoded ids: mixed id types", () =>
    reportingSeed(() => {
      const random = seededRandom(5);
      const table = new DocTable();
      const makers: (() => unknown)[] = [
        () => Math.floor(random() * 21) - 10,
        () => (Math.floor(random() * 41) - 20) / 4,
        () => Long.fromNumber(Math.floor(random() * 21) - 10),
        () => Long.fromString(pick(random, ["9007199254740993", "-9223372036854775808", "9223372036854775807"])),
        () => Decimal128.fromString(`${Math.floor(random() * 21) - 10}.5`),
        () => pick(random, ["", "a", "ab", "b", "Z", "Édith", "名前", "a".repeat(40)]),
        () => randomObjectId(random, [0x00, 0x7f, 0x80, 0xff]),
        () => pick(random, [true, false, null]),
        () => new Date(Math.floor(random() * 5) * 1000 - 2000),
        () => ({ k: Math.floor(random() * 3) }),
      ];
      const numbers: number[] = [];
      for (let i = 0; i < 600; i++) {
        const _id = pick(random, makers)();
        numbers.push(table.add(random() < 0.2 ? { before: i, _id } : { _id, after: i }));
      }
      const signs = new Set<number>();
      for (let k = 0; k < 20_000; k++) {
        const a = pick(random, numbers), b = pick(random, numbers);
        const actual = sign(table.compareIds(a, b));
        const [x, y] = [table.decode(a)._id, table.decode(b)._id];
        assert.equal(actual, sign(compareValues(x, y)), `${String(x)} vs ${String(y)} (seed ${TEST_SEED})`);
        signs.add(actual);
      }
      assert.deepStrictEqual([...signs].sort(), [-1, 0, 1]);
      // Spot checks across types, in BSON order: numbers < strings < documents < ObjectIds < booleans < dates.
      const [one, text, doc, oid, yes, date] = [1, "a", { k: 0 }, new ObjectId(), true, new Date(0)]
        .map((_id) => table.add({ _id }));
      const ordered = [one, text, doc, oid, yes, date];
      for (let i = 0; i + 1 < ordered.length; i++) {
        assert.equal(sign(table.compareIds(ordered[i], ordered[i + 1])), -1);
        assert.equal(sign(table.compareIds(ordered[i + 1], ordered[i])), 1);
      }
      assert.equal(sign(table.compareIds(table.add({ _id: 2 }), table.add({ _id: Long.fromNumber(2) }))), 0);
    }));

  test("freed numbers are reused, and a freed document cannot be read", () => {
    const table = new DocTable();
    const numbers = Array.from({ length: 6 }, (_, i) => table.add({ _id: i, v: `doc ${i}` }));
    assert.equal(new Set(numbers).size, 6);
    table.free(numbers[1]);
    table.free(numbers[4]);
    for (const n of [numbers[1], numbers[4]]) {
      assert.throws(() => table.decode(n), /does not exist/);
      assert.throws(() => table.id(n), /does not exist/);
      assert.throws(() => table.fields(n, new Set(["v"])), /does not exist/);
      assert.throws(() => table.bytes(n), /does not exist/);
    }
    // The others are untouched.
    for (const i of [0, 2, 3, 5]) assert.deepStrictEqual(table.decode(numbers[i]), { _id: i, v: `doc ${i}` });
    const a = table.add({ _id: "a" });
    const b = table.add({ _id: "b" });
    assert.deepStrictEqual(new Set([a, b]), new Set([numbers[1], numbers[4]]), "the freed numbers came back");
    assert.deepStrictEqual(table.decode(a), { _id: "a" });
    assert.deepStrictEqual(table.decode(b), { _id: "b" });
    const c = table.add({ _id: "c" });
    assert.ok(!numbers.includes(c), "no number left to reuse: a new one");
    // Freeing twice is freeing once: the number is handed out once only.
    table.free(c);
    table.free(c);
    const d = table.add({ _id: "d" });
    const e = table.add({ _id: "e" });
    assert.equal(d, c);
    assert.notEqual(e, c);
    assert.deepStrictEqual([table.id(d), table.id(e)], ["d", "e"]);
  });

  test("hold keeps freed documents readable and their numbers unused until release", () => {
    const table = new DocTable();
    const numbers = Array.from({ length: 5 }, (_, i) => table.add({ _id: i, v: i * 10 }));
    const cached = table.decode(numbers[2]);
    table.hold();
    table.free(numbers[2]);
    table.free(numbers[3]);
    // Still readable, and the decoded object is still the one given before.
    assert.equal(table.decode(numbers[2]), cached);
    assert.deepStrictEqual(table.decode(numbers[3]), { _id: 3, v: 30 });
    assert.equal(table.id(numbers[3]), 3);
    assert.deepStrictEqual(table.fields(numbers[2], new Set(["v"])), { v: 20 });
    // New documents get new numbers while holding.
    const added = [table.add({ _id: "x" }), table.add({ _id: "y" })];
    for (const n of added) assert.ok(!numbers.includes(n), `number ${n} was reused while holding`);
    assert.deepStrictEqual(table.decode(numbers[2]), { _id: 2, v: 20 });
    table.release();
    assert.throws(() => table.decode(numbers[2]), /does not exist/);
    assert.throws(() => table.decode(numbers[3]), /does not exist/);
    assert.throws(() => table.id(numbers[3]), /does not exist/);
    for (const i of [0, 1, 4]) assert.deepStrictEqual(table.decode(numbers[i]), { _id: i, v: i * 10 });
    const reused = [table.add({ _id: "r1" }), table.add({ _id: "r2" })];
    assert.deepStrictEqual(new Set(reused), new Set([numbers[2], numbers[3]]));
    assert.deepStrictEqual(reused.map((n) => table.decode(n)), [{ _id: "r1" }, { _id: "r2" }]);
    // After release, frees are immediate again.
    table.free(added[0]);
    assert.throws(() => table.decode(added[0]), /does not exist/);
    assert.equal(table.add({ _id: "z" }), added[0]);
  });

  test("release compacts the chunks that what was freed while holding left an eighth dead, and no others", () =>
    reportingSeed(() => {
      const random = seededRandom(9);
      const make = paddedDocuments(random);
      const perChunk = Math.floor(CHUNK / (NUMBER_BYTES + 300));
      const count = perChunk * 4 + 10;
      const table = new DocTable(CHUNK);
      const docs = Array.from({ length: count }, (_, i) => make(i));
      const numbers = docs.map((doc) => table.add(doc));
      const before = table.chunkBytes;
      // As a journal replayed on a snapshot does: a fifth of the first two chunks' documents
      // replaced (the new versions go to the newest chunk), a few of the third's.
      table.hold();
      const replaced = new Set<number>();
      for (let i = 0; i < perChunk * 3; i++) {
        const share = i < perChunk * 2 ? 0.2 : 0.02;
        if (random() >= share) continue;
        table.free(numbers[i]);
        numbers[i] = table.add(docs[i]);
        replaced.add(i);
      }
      // Which chunk a document is in, told by the memory its bytes are a view of.
      const chunkOf = (i: number) => table.bytes(numbers[i]).buffer;
      const unreplaced = (from: number) => {
        for (let i = from;; i++) if (!replaced.has(i)) return i;
      };
      const [first, third] = [unreplaced(0), unreplaced(perChunk * 2 + 1)];
      const [firstChunk, thirdChunk] = [chunkOf(first), chunkOf(third)];
      table.release();
      // The first two chunks were compacted into the newest ones, the third left as it was.
      assert.notEqual(chunkOf(first), firstChunk, "a document of the first chunk moved");
      assert.equal(chunkOf(third), thirdChunk, "the third chunk, 2% dead, stays");
      assert.ok(table.chunkBytes <= before, `${before} -> ${table.chunkBytes} bytes: the moves fill what was freed`);
      for (let i = 0; i < count; i++) {
        assert.deepStrictEqual(table.decode(numbers[i]), docs[i], `document ${i} (seed ${TEST_SEED})`);
      }
      assert.ok(replaced.size > perChunk * 0.3, `${replaced.size} replaced`);
    }));

  test("a decoded document is kept: the same object when read again, never a freed one's", () => {
    const table = new DocTable();
    const n = table.add({ _id: 1, name: "old", tags: ["a"] });
    const other = table.add({ _id: 2, name: "other" });
    const first = table.decode(n);
    assert.equal(table.decode(n), first, "read again: the same object");
    assert.equal(table.decode(other), table.decode(other));
    table.free(n);
    const again = table.add({ _id: 3, name: "new" });
    assert.equal(again, n, "the freed number is reused");
    const fresh = table.decode(again);
    assert.notEqual(fresh, first);
    assert.deepStrictEqual(fresh, { _id: 3, name: "new" });
    assert.equal(table.id(again), 3);
    assert.deepStrictEqual(first, { _id: 1, name: "old", tags: ["a"] }, "the old object was not changed");
    // The same through hold and release: the held document's cached decode goes with it.
    const held = table.decode(other);
    table.hold();
    table.free(other);
    assert.equal(table.decode(other), held);
    table.release();
    const replacement = table.add({ _id: 4, name: "replacement" });
    assert.equal(replacement, other);
    assert.deepStrictEqual(table.decode(replacement), { _id: 4, name: "replacement" });
    // Past the cache's size, a document read long ago is decoded again, to the same content.
    const many = Array.from({ length: 5000 }, (_, i) => table.add({ _id: 10 + i }));
    const early = table.decode(many[0]);
    for (const m of many) table.decode(m);
    assert.deepStrictEqual(table.decode(many[0]), early);
    assert.deepStrictEqual(table.decode(many[0]), { _id: 10 });
  });

  test("freeing most of a chunk compacts it: chunkBytes shrinks and every document still reads the same", () =>
    reportingSeed(() => {
      const random = seededRandom(6);
      const make = paddedDocuments(random);
      const size = BSON.serialize(make(0)).length;
      assert.equal(size, 300, "documents of 300 bytes");
      const perChunk = Math.floor(CHUNK / (NUMBER_BYTES + size));
      // Three chunks and a quarter: the last has room for what compacting the first moves.
      const count = Math.ceil(perChunk * 3.25);
      const table = new DocTable(CHUNK);
      const docs: Document[] = [];
      const numbers: number[] = [];
      for (let i = 0; i < count; i++) {
        docs.push(make(i));
        numbers.push(table.add(docs[i]));
      }
      const before = table.chunkBytes;
      assert.ok(before > 3 * CHUNK, `${before} bytes: more than three chunks`);
      // The first chunk holds the first perChunk documents added: free all but a few.
      const kept = new Set([0, 1, 4321, perChunk - 2, perChunk - 1]);
      const keptViews = [...kept].map((i) =>
        [i, Buffer.from(table.bytes(numbers[i])), table.bytes(numbers[i])] as const
      );
      const keptDecoded = table.decode(numbers[4321]);
      const freed = new Set<number>();
      for (let i = 0; i < perChunk; i++) {
        if (kept.has(i)) continue;
        table.free(numbers[i]);
        freed.add(i);
      }
      const after = table.chunkBytes;
      assert.ok(after <= before - CHUNK, `chunkBytes ${before} -> ${after}: at least one chunk less`);
      const check = () => {
        for (let i = 0; i < docs.length; i++) {
          if (freed.has(i)) continue;
          const n = numbers[i];
          assert.deepStrictEqual(table.decode(n), docs[i], `document ${i} (seed ${TEST_SEED})`);
          assert.equal(table.id(n), i);
          assert.deepStrictEqual(table.fields(n, new Set(["k"])), { k: docs[i].k });
        }
      };
      // A moved document's decode is still the one given before, and views taken before still hold its bytes.
      assert.equal(table.decode(numbers[4321]), keptDecoded);
      check();
      for (const [i, copy, view] of keptViews) {
        assert.deepStrictEqual(Buffer.from(view), copy);
        assert.deepStrictEqual(Buffer.from(table.bytes(numbers[i])), copy);
      }
      for (const i of [2, 3, 5000, perChunk - 3]) assert.throws(() => table.decode(numbers[i]), /does not exist/);
      // New documents take the freed numbers and, once the newest chunk is full, the dropped chunk's place.
      const freedNumbers = new Set([...freed].map((i) => numbers[i]));
      for (let j = 0; j < Math.ceil(perChunk / 2); j++) {
        const i = docs.length;
        docs.push(make(i));
        const n = table.add(docs[i]);
        numbers.push(n);
        assert.ok(freedNumbers.has(n), `new document ${j} got number ${n}, not a freed one`);
      }
      assert.equal(new Set(numbers.slice(count)).size, numbers.length - count);
      check();
      assert.ok(table.chunkBytes <= before, `${table.chunkBytes} bytes after refilling: no more than before`);
    }));

  test("compaction keeps a reused number's newest document, not the freed one before it in the same chunk", () =>
    reportingSeed(() => {
      const make = paddedDocuments(seededRandom(8));
      const perChunk = Math.floor(CHUNK / (NUMBER_BYTES + 300));
      const table = new DocTable(CHUNK);
      // "old" is freed and its number reused by "new" while both are in the first (current) chunk.
      const oldDoc = make("old!"), newDoc = make("new!");
      assert.equal(BSON.serialize(oldDoc).length, 300);
      const n = table.add(oldDoc);
      table.free(n);
      assert.equal(table.add(newDoc), n);
      const fillers: Document[] = [];
      const numbers: number[] = [];
      // The rest of the first chunk, and one document in the second.
      for (let i = 0; i < perChunk - 1; i++) {
        fillers.push(make(i));
        numbers.push(table.add(fillers[i]));
      }
      assert.equal(table.chunkBytes, 2 * CHUNK);
      // Freeing three quarters of the first chunk's fillers compacts it into the second.
      const freedUpTo = Math.floor((perChunk - 2) * 0.75);
      for (let i = 0; i < freedUpTo; i++) table.free(numbers[i]);
      assert.equal(table.chunkBytes, CHUNK, "the first chunk was compacted");
      assert.equal(table.id(n), "new!");
      assert.deepStrictEqual(table.decode(n), newDoc);
      assert.deepStrictEqual(Buffer.from(table.bytes(n)), Buffer.from(BSON.serialize(newDoc)));
      for (let i = freedUpTo; i < fillers.length; i++) {
        assert.deepStrictEqual(table.decode(numbers[i]), fillers[i], `filler ${i} (seed ${TEST_SEED})`);
      }
    }));

  test("a large document gets a chunk of its own, dropped when it is freed", () => {
    const table = new DocTable(CHUNK);
    const small = Array.from({ length: 10 }, (_, i) => table.add({ _id: i }));
    const base = table.chunkBytes;
    assert.equal(base, CHUNK, "small documents share one chunk");
    const bigDoc = { _id: "big", text: "b".repeat(2 << 20) };
    const bigSize = BSON.serialize(bigDoc).length;
    const big = table.add(bigDoc);
    const grown = table.chunkBytes - base;
    assert.ok(grown >= bigSize && grown < bigSize + 1024, `grew by ${grown} for a document of ${bigSize} bytes`);
    assert.deepStrictEqual(table.decode(big), bigDoc);
    // Small documents still go to the shared chunk.
    const later = table.add({ _id: "after" });
    assert.equal(table.chunkBytes, base + grown);
    // A second one, just over a quarter of a chunk.
    const quarterDoc = { _id: "quarter", text: "q".repeat(CHUNK / 4) };
    const quarterSize = BSON.serialize(quarterDoc).length;
    const quarter = table.add(quarterDoc);
    const grownAgain = table.chunkBytes - base - grown;
    assert.ok(grownAgain >= quarterSize && grownAgain < quarterSize + 1024, `grew by ${grownAgain}`);
    table.free(big);
    assert.equal(table.chunkBytes, base + grownAgain, "the large document's chunk is dropped");
    assert.throws(() => table.decode(big), /does not exist/);
    assert.deepStrictEqual(table.decode(quarter), quarterDoc);
    table.free(quarter);
    assert.equal(table.chunkBytes, base);
    for (const [i, n] of small.entries()) assert.deepStrictEqual(table.decode(n), { _id: i });
    assert.deepStrictEqual(table.decode(later), { _id: "after" });
    // In an empty table too, and while holding it stays until release.
    const fresh = new DocTable(CHUNK);
    const alone = fresh.add(bigDoc);
    assert.ok(fresh.chunkBytes >= bigSize && fresh.chunkBytes < bigSize + 1024, `${fresh.chunkBytes} bytes`);
    fresh.hold();
    fresh.free(alone);
    assert.ok(fresh.chunkBytes >= bigSize);
    assert.equal(fresh.id(alone), "big");
    fresh.release();
    assert.equal(fresh.chunkBytes, 0);
  });

  test("walkFields visits every top-level field with its name, type and value offset", () => {
    const oid = new ObjectId("0102030405060708090a0b0c");
    const when = new Date(Date.UTC(2020, 0, 2));
    const long = Long.fromString("-1234567890123");
    const decimal = Decimal128.fromString("3.14");
    const doc = {
      _id: oid,
      name: "Ada",
      n: -5,
      d: 1.25,
      nested: { a: 1 },
      list: [1, 2],
      flag: true,
      nil: null,
      when,
      big: long,
      bin: new Binary(new Uint8Array([9, 8, 7]), 0),
      dec: decimal,
      "名前": "Édith",
      last: "x".repeat(50),
    };
    const encoded = BSON.serialize(doc);
    const start = 11;
    const bytes = Buffer.alloc(start + encoded.length + 5, 0xaa);
    bytes.set(encoded, start);
    const seen: { name: string; type: number; at: number; nameStart: number; nameEnd: number }[] = [];
    const ok = walkFields(bytes, start, encoded.length, (nameStart, nameEnd, type, at) => {
      seen.push({ name: bytes.toString("utf8", nameStart, nameEnd), type, at, nameStart, nameEnd });
      return true;
    });
    assert.equal(ok, true);
    assert.deepStrictEqual(seen.map((f) => f.name), Object.keys(doc));
    assert.deepStrictEqual(
      seen.map((f) => f.type),
      [0x07, 0x02, 0x10, 0x01, 0x03, 0x04, 0x08, 0x0a, 0x09, 0x12, 0x05, 0x13, 0x02, 0x02],
    );
    const field = (name: string) => seen.find((f) => f.name === name)!;
    for (const f of seen) {
      assert.equal(f.at, f.nameEnd + 1, `${f.name}: the value follows the name's 0`);
      assert.equal(bytes[f.nameStart - 1], f.type, `${f.name}: the type byte precedes the name`);
      if (f.name !== "名前") assert.ok(nameIs(bytes, f.nameStart, f.nameEnd, f.name), f.name);
    }
    assert.equal(seen[0].nameStart, start + 5);
    assert.deepStrictEqual(Buffer.from(bytes.subarray(field("_id").at, field("_id").at + 12)), Buffer.from(oid.id));
    assert.equal(textAt(bytes, field("name").at), "Ada");
    assert.equal(bytes.readInt32LE(field("n").at), -5);
    assert.equal(bytes.readDoubleLE(field("d").at), 1.25);
    const nestedAt = field("nested").at;
    const nestedBytes = bytes.subarray(nestedAt, nestedAt + bytes.readInt32LE(nestedAt));
    assert.deepStrictEqual(BSON.deserialize(nestedBytes), { a: 1 });
    const listAt = field("list").at;
    assert.deepStrictEqual(
      Object.values(BSON.deserialize(bytes.subarray(listAt, listAt + bytes.readInt32LE(listAt)))),
      [1, 2],
    );
    assert.equal(bytes[field("flag").at], 1);
    assert.equal(field("when").nameStart, field("nil").at + 1, "null has no value bytes");
    assert.equal(bytes.readBigInt64LE(field("when").at), BigInt(when.getTime()));
    assert.equal(bytes.readBigInt64LE(field("big").at), long.toBigInt());
    const binAt = field("bin").at;
    assert.equal(bytes.readInt32LE(binAt), 3);
    assert.equal(bytes[binAt + 4], 0);
    assert.deepStrictEqual([...bytes.subarray(binAt + 5, binAt + 8)], [9, 8, 7]);
    assert.deepStrictEqual(
      Buffer.from(bytes.subarray(field("dec").at, field("dec").at + 16)),
      Buffer.from(decimal.bytes),
    );
    assert.equal(textAt(bytes, field("名前").at), undefined, "textAt leaves non-ASCII text to the library");
    const textField = field("名前").at;
    assert.equal(bytes.toString("utf8", textField + 4, textField + 3 + bytes.readInt32LE(textField)), "Édith");
    assert.equal(textAt(bytes, field("last").at), "x".repeat(50));
    assert.equal(field("last").at + 4 + 51, start + encoded.length - 1, "the last value ends at the document's 0");

    // Stops when visit says so, and that is not a failure.
    let visits = 0;
    assert.equal(walkFields(bytes, start, encoded.length, () => ++visits < 3), true);
    assert.equal(visits, 3);

    // nameIs compares exactly.
    const nameField = field("name");
    assert.equal(nameIs(bytes, nameField.nameStart, nameField.nameEnd, "nam"), false);
    assert.equal(nameIs(bytes, nameField.nameStart, nameField.nameEnd, "names"), false);
    assert.equal(nameIs(bytes, nameField.nameStart, nameField.nameEnd, "Name"), false);
    assert.equal(nameIs(bytes, nameField.nameStart, nameField.nameEnd, ""), false);
  });

  test("walkFields is false on bytes it cannot walk", () => {
    const encoded = Buffer.from(BSON.serialize({ a: 1, b: "text", c: { d: 2 } }));
    const never = () => {
      throw new Error("visited a field of a malformed document");
    };
    const visitAll = () => true;
    assert.equal(walkFields(encoded, 0, encoded.length, visitAll), true);
    // The length given disagrees with the header.
    assert.equal(walkFields(encoded, 0, encoded.length - 1, never), false);
    assert.equal(walkFields(Buffer.concat([encoded, Buffer.from([0])]), 0, encoded.length + 1, never), false);
    // The header disagrees with the length given.
    const wrongHeader = Buffer.from(encoded);
    wrongHeader.writeInt32LE(encoded.length + 4, 0);
    assert.equal(walkFields(wrongHeader, 0, encoded.length, never), false);
    // The document runs past the end of the bytes.
    assert.equal(walkFields(encoded.subarray(0, encoded.length - 2), 0, encoded.length, never), false);
    // No terminating 0.
    const unterminated = Buffer.from(encoded);
    unterminated[encoded.length - 1] = 1;
    assert.equal(walkFields(unterminated, 0, encoded.length, never), false);
    // A string whose length runs past the document's end.
    const longString = Buffer.from(encoded);
    const bAt = encoded.indexOf(Buffer.from("b\0")) + 2;
    longString.writeInt32LE(1000, bAt);
    assert.equal(walkFields(longString, 0, encoded.length, visitAll), false);
    // An unknown type.
    const unknownType = Buffer.from(encoded);
    unknownType[bAt - 3] = 0x20;
    assert.equal(walkFields(unknownType, 0, encoded.length, visitAll), false);
  });

  test("textAt reads ASCII strings, and is undefined for other text and malformed lengths", () => {
    const encoded = Buffer.from(BSON.serialize({ s: "hello", e: "", l: "y".repeat(200), u: "Édith" }));
    const valueAt = (name: string) => encoded.indexOf(Buffer.from(`${name}\0`)) + name.length + 1;
    assert.equal(textAt(encoded, valueAt("s")), "hello");
    assert.equal(textAt(encoded, valueAt("e")), "");
    assert.equal(textAt(encoded, valueAt("l")), "y".repeat(200));
    assert.equal(textAt(encoded, valueAt("u")), undefined);
    const broken = Buffer.from(encoded);
    broken.writeInt32LE(0, valueAt("s"));
    assert.equal(textAt(broken, valueAt("s")), undefined, "a length of 0 leaves no room for the 0");
    broken.writeInt32LE(10_000, valueAt("s"));
    assert.equal(textAt(broken, valueAt("s")), undefined, "past the end");
    broken.writeInt32LE(3, valueAt("s"));
    assert.equal(textAt(broken, valueAt("s")), undefined, "no 0 where the length says");
  });

  test("the decode helpers read a document at any offset as the library would", () =>
    reportingSeed(() => {
      const random = seededRandom(7);
      for (let i = 0; i < 500; i++) {
        const doc = randomDocument(random);
        const encoded = BSON.serialize(doc);
        const start = Math.floor(random() * 20);
        const bytes = Buffer.alloc(start + encoded.length + Math.floor(random() * 20), 0x5a);
        bytes.set(encoded, start);
        const expected = roundTrip(doc);
        assert.deepStrictEqual(decodeDocumentAt(bytes, start, encoded.length), expected, `seed ${TEST_SEED}`);
        assert.deepStrictEqual(decodeIdAt(bytes, start, encoded.length), expected._id);
        const wanted = new Set(FIELD_NAMES.filter(() => random() < 0.4));
        assert.deepStrictEqual(decodeFieldsAt(bytes, start, encoded.length, wanted), pickFields(expected, wanted));
        const names: string[] = [];
        assert.equal(
          walkFields(bytes, start, encoded.length, (from, to) => names.push(bytes.toString("utf8", from, to)) > 0),
          true,
        );
        assert.deepStrictEqual(names, Object.keys(expected));
      }
    }));
  test("a table's chunks start at 64 KiB and double up to 4 MiB, so a small collection holds little", () => {
    const table = new DocTable();
    table.add({ _id: 1, text: "x" });
    assert.equal(table.chunkBytes, 64 << 10, "first chunk");
    const sizes: number[] = [];
    let last = table.chunkBytes;
    for (let i = 2; sizes.length < 8; i++) {
      table.add({ _id: i, text: "y".repeat(1000) });
      if (table.chunkBytes !== last) sizes.push(table.chunkBytes - last);
      last = table.chunkBytes;
    }
    assert.deepEqual(sizes, [128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, CHUNK, CHUNK, CHUNK]);
    for (const n of [0, 1, 500, 3000]) assert.equal(table.decode(n)._id, n + 1);
    // A document larger than the next chunk's size, but not large enough for a chunk of its own, still fits.
    const small = new DocTable();
    const n = small.add({ _id: "big", text: "z".repeat(500 << 10) });
    assert.equal(small.decode(n).text.length, 500 << 10);
  });
});
