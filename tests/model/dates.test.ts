import { test } from "node:test";
import assert from "node:assert/strict";
import { parseIsoDate } from "../../src/model/dates.ts";

test("leap days follow the proleptic Gregorian calendar in every year, 0000 to 0099 included", () => {
  assert.equal(parseIsoDate("0000-02-29")?.toISOString(), "0000-02-29T00:00:00.000Z");
  assert.equal(parseIsoDate("0004-02-29")?.toISOString(), "0004-02-29T00:00:00.000Z");
  assert.equal(parseIsoDate("0001-02-29"), null);
  assert.equal(parseIsoDate("0100-02-29"), null);
  assert.equal(parseIsoDate("2000-02-29")?.toISOString(), "2000-02-29T00:00:00.000Z");
  assert.equal(parseIsoDate("1900-02-29"), null);
  assert.equal(parseIsoDate("0099-12-31")?.toISOString(), "0099-12-31T00:00:00.000Z");
});
