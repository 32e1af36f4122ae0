/**
 * Instruction counts with valgrind's callgrind, shared by bench-instructions.ts (cached requests
 * in one process) and bench-paginate.ts `--instructions` (whole servers over loopback). Counts
 * do not depend on what else the host runs, which the benchmarks' times do.
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Functions of V8's collector, by name, as callgrind_annotate lists them. */
const COLLECTOR =
  /Scaveng|IterateObjectCache|RootScavenge|Evacuat|SemiSpace|FreeList|Sweep|Marking|MemoryChunk|SlotSet/;

/** Instructions per request: in all, and outside V8's garbage collector. */
export interface Count {
  total: number;
  outsideCollector: number;
}

/** Exits with one line saying what to install when valgrind is missing. */
export function requireValgrind(benchmark: string): void {
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    console.error(`${benchmark} needs valgrind: apt-get install valgrind`);
    process.exit(1);
  }
}

/**
 * valgrind's arguments to run node under callgrind with nothing counted until
 * `callgrind_control -i on` (or CALLGRIND_START), one dump per thread, and the collector on the
 * main thread, where it is counted. `compileOnMainThread` makes V8's optimising compiler work on
 * the main thread too, when the counts call for it rather than whenever a compiler thread
 * finishes, so that two runs run the same code: right for a loop in one process. Not for
 * servers: under valgrind, node:http's code is optimised again and again (about as many
 * instructions as the requests themselves, on the compiler thread), which it is not outside it.
 */
export function callgrindArgs(outFile: string, compileOnMainThread: boolean): string[] {
  return [
    "--tool=callgrind",
    "--smc-check=all-non-file", // V8 writes the code it runs
    "--instr-atstart=no",
    "--separate-threads=yes",
    `--callgrind-out-file=${outFile}`,
    process.execPath,
    ...(compileOnMainThread ? ["--no-concurrent-recompilation"] : []),
    "--single-threaded-gc",
  ];
}

/** The newest dump callgrind wrote into `dir` for thread 1 (the main thread), if any. */
export function mainThreadDump(dir: string): string | undefined {
  const dumps = readdirSync(dir).filter((name) => /\.\d+-01$/.test(name)).sort();
  return dumps.length === 0 ? undefined : join(dir, dumps.at(-1)!);
}

/**
 * Instructions per request in each thread of the newest dump in `dir` (`-d` writes one file per
 * thread, `callgrind.out.N-TT`), in thread order (01 is the main thread): the process's whole
 * work, wherever it ran.
 */
export function threadsPerRequest(dir: string, requests: number): number[] {
  const dumps = readdirSync(dir).filter((name) => /\.\d+-\d+$/.test(name));
  const newest = Math.max(...dumps.map((name) => Number(/\.(\d+)-\d+$/.exec(name)![1])));
  const threads = dumps.filter((name) => name.includes(`.${newest}-`)).sort();
  return threads.map((name) => perRequest(join(dir, name), requests).total);
}

/** Runs `callgrind_control ARGS PID` (e.g. `-i on`, `-d`) and waits until the process took it. */
export function callgrindControl(pid: number, ...args: string[]): void {
  execFileSync("callgrind_control", [...args, String(pid)], { stdio: "ignore" });
}

/** Instructions per request in a dump, in all and outside the collector's functions. */
export function perRequest(dump: string, requests: number): Count {
  const text = execFileSync("callgrind_annotate", ["--inclusive=no", "--threshold=100", dump], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  let total = 0;
  let collector = 0;
  for (const line of text.split("\n")) {
    const match = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$/.exec(line);
    if (match === null || match[2]!.includes("PROGRAM TOTALS")) continue;
    const count = Number(match[1]!.replaceAll(",", ""));
    total += count;
    if (COLLECTOR.test(match[2]!)) collector += count;
  }
  return { total: total / requests, outsideCollector: (total - collector) / requests };
}
