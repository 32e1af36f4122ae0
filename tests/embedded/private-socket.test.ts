/**
 * The app starts the embedded engine on a Unix socket in a folder only its user may enter
 * (0700), never on a TCP port: another local user cannot connect to it, read hidden fields or
 * drop the database. The folder goes when the app closes. On the engine's own thread and in
 * the app's thread alike.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { string } from "superstruct";
import { createApp, defineModel } from "../../src/mod.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { MongoClient } from "mongodb";

const Thing = defineModel({ name: "Thing", fields: { name: string() } });

for (const engineThread of [true, false]) {
  test(`engineThread: ${engineThread}: the engine listens on a private Unix socket, removed on close`, async () => {
    const app = await createApp({ models: [Thing], engineThread });
    const [host] = app.client.options.hosts;
    const socket = host.socketPath ?? "";
    assert.ok(socket.endsWith("engine.sock"), `a Unix socket, not ${host.toString()}`);
    assert.equal(host.port, undefined, "no TCP port");
    assert.equal(statSync(dirname(socket)).mode & 0o777, 0o700, "only this user may enter its folder");
    const res = await app.fetch(new Request("http://localhost/api/v1/things"));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await app.close();
    assert.equal(existsSync(dirname(socket)), false, "the folder goes with the engine");
  });
}

test("startEmbeddedEngine with socket private answers the driver on a socket with no TCP port", async () => {
  const engine = await startEmbeddedEngine({ socket: "private" });
  const client = new MongoClient(engine.uri);
  try {
    assert.equal(engine.port, 0);
    assert.match(engine.uri, /^mongodb:\/\/%2F.*engine\.sock\/\?directConnection=true$/);
    assert.deepEqual(await client.db("x").command({ ping: 1 }), { ok: 1 });
  } finally {
    await client.close();
    await engine.close();
  }
});

test("a data folder the engine creates is 0700 and its journal 0600: other users cannot read the data", async () => {
  const root = mkdtempSync(join(tmpdir(), "mongorest-mode-"));
  const dataDir = join(root, "data");
  const engine = await startEmbeddedEngine({ dataDir });
  const client = new MongoClient(engine.uri);
  try {
    await client.db("x").collection("c").insertOne({ secret: "s" });
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    for (const name of readdirSync(dataDir)) {
      const mode = statSync(join(dataDir, name)).mode & 0o777;
      assert.equal(mode & 0o077, 0, `${name} is ${mode.toString(8)}`);
    }
  } finally {
    await client.close();
    await engine.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test("a data folder inside /proc or /sys is refused at once, naming it, instead of hanging", async () => {
  for (const dataDir of ["/proc/mongodata", "/sys/kernel/mongodata/deeper"]) {
    await assert.rejects(startEmbeddedEngine({ dataDir }), (error: Error) => {
      assert.match(error.message, new RegExp(`^Data directory ${dataDir} is inside /(proc|sys), a pseudo file system`));
      return true;
    });
  }
});

test("a data folder others may enter is refused with one line saying how to close it, unless allowed", async () => {
  const root = mkdtempSync(join(tmpdir(), "mongorest-open-"));
  const dataDir = join(root, "data");
  try {
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    await assert.rejects(
      startEmbeddedEngine({ dataDir }),
      new RegExp(`^Error: Data directory ${dataDir} is open to other users \\(mode 755\\): run chmod 700`),
    );
    process.env.MONGOREST_ALLOW_OPEN_DATA_DIR = "1";
    const engine = await startEmbeddedEngine({ dataDir });
    await engine.close();
  } finally {
    delete process.env.MONGOREST_ALLOW_OPEN_DATA_DIR;
    rmSync(root, { recursive: true, force: true });
  }
});

test("the data-folder lock's name needs a key only the folder's owner can read", async () => {
  const root = mkdtempSync(join(tmpdir(), "mongorest-lock-"));
  const dataDir = join(root, "data");
  try {
    const engine = await startEmbeddedEngine({ dataDir });
    await engine.close();
    const key = join(dataDir, "engine.lock-key");
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.match(readFileSync(key, "utf8"), /^[0-9a-f]{64}$/);
    // The same key next time: the lock stays one name for the folder, across restarts.
    const again = await startEmbeddedEngine({ dataDir });
    await assert.rejects(startEmbeddedEngine({ dataDir }), /is in use by another engine/);
    await again.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a data folder that cannot be created is one line saying why", async () => {
  const root = mkdtempSync(join(tmpdir(), "mongorest-file-"));
  const file = join(root, "plain-file");
  try {
    writeFileSync(file, "not a folder");
    await assert.rejects(
      startEmbeddedEngine({ dataDir: join(file, "data") }),
      /^Error: Data directory .*plain-file\/data cannot be created \(ENOTDIR: a part of the path is a file, not a folder\); choose another DATA_DIR\.$/,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
