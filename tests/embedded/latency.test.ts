import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BUCKET_LOWER_BOUNDS, bucketOf, LatencyStats } from "../../src/embedded/commands/latency.ts";
import { checkProperty } from "../helpers/seed.ts";

/**
 * MongoDB's bucket rule, written from its description: a bucket per power of two below 2^11,
 * two per power from 2^11 to 2^20 (split at 1.5 times the power), then one per power up to the last.
 */
function describedBucket(micros: number): number {
  if (micros < 1) return 0;
  const log2 = Math.floor(Math.log2(micros));
  if (log2 < 11) return log2;
  if (log2 < 21) return log2 + (log2 - 11) + (micros >= 3 * 2 ** (log2 - 1) ? 1 : 0);
  return Math.min(log2 + 10, BUCKET_LOWER_BOUNDS.length - 1);
}

test("latency buckets: MongoDB's 51 lower bounds, and every latency in the bucket its bound names", async () => {
  // MongoDB's table (operation_latency_histogram.cpp's kLowerBounds), written out.
  assert.deepEqual(BUCKET_LOWER_BOUNDS, [
    0,
    2,
    4,
    8,
    16,
    32,
    64,
    128,
    256,
    512,
    1024,
    2048,
    3072,
    4096,
    6144,
    8192,
    12288,
    16384,
    24576,
    32768,
    49152,
    65536,
    98304,
    131072,
    196608,
    262144,
    393216,
    524288,
    786432,
    1048576,
    1572864,
    2097152,
    4194304,
    8388608,
    16777216,
    33554432,
    67108864,
    134217728,
    268435456,
    536870912,
    1073741824,
    2147483648,
    4294967296,
    8589934592,
    17179869184,
    34359738368,
    68719476736,
    137438953472,
    274877906944,
    549755813888,
    1099511627776,
  ]);
  for (const [micros, bucket] of [[0, 0], [1, 0], [2, 1], [3, 1], [2047, 10], [2048, 11], [3071, 11], [3072, 12]]) {
    assert.equal(bucketOf(micros), bucket, `${micros} µs`);
  }
  assert.equal(bucketOf(2 ** 45), 50);
  await checkProperty(
    fc.property(fc.integer({ min: 0, max: 2 ** 42 }), (micros) => {
      const bucket = bucketOf(micros);
      assert.equal(bucket, describedBucket(micros));
      assert.ok(BUCKET_LOWER_BOUNDS[bucket] <= micros);
    }),
  );
});

test("latency stats: per namespace and kind, whole microseconds, forgotten with a collection or database", () => {
  const stats = new LatencyStats();
  stats.record("db.a", "reads", 10.7);
  stats.record("db.a", "reads", 3000);
  stats.record("db.a", "writes", 5);
  stats.record("other.a", "commands", 1);
  const report = stats.report("db.a", true);
  assert.equal(Number(report.reads.latency), 3010);
  assert.equal(Number(report.reads.ops), 2);
  assert.deepEqual(
    report.reads.histogram.map((b: { micros: unknown; count: unknown }) => [Number(b.micros), Number(b.count)]),
    [
      [8, 1],
      [2048, 1],
    ],
  );
  assert.equal(Number(report.commands.ops), 0);
  stats.forget("db.a");
  assert.equal(Number(stats.report("db.a", false).reads.ops), 0);
  stats.record("db.b", "reads", 1);
  stats.forgetDatabase("db");
  assert.equal(Number(stats.report("db.b", false).reads.ops), 0);
  assert.equal(Number(stats.report("other.a", false).commands.ops), 1, "another database keeps its own");
});
