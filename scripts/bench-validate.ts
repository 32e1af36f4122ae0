/**
 * What `validate` costs the embedded engine: the full check of a collection's indexes against
 * its documents (store/collection-check.ts), beside the baseline of building the same indexes
 * from the documents (what `repair` and recovery do).
 *
 *   npx tsx scripts/bench-validate.ts [--sizes 10000,100000]
 *
 * For each size, the example's users (scripts/lib/memory-users.ts) with the example User
 * model's four indexes, in the engine's store without the driver or the wire. Median of three
 * rounds of each; the check holds the engine's thread for its whole duration.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { Collection } from "../src/embedded/store/collection.ts";
import { checkCollection } from "../src/embedded/store/collection-check.ts";
import { loadAverage, median } from "./lib/report.ts";
import { user, USER_INDEXES } from "./lib/memory-users.ts";

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "10000,100000" } } });
const SIZES = args.sizes.split(",").map(Number);
const ROUNDS = 3;

function timed(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

const loadAtStart = loadAverage();
console.log(`| users | build the 4 indexes | validate (full check) | validate / build |`);
console.log(`|---:|---:|---:|---:|`);
for (const size of SIZES) {
  const coll = new Collection("bench", "users");
  for (let id = 0; id < size; id++) coll.put(user(id));
  for (const spec of USER_INDEXES) coll.addIndex({ ...spec });
  const builds: number[] = [];
  const checks: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    builds.push(timed(() => {
      for (const index of coll.orderedIndexes()) index.build(coll.docs.numbers());
    }));
    checks.push(timed(() => {
      const check = checkCollection(coll);
      if (check.errors.length > 0) throw new Error(`the check found problems: ${check.errors.join("; ")}`);
    }));
  }
  const [build, check] = [median(builds), median(checks)];
  console.log(
    `| ${size.toLocaleString("en")} | ${build.toFixed(0)} ms | ${check.toFixed(0)} ms | ${
      (check / build).toFixed(1)
    } |`,
  );
}
console.log(`\nload average ${loadAtStart} at the start, ${loadAverage()} at the end (1 min; 2 cores)`);
console.log(`(${process.version}, ${process.platform}/${process.arch})`);
