import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, CommandSucceededEvent, Document } from "mongodb";
import { string } from "superstruct";
import { type App, createApp, defineHooks, defineModel, id } from "../../src/mod.ts";
import { Comment, Post, User } from "../fixtures/blog.ts";
import { call, jsonOf } from "../helpers/app.ts";

/** What the driver sent and got back while one request ran: command names, and each reply's first batch size. */
interface Seen {
  commands: string[];
  returned: number[];
}

function watch(app: App): { seen: Seen; reset(): void; stop(): void } {
  const seen: Seen = { commands: [], returned: [] };
  const started = (event: CommandStartedEvent) =>
    void seen.commands.push(`${event.commandName} ${collectionOf(event)}`);
  const succeeded = (event: CommandSucceededEvent) => {
    const batch = (event.reply as Document)?.cursor?.firstBatch;
    if (Array.isArray(batch)) seen.returned.push(batch.length);
  };
  app.client.on("commandStarted", started);
  app.client.on("commandSucceeded", succeeded);
  return {
    seen,
    reset() {
      seen.commands.length = 0;
      seen.returned.length = 0;
    },
    stop() {
      app.client.off("commandStarted", started);
      app.client.off("commandSucceeded", succeeded);
    },
  };
}

function collectionOf(event: CommandStartedEvent): string {
  return String(event.command[event.commandName]);
}

const KIB64 = "x".repeat(64 * 1024);

// The attack, as it happens: a hundred 64 KiB posts by one user, then a list of posts
// that carries that user, with every one of the user's posts, under every post of the page.
describe("relation fan-out is bounded by the response's budget, before anything is serialised", () => {
  let app: App;
  let watcher: ReturnType<typeof watch>;

  before(async () => {
    app = await createApp({
      models: [User, Post, Comment],
      responseCache: false,
      clientOptions: { monitorCommands: true },
    });
    const now = new Date();
    await app.db.collection("users").insertOne(
      { _id: 1, email: "a@b.co", name: "A", surname: "B", created_at: now, updated_at: now, _rev: 1 } as Document,
    );
    await app.db.collection("posts").insertMany(
      Array.from(
        { length: 100 },
        (_, i) =>
          ({
            _id: i + 1,
            user_id: 1,
            title: `p${i}`,
            body: KIB64,
            created_at: now,
            updated_at: now,
            _rev: 1,
          }) as Document,
      ),
    );
    watcher = watch(app);
  });
  after(async () => {
    watcher.stop();
    await app.close();
  });

  test("with=user{posts} under 80 posts is a 400 that says how to ask for less, and no level is read past it", async () => {
    watcher.reset();
    const { status, body } = await jsonOf(
      await call(app, "GET", "/api/v1/posts?per_page=80&count=none&with=user{posts}"),
    );
    assert.equal(status, 400);
    assert.equal(
      body.error,
      "The response would be larger than the limit of 16777216 bytes; ask for less: a smaller per_page, fewer fields (fields=, or inside the braces of with), or fewer relations in with.",
    );
    // The page, its users, the users' posts: one read each, and nothing after the level that broke the budget.
    assert.deepEqual(watcher.seen.commands, ["find posts", "find users", "aggregate users"]);
  });

  test("HEAD is refused the same way, doing no more work than GET", async () => {
    watcher.reset();
    const response = await call(app, "HEAD", "/api/v1/posts?per_page=80&count=none&with=user{posts}");
    assert.equal(response.status, 400);
    assert.equal(await response.text(), "");
    assert.deepEqual(watcher.seen.commands, ["find posts", "find users", "aggregate users"]);
  });

  test("the same read with fewer fields in the braces fits", async () => {
    const { status, body } = await jsonOf(
      await call(app, "GET", "/api/v1/posts?per_page=80&count=none&fields=id&with=user{posts{title}}"),
    );
    assert.equal(status, 200);
    assert.equal(body.data.length, 80);
    assert.equal(body.data[79].user.posts.length, 100);
  });
});

