import { test } from "node:test";
import assert from "node:assert/strict";
import { Binary, Decimal128, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from "bson";
import { valueText } from "../../src/embedded/bson.ts";

test("values print in the shell's notation MongoDB's error messages use", () => {
  assert.equal(valueText({ a: [1, "x"], b: {} }), '{ a: [ 1, "x" ], b: {} }');
  assert.equal(valueText([]), "[]");
  assert.equal(valueText(new Date(0)), "new Date(0)");
  assert.equal(valueText(new ObjectId("65a0f0f0f0f0f0f0f0f0f0f0")), "ObjectId('65a0f0f0f0f0f0f0f0f0f0f0')");
  assert.equal(valueText(new Binary(new Uint8Array([1, 2, 171]), 0)), "BinData(0, 0102AB)");
  const uuid = new UUID("3b241101-e2bb-4255-8caf-4136c566a962");
  assert.equal(valueText(new Binary(uuid.buffer, Binary.SUBTYPE_UUID)), 'UUID("3b241101-e2bb-4255-8caf-4136c566a962")');
  assert.equal(valueText(new Timestamp({ t: 1, i: 2 })), "Timestamp(1, 2)");
  assert.equal(valueText(new MinKey()), "MinKey");
  assert.equal(valueText(new MaxKey()), "MaxKey");
  assert.equal(valueText(Long.fromString("9007199254740993")), "9007199254740993");
  assert.equal(valueText(Decimal128.fromString("1.50")), "1.50");
  assert.equal(valueText([1, 2, 3, 4, 5, 6, 7], 5), "[ 1, 2, 3, 4, 5, ... ]");
});
