import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { liveGroupMembers, type ServerProcess, startServer } from "../helpers/process.ts";

/** A parsed response body: any JSON shape, which the tests check field by field. */
// deno-lint-ignore no-explicit-any
type ResponseBody = any;

const root = new URL("../../", import.meta.url).pathname;
const runners: [string, string, string[]][] = [
  ["npm start", "npm", ["start"]],
  ["deno task start", join(root, "node_modules/.bin/deno"), ["task", "start"]],
];

async function get(
  base: string,
  path: string,
): Promise<{ status: number; body: ResponseBody; headers: Record<string, unknown> }> {
  const res = await request(base + path);
  return { status: res.statusCode, body: await res.body.json(), headers: res.headers };
}

/** Starts the server on a port the OS picks (PORT=0: no free-port race) and reads its URL from the log. */
async function start(
  command: string,
  args: string[],
  dataDir: string,
): Promise<{ server: ServerProcess; base: string }> {
  const server = await startServer(
    command,
    args,
    { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, NODE_ENV: "" },
    /Listening on http:\S+ /,
  );
  return { server, base: /Listening on (http:\S+) /.exec(server.output())![1] };
}

/** SIGTERM to the group; the server must log its graceful shutdown and the whole group must end. */
async function stop(server: ServerProcess): Promise<void> {
  server.signal("SIGTERM");
  await server.closed;
  assert.match(server.output(), /SIGTERM: finishing in-flight requests/);
  assert.match(server.output(), /Closed\./, server.output());
  assert.deepEqual(
    await liveGroupMembers(server.child.pid!),
    [],
    `processes of group ${server.child.pid} are left:\n${server.output()}`,
  );
}

for (const [name, command, args] of runners) {
  describe(`${name} over real sockets`, () => {
    const dirs: string[] = [];
    after(async () => {
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    test("serves the example models, shuts down on SIGTERM, and keeps its data", async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "e2e-"));
      dirs.push(dataDir);
      let { server, base } = await start(command, args, dataDir);
      try {
        for (const path of ["/api/v1/users", "/api/v1/posts", "/api/v1/comments"]) {
          const res = await get(base, path);
          assert.equal(res.status, 200, path);
          assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
          assert.equal(res.headers["content-language"], "en");
          assert.deepEqual(res.body.data, []);
        }
        const created = await request(`${base}/api/v1/users`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "ada@example.com", name: "Ada", surname: "Lovelace", password: "x" }),
        });
        assert.equal(created.statusCode, 201);
        assert.equal(((await created.body.json()) as { id: number }).id, 1);
        const invalid = await request(`${base}/api/v1/users`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        assert.equal(invalid.statusCode, 400);
        assert.ok(((await invalid.body.json()) as { errors: object }).errors);
      } finally {
        await stop(server);
      }
      ({ server, base } = await start(command, args, dataDir));
      try {
        const shown = await get(base, "/api/v1/users/1");
        assert.equal(shown.status, 200, "data survives a restart");
        assert.equal(shown.body.name, "Ada");
        // mongorest.config.ts is read: anonymous callers see public profile fields and change nothing.
        assert.equal("email" in shown.body, false);
        const removed = await request(`${base}/api/v1/users/1`, { method: "DELETE" });
        assert.equal(removed.statusCode, 401);
        await removed.body.dump();
      } finally {
        await stop(server);
      }
    });
  });
}
