import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// What an adapter may use of an app is App's contract (answer, refuse), in its type: no
// registry-wide symbol keys on functions, which no type shows and any module can read.
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join(SRC, "embedded") ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

test("no file in src/ outside the embedded engine keys anything by Symbol.for", () => {
  const files = sourceFiles(SRC);
  assert.ok(files.length > 50, `found only ${files.length} files under ${SRC}`);
  const found = files.filter((path) => readFileSync(path, "utf8").includes("Symbol.for(")).map((path) =>
    relative(ROOT, path)
  );
  assert.deepEqual(found, []);
});
