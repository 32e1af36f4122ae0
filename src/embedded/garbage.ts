import process from "node:process";
import * as vm from "node:vm";

/** How long to wait for the collection before going on without it. */
const WAIT_MS = 1000;

/**
 * Has V8 collect the garbage now, where the runtime offers a way: `vm.measureMemory` with
 * `execution: "eager"` starts a collection at once (Node's documented behaviour; the
 * measurement itself is not used). Recovery leaves its garbage mostly outside the JS heap
 * (the chunks it compacted, the index merges' arrays), which does not press V8 to collect,
 * and a thread waiting for requests never did: after a start that replayed a journal at a
 * million users the process held 2.9x the data's size instead of 2.5x, however long it
 * idled or served (docs/benchmarks.md). One collection costs ~25 ms there. Resolves without
 * it on runtimes that lack the call (Deno) or refuse it.
 */
export async function collectGarbageNow(): Promise<void> {
  const measure = (vm as { measureMemory?: (options: object) => Promise<unknown> }).measureMemory;
  if (typeof measure !== "function") return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      withoutExperimentalWarning(() => measure({ mode: "summary", execution: "eager" })),
      new Promise((resolve) => (timer = setTimeout(resolve, WAIT_MS))),
    ]);
  } catch {
    // Not supported here: the garbage goes when V8 next collects by itself.
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `start` with Node's "vm.measureMemory is an experimental feature" warning held back:
 * it would print at every start, and what is experimental is the measurement's format, which
 * nothing here reads. Node emits it synchronously, through `process.emitWarning`, during the
 * call; every other warning goes through as usual.
 */
function withoutExperimentalWarning<T>(start: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (String(warning).includes("vm.measureMemory")) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return start();
  } finally {
    process.emitWarning = emit;
  }
}
