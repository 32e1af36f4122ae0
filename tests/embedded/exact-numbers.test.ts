/** Exact number comparison (Decimal128 against doubles, Longs and other decimals) and the keys that agree with it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Decimal128, Long } from "bson";
import fc from "fast-check";
import { compareValues, identicalValues, keyOf, sameValueKey } from "../../src/embedded/store/values.ts";
import { checkProperty } from "../helpers/seed.ts";

const dec = (text: string) => Decimal128.fromString(text);

/** n / 2^m written out exactly in decimal: n·5^m / 10^m. */
function exactText(n: number, m: number): string {
  const digits = (BigInt(Math.abs(n)) * 5n ** BigInt(m)).toString().padStart(m + 1, "0");
  const text = m === 0 ? digits : `${digits.slice(0, -m)}.${digits.slice(-m)}`;
  return (n < 0 ? "-" : "") + text;
}

test("a decimal holding a double's exact value equals it, with the same key; one digit off does not", async () => {
  await checkProperty(
    fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 0, max: 30 }), (n, m) => {
      const double = n / 2 ** m;
      const same = dec(exactText(n, m));
      assert.equal(compareValues(same, double), 0);
      assert.ok(sameValueKey(keyOf(same), keyOf(double)));
      // One more digit, at the place after the last: beyond the double, on its side of zero.
      const text = exactText(n, m);
      if (text.replace(/[-.]/g, "").replace(/^0+/, "").length < 34) {
        const further = dec(`${text}${m === 0 ? "." : ""}1`);
        assert.equal(compareValues(further, double), n < 0 ? -1 : 1, `${further} against ${double}`);
        assert.ok(!sameValueKey(keyOf(further), keyOf(double)));
      }
    }),
  );
});

test("over a mix of widths, the order is consistent and equal values share a key", async () => {
  const value = fc.oneof(
    fc.double({ noNaN: false }),
    fc.integer({ min: -1000, max: 1000 }).map((n) => n / 8),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
    fc.tuple(fc.bigInt({ min: -(10n ** 34n) + 1n, max: 10n ** 34n - 1n }), fc.integer({ min: -40, max: 20 }))
      .map(([coefficient, exponent]) => dec(`${coefficient}E${exponent}`)),
    fc.constantFrom(dec("NaN"), dec("Infinity"), dec("-Infinity"), dec("-0"), dec("1.10"), dec("1.1"), 1.1),
  );
  await checkProperty(
    fc.property(fc.array(value, { minLength: 2, maxLength: 12 }), (values) => {
      const sorted = [...values].sort(compareValues);
      for (let i = 0; i < sorted.length; i++) {
        for (let j = i; j < sorted.length; j++) {
          const order = compareValues(sorted[i], sorted[j]);
          assert.ok(order <= 0, `${sorted[i]} sorted before ${sorted[j]} but compares ${order}`);
          const sign = (x: number) => Math.sign(x) + 0; // no -0
          assert.equal(sign(compareValues(sorted[j], sorted[i])), sign(-order));
          assert.equal(sameValueKey(keyOf(sorted[i]), keyOf(sorted[j])), order === 0, `${sorted[i]} and ${sorted[j]}`);
        }
      }
    }),
    { numRuns: 300 },
  );
});

test("identical values: type and digits count, where equality ignores them", () => {
  assert.ok(identicalValues({ a: [dec("1.10"), Long.fromNumber(5)] }, { a: [dec("1.10"), Long.fromNumber(5)] }));
  assert.ok(!identicalValues(dec("1.10"), dec("1.1")));
  assert.ok(!identicalValues(Long.fromNumber(5), 5));
  assert.ok(!identicalValues(0, -0));
  assert.ok(identicalValues(Number.NaN, Number.NaN));
  assert.ok(!identicalValues({ a: 1, b: 2 }, { b: 2, a: 1 }), "field order is part of a document");
  assert.ok(identicalValues(new Date(5), new Date(5)));
  assert.ok(!identicalValues(new Date(5), 5));
});
