/**
 * The engine's port for tools (mongosh, Compass): TCP, and only after SCRAM-SHA-256 with its
 * one user, through the real driver, as against mongod. Without credentials a client gets the
 * handshake and MongoDB's Unauthorized (13) for anything else; a wrong password is
 * AuthenticationFailed (18). The app's own private socket needs no credential.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MongoClient, MongoServerError } from "mongodb";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";

const PASSWORD = "a tools password, long enough";

test("the tools port serves after SCRAM-SHA-256 and refuses everything else", async () => {
  const engine = await startEmbeddedEngine({ socket: "private", tools: { user: "admin", password: PASSWORD } });
  const { host, port } = engine.tools!;
  const url = (auth: string) => `mongodb://${auth}${host}:${port}/?directConnection=true&serverSelectionTimeoutMS=2000`;
  const own = new MongoClient(engine.uri);
  const tool = new MongoClient(url(`admin:${encodeURIComponent(PASSWORD)}@`));
  const anonymous = new MongoClient(url(""));
  const wrong = new MongoClient(url("admin:not-the-password@"));
  try {
    await own.db("app").collection("users").insertOne({ _id: 1, password: "hash" } as never);
    assert.deepEqual(await tool.db("app").collection("users").findOne({}), { _id: 1, password: "hash" });

    await assert.rejects(anonymous.db("app").collection("users").findOne({}), (error: MongoServerError) => {
      assert.equal(error.code, 13);
      assert.match(error.message, /requires authentication/);
      return true;
    });
    assert.deepEqual(await anonymous.db("admin").command({ ping: 1 }), { ok: 1 }, "the handshake stays open");
    await assert.rejects(wrong.db("app").command({ ping: 1 }), (error: Error) => {
      assert.match(error.message, /Authentication failed/);
      return true;
    });
  } finally {
    for (const client of [own, tool, anonymous, wrong]) await client.close();
    await engine.close();
  }
});

test("a tools port without a long enough password does not start", async () => {
  await assert.rejects(
    startEmbeddedEngine({ tools: { user: "admin", password: "short" } }),
    /needs a user and a password of at least 12 characters/,
  );
});

test("npx mongorest opens the tools port from MONGOREST_ENGINE_PORT, _USER and _PASSWORD; a missing one is one line", async () => {
  const { serveProject } = await import("../../src/cli.ts");
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), "mongorest-tools-"));
  const port = await freePort();
  const env = {
    PORT: "0",
    DATA_DIR: join(dataDir, "data"),
    MONGOREST_ENGINE_PORT: String(port),
    MONGOREST_ENGINE_USER: "ops",
    MONGOREST_ENGINE_PASSWORD: PASSWORD,
    LOG_LEVEL: "warn",
  };
  const project = await serveProject({ root, env });
  const tool = new MongoClient(
    `mongodb://ops:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/?directConnection=true`,
  );
  try {
    const created = await project.app.fetch(
      new Request("http://localhost/api/v1/users", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "t@example.com", name: "T", surname: "S", password: "p" }),
      }),
    );
    assert.equal(created.status, 201);
    const stored = await tool.db("app").collection("users").findOne({});
    assert.equal(stored?.email, "t@example.com", "mongosh and Compass see the app's data");
  } finally {
    await tool.close();
    await project.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  await assert.rejects(serveProject({ root, env: { ...env, MONGOREST_ENGINE_PASSWORD: "" } }), {
    name: "TypeError",
    message: "MONGOREST_ENGINE_PASSWORD must be set too, to open the engine to tools",
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
