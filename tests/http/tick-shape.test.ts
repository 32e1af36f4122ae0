import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import process from "node:process";

const run = promisify(execFile);
const child = fileURLToPath(new URL("../fixtures/tick-shape-child.ts", import.meta.url));
const deno = "Deno" in globalThis;

test("the adapter keeps a nextTick record, so its shape outlives full collections", {
  skip: deno ? "Node's tick records only: Deno builds its nextTick differently" : false,
}, async () => {
  const { stdout } = await run(process.execPath, ["--expose-gc", "--allow-natives-syntax", "--import", "tsx", child]);
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
  // A record has two symbol keys (its async ids) and the callback with its arguments.
  assert.deepEqual(result, { anchored: true, symbols: 2, keys: ["callback", "args"], sameShape: true });
});
