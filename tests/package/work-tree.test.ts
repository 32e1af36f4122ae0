// `npm pack` in the repository (the README's way to install before publication) leaves its
// tarball in the work tree; git must ignore it, or `npx deno publish --dry-run` afterwards
// aborts on uncommitted changes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);
const repo = new URL("../../", import.meta.url).pathname;
const { version } = JSON.parse(await readFile(`${repo}package.json`, "utf8")) as { version: string };

test("the tarball npm pack leaves in the work tree is ignored by git", async () => {
  const tarball = `mongorest-${version}.tgz`;
  const { stdout } = await run("git", ["check-ignore", "--no-index", "-v", tarball], { cwd: repo });
  assert.match(stdout, new RegExp(`\\.gitignore:\\d+:.*\\t${tarball.replace(/\./g, "\\.")}$`, "m"));
});
