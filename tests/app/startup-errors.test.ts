/**
 * What keeps a project from starting (a busy port, a data folder another engine holds, a
 * malformed or unreachable MONGODB_URI) is a StartupError naming what to change, and the
 * command prints it as one line, not a stack.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { serveProject } from "../../src/cli.ts";
import { StartupError } from "../../src/mod.ts";

/** A TCP port something else listens on, for as long as the test needs it held. */
async function heldPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const { port, server } = await heldPort();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What serveProject rejected with; fails the test when it started instead. */
async function refusal(env: Record<string, string>): Promise<Error> {
  const started = await serveProject({ root: ".", env: { HOST: "127.0.0.1", ...env } }).then(
    async (project) => {
      await project.stop();
      return undefined;
    },
    (error: Error) => error,
  );
  assert.ok(started, "the project started");
  return started;
}

describe("a project the environment keeps from starting", () => {
  const folders: string[] = [];
  const dataDir = async (): Promise<string> => {
    const folder = await mkdtemp(join(tmpdir(), "mongorest-startup-"));
    folders.push(folder);
    return folder;
  };
  after(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

  test("a busy port is a StartupError, and the data folder is let go for the next start", async () => {
    const { port, server } = await heldPort();
    const data = await dataDir();
    try {
      const error = await refusal({ PORT: String(port), DATA_DIR: data });
      assert.ok(error instanceof StartupError);
      assert.equal(
        error.message,
        `cannot listen on 127.0.0.1:${port}: the port is in use; stop what holds it or set PORT`,
      );
    } finally {
      server.close();
    }
    const project = await serveProject({ root: ".", env: { HOST: "127.0.0.1", PORT: "0", DATA_DIR: data } });
    await project.stop();
  });

  test("a data folder another engine holds is a StartupError that names the folder", async () => {
    const data = await dataDir();
    const first = await serveProject({ root: ".", env: { HOST: "127.0.0.1", PORT: "0", DATA_DIR: data } });
    try {
      const error = await refusal({ PORT: "0", DATA_DIR: data });
      assert.ok(error instanceof StartupError);
      assert.match(
        error.message,
        /^the embedded engine cannot start: Data directory \S+ is in use by another engine \(pid \d+\)\. Stop it or choose another DATA_DIR\.$/,
      );
    } finally {
      await first.stop();
    }
  });

  test("a malformed MONGODB_URI is a StartupError that says what a URI looks like", async () => {
    const error = await refusal({ PORT: "0", MONGODB_URI: "localhost:27017" });
    assert.ok(error instanceof StartupError);
    assert.equal(
      error.message,
      'the MongoDB URI or client options are not valid: Invalid scheme, expected connection string to start with "mongodb://" or "mongodb+srv://"',
    );
  });

  test("an unreachable MONGODB_URI is a StartupError naming the hosts, never the password", async () => {
    const port = await closedPort();
    const uri = `mongodb://ada:s3cret@127.0.0.1:${port}/shop?serverSelectionTimeoutMS=200`;
    const error = await refusal({ PORT: "0", MONGODB_URI: uri });
    assert.ok(error instanceof StartupError);
    assert.ok(error.message.startsWith(`cannot connect to MongoDB at mongodb://127.0.0.1:${port}: `), error.message);
    assert.doesNotMatch(error.message, /s3cret/);
  });

  test("the command prints the refusal as one line and exits with status 1", async () => {
    const { port, server } = await heldPort();
    try {
      // Under `deno test` process.execPath is deno, which runs main.ts as `deno task start` does.
      const runtime = "Deno" in globalThis ? ["run", "-A"] : ["--import", "tsx"];
      const child = spawn(process.execPath, [...runtime, "main.ts"], {
        env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: await dataDir() },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      assert.deepEqual([code, stderr], [
        1,
        `mongorest: cannot listen on 127.0.0.1:${port}: the port is in use; stop what holds it or set PORT\n`,
      ]);
    } finally {
      server.close();
    }
  });
});
