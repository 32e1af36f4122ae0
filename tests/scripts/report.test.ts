/** The benchmarks' statistics: the median's distribution-free interval and the verdicts drawn from it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatInterval, intervalVerdict, medianInterval } from "../../scripts/lib/report.ts";

const ranks = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

test("24 rounds: ranks 7 and 18, covering 1 − 2·P(binomial(24, ½) ≤ 6)", () => {
  const interval = medianInterval(ranks(24).reverse());
  assert.equal(interval.low, 7);
  assert.equal(interval.high, 18);
  // P(X ≤ 6) = (1 + 24 + 276 + 2024 + 10626 + 42504 + 134596) / 2^24 = 190051 / 16777216
  assert.ok(Math.abs(interval.coverage - (1 - 2 * 190051 / 16777216)) < 1e-12);
  assert.equal(formatInterval(interval), "97.7% interval 7.00-18.00");
});

test("10 rounds: ranks 2 and 9; a higher confidence widens the interval", () => {
  const interval = medianInterval(ranks(10));
  assert.deepEqual([interval.low, interval.high], [2, 9]);
  const wider = medianInterval(ranks(10), 0.99);
  assert.deepEqual([wider.low, wider.high], [1, 10]);
  assert.ok(Math.abs(wider.coverage - (1 - 2 / 1024)) < 1e-12);
});

test("too few values for the confidence: the whole range, with the coverage it really has", () => {
  const interval = medianInterval([0.7, 0.9, 0.8, 0.6, 0.75]);
  assert.deepEqual([interval.low, interval.high], [0.6, 0.9]);
  assert.equal(interval.coverage, 1 - 2 / 32);
  assert.equal(medianInterval([0.5]).coverage, 0);
  assert.throws(() => medianInterval([]), RangeError);
});

test("the interval does not depend on the order of the rounds, only on their values", () => {
  const seed = 0x5eed;
  console.log(`shuffle seed ${seed}`);
  let state = seed;
  const random = (): number => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const values = ranks(40).map((rank) => 0.6 + rank / 200);
  const shuffled = [...values].sort(() => random() - 0.5);
  assert.deepEqual(medianInterval(shuffled), medianInterval(values));
});

test("a verdict is met or not only when the whole interval is on one side of the target", () => {
  const interval = { low: 0.69, high: 0.75, coverage: 0.977 };
  assert.equal(intervalVerdict(interval, 0.71), "undecided");
  assert.equal(intervalVerdict(interval, 0.69), "met");
  assert.equal(intervalVerdict(interval, 0.76), "NOT met");
  const fewRounds = medianInterval([0.8, 0.9, 0.85]);
  assert.equal(intervalVerdict(fewRounds, 0.71), "undecided", "three rounds cover 75%: they decide nothing");
});
