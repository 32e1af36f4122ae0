import { createHook } from "node:async_hooks";
import process from "node:process";

/**
 * Keeps the shape of node's `process.nextTick` records alive for the life of the process.
 *
 * Why: node:http schedules four ticks per keep-alive request (stream callbacks), and each
 * tick record is an object literal with two computed (symbol) keys. V8 stores those keys
 * quickly only while the literal's feedback has seen one shape; the shape (a hidden class) is
 * held weakly. When a full garbage collection runs while no tick record is alive, that shape
 * dies, the next record gets a new one, and the feedback turns megamorphic for good: from then
 * on every tick record is built in V8's runtime, about a microsecond per tick. Bare node:http
 * rarely collects in full and keeps the fast path; an app that loads a driver and models
 * collects during start-up, and 9 of 20 of its processes ended up on the slow path, serving a
 * cached page at least 10% slower than the others (docs/benchmarks.md, "nextTick's shape").
 *
 * Holding one tick record keeps its hidden class, and with it the feedback, valid. The record
 * is taken through a public async_hooks `init` hook, enabled for one `nextTick` call only.
 * It must run before the process's first full collection, so the framework's entry points
 * import this module first. On other runtimes (Deno's node compatibility builds its ticks
 * differently) it does nothing.
 */

let anchor: object | undefined;

/** True on Node itself, not on a runtime that only offers Node's modules. */
function isNode(): boolean {
  const scope = globalThis as { Deno?: unknown; Bun?: unknown; process?: { release?: { name?: string } } };
  return scope.Deno === undefined && scope.Bun === undefined && scope.process?.release?.name === "node";
}

/**
 * The record node makes for one `process.nextTick` call, caught by an `init` hook enabled for
 * that call only; undefined if the hook saw none (the app then runs without the anchor).
 */
export function nextTickRecord(): object | undefined {
  let record: object | undefined;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === "TickObject") record ??= resource as object;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
  return record;
}

/** The tick record being kept, if any (for tests). */
export function tickShapeAnchor(): object | undefined {
  return anchor;
}

// Once per process, as the module loads (see above); nothing off Node.
if (isNode()) anchor = nextTickRecord();
