/**
 * What another local user can do against a running app's engine: nothing. A second process
 * running as `nobody` cannot connect to the private socket, cannot read the data folder's
 * files, and cannot learn the lock's name (the key is unreadable). Needs root to start a process
 * as another user (CI runs as root); Node only, since it spawns `node` with a uid.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import { string } from "superstruct";
import { createApp, defineModel } from "../../src/mod.ts";

const run = promisify(execFile);
const NOBODY = 65_534;
const skip = "Deno" in globalThis
  ? "Node only: it spawns node as another user"
  : process.getuid?.() !== 0
  ? "needs root to run a process as another user"
  : false;

/** Runs `script` in node as `nobody` and returns what it printed. */
async function asNobody(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["-e", script], { uid: NOBODY, gid: NOBODY });
  return stdout.trim();
}

test("another user cannot reach the engine's socket or read its data folder", { skip }, async () => {
  const root = mkdtempSync(join(tmpdir(), "mongorest-other-"));
  const dataDir = join(root, "data");
  const app = await createApp({ models: [defineModel({ name: "Thing", fields: { secret: string() } })], dataDir });
  try {
    await app.db.collection("things").insertOne({ secret: "s3cret" });
    const socket = app.client.options.hosts[0].socketPath!;
    const connected = await asNobody(
      `require("node:net").connect({ path: ${JSON.stringify(socket)} })` +
        `.on("connect", () => { console.log("connected"); process.exit(0); })` +
        `.on("error", (e) => { console.log(e.code); process.exit(0); });`,
    );
    assert.equal(connected, "EACCES", `the socket in ${dirname(socket)}`);
    const read = await asNobody(
      `const fs = require("node:fs"); try { fs.readdirSync(${JSON.stringify(dataDir)}); console.log("listed"); }` +
        ` catch (e) { console.log(e.code); }`,
    );
    assert.equal(read, "EACCES", "the data folder");
  } finally {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  }
});
