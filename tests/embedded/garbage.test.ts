import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { collectGarbageNow } from "../../src/embedded/garbage.ts";

/** An object only a WeakRef holds, made in a function of its own so no local keeps it. */
function unreachable(): WeakRef<object> {
  return new WeakRef({ payload: new Uint8Array(1 << 20) });
}

const deno = "Deno" in globalThis;

test("collectGarbageNow collects what nothing holds, without Node's experimental warning", {
  skip: deno ? "Deno's node:vm does not implement measureMemory: nothing to collect with" : false,
}, async () => {
  const warnings: string[] = [];
  const listen = (warning: Error) => warnings.push(warning.message);
  process.on("warning", listen);
  const ref = unreachable();
  // A later job: a WeakRef keeps its target alive only to the end of the job that made it.
  await new Promise((resolve) => setTimeout(resolve, 0));
  // The first call in this process: Node would warn that vm.measureMemory is experimental now.
  await collectGarbageNow();
  await new Promise((resolve) => setImmediate(resolve)); // warnings are delivered on a later tick
  process.off("warning", listen);
  assert.equal(ref.deref(), undefined, "a full collection ran");
  assert.deepEqual(warnings.filter((text) => text.includes("measureMemory")), [], "no experimental warning printed");
});

test("collectGarbageNow resolves on a runtime that refuses to measure memory", async () => {
  // Deno's measureMemory throws "not implemented"; on Node this is the ordinary call.
  await assert.doesNotReject(collectGarbageNow());
});
