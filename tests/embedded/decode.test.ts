import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { inspect } from "node:util";
import { Binary, BSON, BSONRegExp, Decimal128, type Document, Long, MaxKey, ObjectId, Timestamp } from "bson";
import { DESERIALIZE, SERIALIZE } from "../../src/embedded/bson.ts";
import { decodeDocumentAt } from "../../src/embedded/decode.ts";
import { mulberry32 } from "../helpers/random.ts";

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** A value of a type the fast path decodes, or (now and then) one it hands to the library. */
function value(random: () => number, depth: number): unknown {
  const common = [
    () => Math.floor(random() * 2 ** 31) * (random() < 0.5 ? -1 : 1),
    () => pick(random, [0, -0, NaN, 1.5, -1e300, Infinity, 2 ** 40]),
    () => pick(random, ["", "a", "Grace Hopper", "x".repeat(5000), "ada@example.com"]),
    () => pick(random, [true, false, null]),
    () => new Date(Math.floor((random() - 0.5) * 2 ** 45)),
    () => ObjectId.createFromTime(Math.floor(random() * 2 ** 31)),
    () => Long.fromBits(Math.floor(random() * 2 ** 32) | 0, Math.floor((random() - 0.5) * 2 ** 32) | 0),
    () => (depth > 2 ? 1 : document(random, depth + 1)),
    () => (depth > 2 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => value(random, depth + 1))),
  ];
  const rare = [
    () => Long.fromNumber(Math.floor(random() * 1e6)),
    () => new Binary(new Uint8Array([1, 2, 3])),
    () => Decimal128.fromString("1.5"),
    () => /ab+c/i,
    () => new BSONRegExp("x", "m"),
    () => new Timestamp({ t: 5, i: 1 }),
    () => new MaxKey(),
    () => pick(random, ["é", "日本", "\u{1F600}"]),
  ];
  return random() < 0.05 ? pick(random, rare)() : pick(random, common)();
}

function document(random: () => number, depth = 0): Document {
  const doc: Document = {};
  const names = ["_id", "email", "name", "surname", "created_at", "a", "b.c", "ünï", "$ref", "$id"];
  for (let i = Math.floor(random() * 6); i > 0; i--) {
    const name = random() < 0.03 ? pick(random, names.slice(7)) : pick(random, names.slice(0, 7));
    doc[name] = value(random, depth);
  }
  return doc;
}

describe("recovery's document decoder", () => {
  test("gives exactly what BSON.deserialize gives, for common and uncommon types", () => {
    const random = mulberry32(23);
    for (let i = 0; i < 3000; i++) {
      const doc = document(random);
      const bytes = BSON.serialize(doc, SERIALIZE);
      // Decoded from the middle of a larger buffer, as records are.
      const framed = Buffer.alloc(bytes.length + 7);
      framed.set(bytes, 3);
      assert.deepStrictEqual(decodeDocumentAt(framed, 3, bytes.length), BSON.deserialize(bytes, DESERIALIZE));
    }
  });

  test("malformed documents fail as the library fails, never as a wrong value", () => {
    const random = mulberry32(29);
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.from(BSON.serialize(document(random), SERIALIZE));
      const at = 4 + Math.floor(random() * Math.max(1, bytes.length - 5));
      bytes[at] = Math.floor(random() * 256);
      let expected: unknown;
      try {
        expected = BSON.deserialize(bytes, DESERIALIZE);
      } catch (error) {
        expected = error instanceof Error ? error.constructor : error;
      }
      let actual: unknown;
      try {
        actual = decodeDocumentAt(bytes, 0, bytes.length);
      } catch (error) {
        actual = error instanceof Error ? error.constructor : error;
      }
      // Compared as printed: two invalid dates (a flipped byte in a date) are not deep-equal.
      assert.equal(inspect(actual, { depth: Infinity }), inspect(expected, { depth: Infinity }));
    }
  });
});
