/**
 * What secondary indexes cost the embedded engine's writes and seeks as a collection grows.
 *
 *   npx tsx scripts/bench-index-writes.ts [--sizes 10000,100000,1000000] [--updates 20000]
 *
 * For each size, two collections of the same users (scripts/lib/memory-users.ts) in the
 * engine's store, without the driver or the wire, so only the store's own work is timed:
 * - the baseline: no secondary index;
 * - the example User model's four indexes (email unique, name+_id, -created_at+name+_id,
 *   surname+name+_id).
 * Each gets the same updates (a rename of a random user, as a PATCH writes it: new name,
 * `_rev` + 1), timed per update; the ratio is what maintaining the four indexes costs. Then
 * 200,000 seeks of random (name, _id) keys in the name index, timed per seek. Median of three
 * rounds; the random choices are seeded, so every run makes the same ones.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import type { Document } from "bson";
import { Collection } from "../src/embedded/store/collection.ts";
import { mulberry32 } from "../tests/helpers/random.ts";
import { loadAverage } from "./lib/report.ts";
import { user, USER_INDEXES } from "./lib/memory-users.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000,1000000" },
    updates: { type: "string", default: "20000" },
  },
});
const SIZES = args.sizes.split(",").map(Number);
const UPDATES = Number(args.updates);
const SEEKS = 200_000;
const ROUNDS = 3;

function filled(size: number, indexed: boolean): Collection {
  const coll = new Collection("bench", "users");
  for (let id = 1; id <= size; id++) coll.put(user(id));
  if (indexed) { for (const spec of USER_INDEXES) coll.addIndex({ ...spec, key: { ...spec.key } }); }
  return coll;
}

/** Microseconds per update of `count` random users, renamed as a PATCH would. */
function timeUpdates(coll: Collection, size: number, seed: number): number {
  const random = mulberry32(seed);
  const started = performance.now();
  for (let i = 0; i < UPDATES; i++) {
    const old = coll.docs.get(1 + Math.floor(random() * size))!;
    coll.put({ ...old, name: `Renamed${i % 5000}`, _rev: (old._rev as number) + 1 });
  }
  return ((performance.now() - started) * 1000) / UPDATES;
}

/** Microseconds per seek of a random (name, _id) in the name index. */
function timeSeeks(coll: Collection, size: number, seed: number): number {
  const index = [...coll.orderedIndexes()].find((i) => i.spec.name === "name_1__id_1")!;
  const { entries } = index;
  const random = mulberry32(seed);
  const targets: Document[] = Array.from({ length: SEEKS }, () => coll.docs.get(1 + Math.floor(random() * size))!);
  let found = 0;
  const started = performance.now();
  for (const target of targets) {
    const pos = entries.seek((keys, base) =>
      entries.compareKey(keys[base], target.name) || entries.compareKey(keys[base + 1], target._id)
    );
    if (entries.valid(pos)) found++;
  }
  const us = ((performance.now() - started) * 1000) / SEEKS;
  if (found !== SEEKS) throw new Error(`a seek missed its entry (${found} of ${SEEKS})`);
  return us;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1];

const loadAtStart = loadAverage();
console.log(`| users | update, no index | update, 4 indexes | ratio | seek in name_1__id_1 |`);
console.log(`|---:|---:|---:|---:|---:|`);
for (const size of SIZES) {
  const plain = filled(size, false);
  const indexed = filled(size, true);
  const bare: number[] = [];
  const maintained: number[] = [];
  const seeks: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(timeUpdates(plain, size, 1000 + round));
    maintained.push(timeUpdates(indexed, size, 1000 + round));
    seeks.push(timeSeeks(indexed, size, 2000 + round));
  }
  const [b, m] = [median(bare), median(maintained)];
  console.log(
    `| ${size.toLocaleString("en")} | ${b.toFixed(1)} µs | ${m.toFixed(1)} µs | ${(m / b).toFixed(1)}x | ${
      median(seeks).toFixed(2)
    } µs |`,
  );
}
console.log(`\nload average ${loadAtStart} at the start, ${loadAverage()} at the end (1 min; 2 cores)`);
console.log(`(${process.version}, ${process.platform}/${process.arch})`);
