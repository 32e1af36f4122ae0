import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isoString } from "../../src/model/serialize.ts";
import { checkProperty } from "../helpers/seed.ts";

describe("isoString", () => {
  test("formats exactly as Date.prototype.toISOString", async () => {
    // The whole range a Date can hold, so the extended-year fallback is exercised too.
    await checkProperty(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (time) => {
        const date = new Date(time);
        assert.equal(isoString(date), date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  test("edges: the first and last four-digit years, the years beside them, the epoch", () => {
    for (
      const iso of [
        "1000-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
        "1970-01-01T00:00:00.000Z",
        "2024-02-29T12:34:56.789Z",
      ]
    ) {
      assert.equal(isoString(new Date(iso)), iso);
    }
    for (const time of [Date.UTC(999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1), -1, 8.64e15, -8.64e15]) {
      assert.equal(isoString(new Date(time)), new Date(time).toISOString());
    }
  });

  test("an invalid date throws the builtin's RangeError", () => {
    assert.throws(() => isoString(new Date(Number.NaN)), RangeError);
  });
});