describe("related records are counted as often as they are written out", () => {
  let app: App;
  let watcher: ReturnType<typeof watch>;

  before(async () => {
    app = await createApp({
      models: [User, Post, Comment],
      responseCache: false,
      clientOptions: { monitorCommands: true },
    });
    const now = new Date();
    const stamp = { created_at: now, updated_at: now, _rev: 1 };
    await app.db.collection("users").insertOne(
      { _id: 3, email: "c@b.co", name: "C", surname: "D", ...stamp } as Document,
    );
    await app.db.collection("posts").insertMany(
      Array.from({ length: 100 }, (_, i) => ({ _id: i + 1, user_id: 3, title: `p${i}`, ...stamp }) as Document),
    );
    await app.db.collection("comments").insertMany(
      Array.from(
        { length: 2000 },
        (_, i) => ({ _id: i + 1, post_id: (i % 100) + 1, content: "c", ...stamp }) as Document,
      ),
    );
    watcher = watch(app);
  });
  after(async () => {
    watcher.stop();
    await app.close();
  });

  test("10 posts × their user × 100 posts × 20 comments is over 10,000 related records: a 400", async () => {
    watcher.reset();
    const res = await jsonOf(await call(app, "GET", '/api/v1/posts?q={"user_id":3}&with=user{posts{comments}}'));
    assert.equal(res.status, 400);
    assert.equal(
      res.body.error,
      "The response would carry more than 10000 related records through with; ask for less: a smaller per_page, fewer or shallower relations in with.",
    );
    // Every post of the user is written out ten times (once under each post of the page), so the
    // comments level has room for (10,000 − 10 − 1,000) / 10 of its records: it reads one more, no further.
    const comments = watcher.seen.commands.indexOf("aggregate posts");
    assert.ok(comments >= 0, watcher.seen.commands.join(", "));
    assert.deepEqual(watcher.seen.returned.slice(-1), [900]);
  });

  test("a budget set lower in limits is what is enforced", async () => {
    const small = await createApp({
      models: [User, Post, Comment],
      uri: undefined,
      limits: { maxRelatedRecords: 10 },
      responseCache: false,
    });
    try {
      await small.db.collection("users").insertOne({ _id: 1, email: "x@y.co", name: "X", surname: "Y" } as Document);
      await small.db.collection("posts").insertMany(
        Array.from({ length: 11 }, (_, i) => ({ _id: i + 1, user_id: 1, title: `t${i}` }) as Document),
      );
      assert.equal((await call(small, "GET", "/api/v1/users/1?with=posts")).status, 400);
      assert.equal((await call(small, "GET", "/api/v1/posts?per_page=10&with=user")).status, 200, "10 copies fit");
      assert.equal((await call(small, "GET", "/api/v1/posts?per_page=11&with=user")).status, 400, "11 do not");
    } finally {
      await small.close();
    }
  });
});

describe("a client that has gone away stops the reads that were only for it", () => {
  const Shelf = defineModel({
    name: "Shelf",
    fields: { name: string() },
    relations: { books: { type: "hasMany", model: "Book", foreignKey: "shelf_id" } },
  });
  const Book = defineModel({
    name: "Book",
    fields: { shelf_id: id(), title: string() },
    relations: { pages: { type: "hasMany", model: "Leaf", foreignKey: "book_id" } },
  });
  const Leaf = defineModel({ name: "Leaf", fields: { book_id: id(), text: string() } });
  let app: App;
  let watcher: ReturnType<typeof watch>;
  const leaving = new AbortController();

  before(async () => {
    app = await createApp({
      models: [Shelf, Book, Leaf],
      // The client leaves while the books are being read: the pages are never asked for.
      hooks: { Book: defineHooks({ onBeforeRelation: () => leaving.abort() }) },
      clientOptions: { monitorCommands: true },
    });
    await app.db.collection("shelves").insertOne({ _id: 1, name: "s" } as Document);
    await app.db.collection("books").insertOne({ _id: 1, shelf_id: 1, title: "b" } as Document);
    await app.db.collection("leaves").insertOne({ _id: 1, book_id: 1, text: "l" } as Document);
    watcher = watch(app);
  });
  after(async () => {
    watcher.stop();
    await app.close();
  });

  test("the next level is not read, and the answer (which nobody receives) is 499", async () => {
    watcher.reset();
    const request = new Request("http://localhost/api/v1/shelves/1?with=books{pages}", { signal: leaving.signal });
    const response = await app.fetch(request);
    assert.equal(response.status, 499);
    assert.deepEqual(watcher.seen.commands, ["find shelves", "aggregate books"]);
  });
});

describe("the response's size is measured as it is written", () => {
  const Note = defineModel({ name: "Note", fields: { text: string() } });
  let app: App;

  before(async () => {
    app = await createApp({ models: [Note], limits: { maxResponseBytes: 4096 } });
    await app.db.collection("notes").insertMany(
      Array.from({ length: 10 }, (_, i) => ({ _id: i + 1, text: "é".repeat(400 + i) }) as Document),
    );
  });
  after(async () => await app.close());

  test("a page over the ceiling is a 400 naming it; a smaller page is served", async () => {
    const over = await jsonOf(await call(app, "GET", "/api/v1/notes?per_page=10"));
    assert.equal(over.status, 400);
    assert.match(over.body.error, /^The response would be larger than the limit of 4096 bytes; ask for less/);
    const fits = await call(app, "GET", "/api/v1/notes?per_page=2");
    assert.equal(fits.status, 200);
    assert.ok(new TextEncoder().encode(await fits.text()).byteLength <= 4096);
  });

  test("the ceiling counts UTF-8 bytes: 5 records of 400 é are 2,000 characters but over 4,000 bytes", async () => {
    assert.equal((await call(app, "GET", "/api/v1/notes?per_page=5&fields=text")).status, 400);
    assert.equal((await call(app, "GET", "/api/v1/notes?per_page=4&fields=text")).status, 200);
  });
});
