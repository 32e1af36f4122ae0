import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent } from "mongodb";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, seedUsers } from "../helpers/app.ts";

// Every parameter is parsed and checked before the first database command: the driver's
// command monitoring shows that a request with a bad parameter sends nothing at all.
describe("a bad parameter sends no database command", () => {
  let app: App;
  let commands: string[] = [];
  const listen = (event: CommandStartedEvent): void => void commands.push(event.commandName);

  before(async () => {
    app = await exampleApp({ clientOptions: { monitorCommands: true }, responseCache: false });
    await seedUsers(app, 2);
    app.client.on("commandStarted", listen);
  });
  after(async () => {
    app.client.off("commandStarted", listen);
    await app.close();
  });

  async function commandsFor(path: string): Promise<{ status: number; commands: string[] }> {
    commands = [];
    const response = await call(app, "GET", path);
    await response.arrayBuffer();
    return { status: response.status, commands };
  }

  test("a good request is seen (the counter works)", async () => {
    const seen = await commandsFor("/api/v1/users/1/posts");
    assert.equal(seen.status, 200);
    assert.ok(seen.commands.includes("find"), `commands: ${seen.commands.join(", ")}`);
  });

  const bad: [string, number][] = [
    ["/api/v1/users/999/posts?q={bad", 400], // the parent does not exist, but the query is checked first
    ["/api/v1/users/1/posts?q={bad", 400],
    ["/api/v1/users/999/posts?page=0", 400],
    ["/api/v1/users/999/posts?per_page=1000", 400],
    ["/api/v1/users/999/posts?fields=nope", 400],
    ["/api/v1/users/999/posts?with=nope", 400],
    ["/api/v1/users/999/posts?sort=nope", 400],
    ["/api/v1/users/999/posts?trashed=maybe", 400],
    ["/api/v1/users/999/posts?page=1&page=2", 400],
    ["/api/v1/users/abc/posts", 404],
    ["/api/v1/users?q={bad", 400],
    ["/api/v1/users?trashed=maybe", 400],
    ["/api/v1/users/1?fields=nope", 400],
    ["/api/v1/users/1?with=nope", 400],
    ["/api/v1/users/1?trashed=maybe", 400],
    ["/api/v1/users/0", 404],
  ];
  for (const [path, status] of bad) {
    test(`GET ${path} answers ${status} and sends no command`, async () => {
      assert.deepEqual(await commandsFor(path), { status, commands: [] });
    });
  }
});
