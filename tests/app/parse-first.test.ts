import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent } from "mongodb";
import type { App } from "../../src/mod.ts";
import { QueryParams } from "../../src/http/params.ts";
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

  /** A cursor the users list really issued (per_page=1 over two users has a next page). */
  async function nextCursor(): Promise<string> {
    const response = await call(app, "GET", "/api/v1/users?per_page=1");
    const cursor = (await response.json()).pagination.next;
    assert.equal(typeof cursor, "string", "the list issues a next cursor");
    return encodeURIComponent(cursor);
  }

  test("a good cursor request is seen (the cursor is valid)", async () => {
    const seen = await commandsFor(`/api/v1/users?cursor=${await nextCursor()}`);
    assert.equal(seen.status, 200);
    assert.ok(seen.commands.includes("find"), `commands: ${seen.commands.join(", ")}`);
  });

  // Each cursor is opened (its signature checked) and compared with the request before any command.
  const badCursor: [string, (cursor: string) => string][] = [
    ["a malformed cursor", () => "/api/v1/users?cursor=not-a-cursor"],
    ["an empty cursor", () => "/api/v1/users?cursor="],
    [
      "an altered cursor",
      (cursor) => `/api/v1/users?cursor=${cursor.replace(/.(?=.{6}$)/, (c) => (c === "A" ? "B" : "A"))}`,
    ],
    ["a cursor with page", (cursor) => `/api/v1/users?cursor=${cursor}&page=2`],
    ["a cursor with another sort", (cursor) => `/api/v1/users?cursor=${cursor}&sort=name`],
    ["a cursor with another per_page", (cursor) => `/api/v1/users?cursor=${cursor}&per_page=7`],
    ["a cursor of another list", (cursor) => `/api/v1/users/1/posts?cursor=${cursor}`],
    ["a cursor under a missing parent", () => "/api/v1/users/999/posts?cursor=not-a-cursor"],
    ["a repeated cursor", (cursor) => `/api/v1/users?cursor=${cursor}&cursor=${cursor}`],
    ["a cursor with a bad count", (cursor) => `/api/v1/users?cursor=${cursor}&count=maybe`],
  ];
  for (const [what, path] of badCursor) {
    test(`${what} answers 400 and sends no command`, async () => {
      const url = path(await nextCursor());
      const seen = await commandsFor(url);
      assert.deepEqual(seen, { status: 400, commands: [] }, url);
    });
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
    ["/api/v1/users/999/posts?count=maybe", 400],
    ["/api/v1/users/999/posts?count=", 400],
    ["/api/v1/users?count=exactly", 400],
    ["/api/v1/users?count=none&count=exact", 400],
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

// The parse step is one pass over the request: one QueryParams over the URL, its query string split
// once, and every parameter read before the first database command. The spies wrap the prototype
// and the global from the test (nothing in production), and only around one request.
describe("each list and show request is parsed once, before the first command", () => {
  let app: App;
  let events: string[] = [];
  const listen = (event: CommandStartedEvent): void => void events.push(`command:${event.commandName}`);

  before(async () => {
    app = await exampleApp({ clientOptions: { monitorCommands: true }, responseCache: false });
    await seedUsers(app, 2);
    app.client.on("commandStarted", listen);
  });
  after(async () => {
    app.client.off("commandStarted", listen);
    await app.close();
  });

  interface Parse {
    status: number;
    /** QueryParams objects the request was read through. */
    sources: number;
    /** Query strings split (URLSearchParams built). */
    splits: number;
    /** Parameter names read before the first database command. */
    before: Set<string>;
    /** Parameter names read after it. */
    after: Set<string>;
    commands: number;
  }

  async function parseOf(path: string): Promise<Parse> {
    const sources = new Set<QueryParams>();
    const originalGet = QueryParams.prototype.get;
    const OriginalSearchParams = globalThis.URLSearchParams;
    let splits = 0;
    events = [];
    QueryParams.prototype.get = function (this: QueryParams, name: string): string | null {
      sources.add(this);
      events.push(`read:${name}`);
      return originalGet.call(this, name);
    };
    globalThis.URLSearchParams = class extends OriginalSearchParams {
      constructor(...args: ConstructorParameters<typeof URLSearchParams>) {
        super(...args);
        splits++;
      }
    };
    let status: number;
    try {
      const response = await call(app, "GET", path);
      await response.arrayBuffer();
      status = response.status;
    } finally {
      QueryParams.prototype.get = originalGet;
      globalThis.URLSearchParams = OriginalSearchParams;
    }
    const first = events.findIndex((event) => event.startsWith("command:"));
    const names = (list: string[]) => new Set(list.filter((e) => e.startsWith("read:")).map((e) => e.slice(5)));
    return {
      status,
      sources: sources.size,
      splits,
      before: names(first === -1 ? events : events.slice(0, first)),
      after: names(first === -1 ? [] : events.slice(first)),
      commands: events.filter((event) => event.startsWith("command:")).length,
    };
  }

  const LIST = ["cursor", "page", "per_page", "count", "fields", "with", "q", "sort", "trashed"];
  const SHOW = ["fields", "with", "trashed"];

  function assertParsedOnce(seen: Parse, expected: string[], path: string): void {
    assert.equal(seen.status, 200, path);
    assert.ok(seen.commands > 0, `${path}: the request reaches the database`);
    assert.equal(seen.sources, 1, `${path}: read through one QueryParams`);
    assert.equal(seen.splits, 1, `${path}: its query string split once`);
    assert.deepEqual(
      [...seen.before].sort(),
      [...expected].sort(),
      `${path}: every parameter read before the first command`,
    );
    for (const name of seen.after) {
      assert.ok(seen.before.has(name), `${path}: ${name} first read after a database command`);
    }
  }

  const lists = [
    "/api/v1/users",
    "/api/v1/users?page=1&per_page=1&count=exact&fields=name&with=posts&q=%7B%22id.%24gte%22%3A1%7D&sort=-id&trashed=false",
    "/api/v1/users/1/posts?per_page=2&fields=title",
  ];
  for (const path of lists) {
    test(`GET ${path} is parsed once`, async () => assertParsedOnce(await parseOf(path), LIST, path));
  }

  test("a list read by cursor is parsed once", async () => {
    const first = await call(app, "GET", "/api/v1/users?per_page=1&sort=-id");
    const path = `/api/v1/users?cursor=${encodeURIComponent((await first.json()).pagination.next)}&sort=-id`;
    // `page` is read to refuse it beside a cursor; the pinned ones come from the cursor.
    assertParsedOnce(await parseOf(path), LIST, path);
  });

  for (const path of ["/api/v1/users/1", "/api/v1/users/2?fields=name,email&with=posts&trashed=false"]) {
    test(`GET ${path} is parsed once`, async () => assertParsedOnce(await parseOf(path), SHOW, path));
  }
});
