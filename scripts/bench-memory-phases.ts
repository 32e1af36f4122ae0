/**
 * Where the embedded engine's start-up time and memory go on a data folder, phase by phase,
 * in a bare process (no app, no server): what `bench-memory.ts` runs after the app itself.
 *
 *   node --expose-gc --import tsx scripts/bench-memory-phases.ts <DATA_DIR>
 *
 * Phases, each timed in wall and CPU time (CPU is what a busy machine inflates least):
 * 1. reading and decoding the snapshot and journals without applying anything;
 * 2. the same recovery applied to a Catalog (decode + the `_id`-ordered list), indexes deferred;
 * 3. `finishRecovery`: building every secondary index once (from the snapshot's saved orders
 *    where it has them, see docs/embedded-engine.md).
 * Memory, after a forced GC at each step: the heap holding the documents with the `_id` list,
 * and what the secondary indexes add. Prints one JSON line last, for bench-memory.ts.
 */
import process from "node:process";
import { openDurableStore } from "../src/embedded/durability/mod.ts";
import { Catalog } from "../src/embedded/store/catalog.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: bench-memory-phases.ts <DATA_DIR>");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

/** Runs `work` and returns its wall and CPU milliseconds. */
async function timed(work: () => Promise<void> | void): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
}

/** JS heap plus off-heap buffers in use, and RSS, after a full collection. */
function settled(): { heap: number; rss: number } {
  gc!();
  gc!();
  const { heapUsed, external, rss } = process.memoryUsage();
  return { heap: heapUsed + external, rss };
}

/** Recovers `dir` (a copy of the lock-free read path the engine's start-up takes). */
async function recover(apply: (change: unknown) => void): Promise<void> {
  // No compaction: with nothing to dump (no Catalog behind the store), one would empty the folder.
  const never = 2 ** 50;
  const store = await openDurableStore(dir, () => [], { compactThreshold: never, closeCompactThreshold: never });
  try {
    await store.recover(apply as never);
  } finally {
    await store.close();
  }
}

const empty = settled();
let changes = 0;
const decode = await timed(() => recover(() => changes++));
const catalog = new Catalog();
const apply = await timed(() => recover((change) => catalog.applyChange(change as never)));
const loaded = settled();
const build = await timed(() => catalog.finishRecovery());
const indexed = settled();

const MiB = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const ms = (t: { wallMs: number; cpuMs: number }) =>
  `${(t.wallMs / 1000).toFixed(2)} s wall, ${(t.cpuMs / 1000).toFixed(2)} s CPU`;
console.log(`changes recovered: ${changes.toLocaleString("en")}`);
console.log(`| phase | time |\n|---|---:|`);
console.log(`| read + decode snapshot/journal (nothing applied) | ${ms(decode)} |`);
console.log(`| read + decode + apply to a Catalog (the \`_id\` list) | ${ms(apply)} |`);
console.log(`| finishRecovery (build every secondary index once) | ${ms(build)} |`);
console.log(`\n| memory after GC | heap | RSS |\n|---|---:|---:|`);
console.log(`| bare process | ${MiB(empty.heap)} | ${MiB(empty.rss)} |`);
console.log(`| documents + \`_id\` list | ${MiB(loaded.heap - empty.heap)} | ${MiB(loaded.rss)} |`);
console.log(`| + secondary indexes | +${MiB(indexed.heap - loaded.heap)} | ${MiB(indexed.rss)} |`);
console.log(JSON.stringify({ changes, decode, apply, build, empty, loaded, indexed }));
