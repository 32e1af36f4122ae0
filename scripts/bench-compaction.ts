/**
 * What a compaction (a snapshot of the whole engine state) costs on a large data folder, the
 * engine's way (documents copied as the bytes they are stored as, `Catalog.dumpEncoded`) beside
 * the baseline of decoding every document and encoding it again (`Catalog.dump`), in the same run.
 *
 *   npx tsx scripts/bench-compaction.ts <DATA_DIR> [--rounds 2]
 *
 * `DATA_DIR` is left untouched: each compaction runs on a fresh copy of it (in its parent
 * folder), recovered into a Catalog first, as the engine does at start-up. Rounds alternate
 * the two ways, so a change in the machine's load falls on both. Each round also checks that the
 * two snapshots are the same bytes. Prints the times, their ratio, and the load average.
 */
import { cpSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { openDurableStore } from "../src/embedded/durability/mod.ts";
import { Catalog } from "../src/embedded/store/catalog.ts";
import { loadAverage } from "./lib/report.ts";

const { values: args, positionals } = parseArgs({
  options: { rounds: { type: "string", default: "2" } },
  allowPositionals: true,
});
const source = positionals[0];
if (!source) throw new Error("usage: bench-compaction.ts <DATA_DIR> [--rounds 2]");

type Way = "dumpEncoded" | "dump";

/** Recovers a copy of the folder, then times one compaction of it; returns the ms and the snapshot's bytes. */
async function compactCopy(way: Way): Promise<{ ms: number; snapshot: Buffer }> {
  const copy = join(dirname(source), `compaction-bench-${way}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(source, copy, { recursive: true });
  try {
    const catalog = new Catalog();
    const never = 2 ** 50;
    const store = await openDurableStore(copy, () => catalog[way](), {
      compactThreshold: never,
      closeCompactThreshold: never,
    });
    await store.recover((change) => catalog.applyChange(change));
    catalog.finishRecovery();
    const started = performance.now();
    await store.compact();
    const ms = performance.now() - started;
    await store.close();
    const name = readdirSync(copy).find((file) => file.startsWith("snapshot-"))!;
    return { ms, snapshot: readFileSync(join(copy, name)) };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const rounds = Number(args.rounds);
const times: Record<Way, number[]> = { dumpEncoded: [], dump: [] };
const loadAtStart = loadAverage();
let bytes = 0;
for (let round = 0; round < rounds; round++) {
  const order: Way[] = round % 2 === 0 ? ["dumpEncoded", "dump"] : ["dump", "dumpEncoded"];
  const snapshots: Buffer[] = [];
  for (const way of order) {
    const { ms, snapshot } = await compactCopy(way);
    times[way].push(ms);
    snapshots.push(snapshot);
  }
  if (!snapshots[0].equals(snapshots[1])) throw new Error("the two ways wrote different snapshots");
  bytes = snapshots[0].length;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(`snapshot of ${source}: ${(bytes / 2 ** 20).toFixed(0)} MiB, the same bytes both ways in every round`);
console.log(`\n| compaction | ${times.dump.map((_, i) => `round ${i + 1}`).join(" | ")} | median |`);
console.log(`|---|${times.dump.map(() => "---:|").join("")}---:|`);
for (const way of ["dump", "dumpEncoded"] as const) {
  const label = way === "dump"
    ? "decode and encode every document (dump, baseline)"
    : "copy the stored bytes (dumpEncoded)";
  console.log(`| ${label} | ${times[way].map(sec).join(" | ")} | ${sec(median(times[way]))} |`);
}
console.log(`\ndumpEncoded / dump: ${(median(times.dumpEncoded) / median(times.dump)).toFixed(2)}`);
console.log(`load average ${loadAtStart} at the start, ${loadAverage()} at the end (1 min; 2 cores)`);
console.log(`(${process.version}, ${process.platform}/${process.arch})`);
