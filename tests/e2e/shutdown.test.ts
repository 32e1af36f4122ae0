import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { startServer } from "../helpers/process.ts";

const root = new URL("../../", import.meta.url).pathname;
const runtimes: [string, string, string[]][] = [
  ["node", process.execPath, ["--import", "tsx", "main.ts"]],
  ["deno", join(root, "node_modules/.bin/deno"), ["run", "-A", "main.ts"]],
];

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

function closed(socket: Socket): Promise<void> {
  socket.on("error", () => {});
  socket.resume();
  return new Promise((resolve) => socket.once("close", () => resolve()));
}

for (const [name, command, args] of runtimes) {
  describe(`main.ts on ${name}: shutdown`, () => {
    const dirs: string[] = [];
    after(async () => {
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    test("SIGTERM ends after pipelined requests from a client that left, and cuts a stalled upload at the deadline", {
      timeout: 120_000,
    }, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "shutdown-"));
      dirs.push(dataDir);
      // PORT=0: the server picks a free port and prints it, so no other process can take it first.
      const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, NODE_ENV: "", SHUTDOWN_TIMEOUT_MS: "200" };
      const server = await startServer(command, args, env, /Listening on http:\/\/[\d.]+:\d+/);
      const port = Number(/Listening on http:\/\/[\d.]+:(\d+)/.exec(server.output())![1]);
      try {
        // Three pipelined pages, then a half-close: the server answers and closes.
        const pipelined = await open(port);
        const pipelinedClosed = closed(pipelined);
        pipelined.end([1, 2, 3].map((page) => `GET /api/v1/users?page=${page} HTTP/1.1\r\nHost: a\r\n\r\n`).join(""));
        await pipelinedClosed;
        // An upload that stalls after a few bytes; a round trip on another connection lets it arrive first.
        const stalled = await open(port);
        const stalledClosed = closed(stalled);
        stalled.write(
          'POST /api/v1/users HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na',
        );
        assert.equal((await request(`http://127.0.0.1:${port}/api/v1/users`)).statusCode, 200);
        server.signal("SIGTERM");
        const exit = await server.closed;
        await stalledClosed;
        const output = server.output();
        assert.equal(exit.code, 0, output);
        assert.match(output, /SIGTERM: finishing in-flight requests/);
        assert.match(
          output,
          /Shutdown deadline of 200 ms passed: cutting 1 unfinished request\(s\): POST \/api\/v1\/users\n/,
          output,
        );
        assert.match(output, /Closed\./);
        assert.doesNotMatch(output, /MongoClientClosedError|GET \/api\/v1\/users\?page/, output);
      } finally {
        if (server.child.exitCode === null) server.signal("SIGKILL");
      }
    });
  });
}
