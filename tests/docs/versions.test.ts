/**
 * One story of versions: the package (npm and JSR) is the release that changed the plurals, and
 * the README, the tarball's name and the start-up error of a renamed collection all say so.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(`${repo}${path}`, "utf8");
const { version } = JSON.parse(read("package.json")) as { version: string };
const PLURALS_CHANGED = "0.2.0";
const BEFORE = "0.1.0";

test("package.json and deno.json carry the same version, the one that changed the plurals", () => {
  assert.equal((JSON.parse(read("deno.json")) as { version: string }).version, version);
  assert.equal(version, PLURALS_CHANGED);
});

test("the README, the tarball's name and the start-up error say which release changed the plurals", () => {
  const readme = read("README.md");
  assert.match(readme, new RegExp(`### Upgrading from ${BEFORE}: irregular plurals`));
  assert.match(readme, new RegExp(`since ${PLURALS_CHANGED}, this version`));
  assert.match(readme, new RegExp(`mongorest-${version}\\.tgz`));
  assert.doesNotMatch(readme, /mongorest-(?!\d+\.\d+\.\d+\.tgz)|versions up to|Version 0\.1 /);
  for (const tarball of readme.matchAll(/mongorest-(\d+\.\d+\.\d+)\.tgz/g)) assert.equal(tarball[1], version);
  const message = read("src/store/former-collections.ts");
  assert.match(message, new RegExp(`the name mongorest ${BEFORE.replace(/\./g, "\\.")} \``));
  assert.match(message, new RegExp(`since ${PLURALS_CHANGED.replace(/\./g, "\\.")} its collection`));
});
