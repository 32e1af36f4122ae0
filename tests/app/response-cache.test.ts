import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { type CachedBody, ResponseCache } from "../../src/http/response-cache.ts";
import { call, jsonOf } from "../helpers/app.ts";

/** A kept body as text, or undefined when nothing is kept. */
function textOf(body: CachedBody | undefined): string | undefined {
  return body === undefined ? undefined : new TextDecoder().decode(body.bytes);
}

const Note = defineModel({ name: "Note", fields: { text: string() } });
const Audited = defineModel({ name: "Audited", fields: { text: string() } });

/** Counts the commands the app's driver sends while `run` runs. */
async function commandsDuring(app: App, run: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const listener = () => count++;
  app.client.on("commandStarted", listener);
  try {
    await run();
  } finally {
    app.client.off("commandStarted", listener);
  }
  return count;
}

describe("response cache on the embedded engine", () => {
  let app: App;
  before(async () => {
    app = await createApp({
      models: [Note, Audited],
      hooks: { Audited: { onBeforePaginate() {} } },
      clientOptions: { monitorCommands: true },
    });
    for (const text of ["a", "b"]) await call(app, "POST", "/api/v1/notes", { text });
  });
  after(() => app.close());

  test("a repeated GET is answered without the database, byte for byte", async () => {
    const first = await call(app, "GET", "/api/v1/notes?per_page=5");
    const firstBody = await first.text();
    let second: Response | undefined;
    assert.equal(
      await commandsDuring(app, async () => (second = await call(app, "GET", "/api/v1/notes?per_page=5"))),
      0,
    );
    assert.equal(await second!.text(), firstBody);
    assert.equal(second!.headers.get("etag"), first.headers.get("etag"));
    assert.equal(await commandsDuring(app, () => call(app, "GET", "/api/v1/notes/1")), 1);
    assert.equal(await commandsDuring(app, () => call(app, "GET", "/api/v1/notes/1")), 0);
  });

  test("any write, through the API or straight through the driver, is seen by the next GET", async () => {
    await call(app, "PATCH", "/api/v1/notes/1", { text: "changed" });
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/notes/1"))).body.text, "changed");
    await app.db.collection("notes").updateOne({ _id: 1 as never }, { $set: { text: "driver" } });
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/notes/1"))).body.text, "driver");
    await app.db.collection("notes").insertOne({ _id: 3 as never, text: "c" });
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/notes?per_page=5"))).body.pagination.total, 3);
  });

  test("If-None-Match is honoured on cached answers", async () => {
    const etag = (await call(app, "GET", "/api/v1/notes")).headers.get("etag")!;
    const again = await call(app, "GET", "/api/v1/notes", undefined, { "if-none-match": etag });
    assert.equal(again.status, 304);
  });

  test("errors are not cached, and models with hooks for the handler are never cached", async () => {
    assert.equal((await call(app, "GET", "/api/v1/notes?page=0")).status, 400);
    assert.equal((await call(app, "GET", "/api/v1/notes?page=0")).status, 400);
    await call(app, "GET", "/api/v1/auditeds");
    // The page is read again (its count is reused until auditeds is next written).
    assert.equal(await commandsDuring(app, () => call(app, "GET", "/api/v1/auditeds")), 1);
  });
});

describe("response cache switched off or bounded", () => {
  test("responseCache: false sends every GET to the database", async () => {
    const app = await createApp({ models: [Note], responseCache: false, clientOptions: { monitorCommands: true } });
    try {
      await call(app, "GET", "/api/v1/notes");
      // The page is read again; the count is reused until notes is next written.
      assert.equal(await commandsDuring(app, () => call(app, "GET", "/api/v1/notes")), 1);
    } finally {
      await app.close();
    }
  });

  test("a page larger than the driver's default first batch still costs exactly two commands", async () => {
    const Row = defineModel({ name: "Row", fields: { n: string() }, maxPerPage: 200 });
    const app = await createApp({ models: [Row], responseCache: false, clientOptions: { monitorCommands: true } });
    try {
      await app.db.collection("rows").insertMany(
        Array.from({ length: 150 }, (_, i) => ({ _id: i + 1, n: String(i) })) as never,
      );
      let rows = 0;
      const commands = await commandsDuring(
        app,
        async () => (rows = (await jsonOf(await call(app, "GET", "/api/v1/rows?per_page=150"))).body.data.length),
      );
      assert.deepEqual([rows, commands], [150, 2], "find and count, no getMore");
    } finally {
      await app.close();
    }
  });

  test("entries are dropped oldest first past the bounds, and a body made across a write is not kept", () => {
    let writes = 0;
    const cache = new ResponseCache({ total: () => writes, of: () => writes }, { maxEntries: 2, maxBytes: 1000 });
    cache.set("a", 0, ["notes"], "A", '"a"');
    cache.set("b", 0, ["notes"], "B", '"b"');
    cache.set("c", 0, ["notes"], "C", '"c"');
    assert.equal(cache.get("a"), undefined);
    assert.equal(textOf(cache.get("c")), "C");
    const before = cache.version();
    writes++;
    cache.set("d", before, ["notes"], "D", '"d"');
    assert.equal(cache.get("d"), undefined, "queries that began before a write must not be kept");
    assert.equal(cache.get("c"), undefined, "a write to the collection a body was read from invalidates it");
  });

  test("a body is kept as its UTF-8 bytes, and bounded by them, not by its characters", () => {
    const cache = new ResponseCache({ total: () => 0, of: () => 0 }, { maxEntries: 10, maxBytes: 40 });
    assert.equal(cache.set("ascii", 0, ["notes"], "abcdefghij", '"a"'), true, "10 bytes: a quarter of 40");
    assert.deepEqual([...cache.get("ascii")!.bytes], [...new TextEncoder().encode("abcdefghij")]);
    assert.equal(cache.set("euros", 0, ["notes"], "€€€€", '"e"'), false, "4 characters, but 12 bytes");
    assert.equal(cache.get("euros"), undefined);
    assert.equal(cache.set("accents", 0, ["notes"], "ééééé", '"e"'), true, "5 characters, 10 bytes");
    assert.equal(textOf(cache.get("accents")), "ééééé");
  });

  test("an entry is evicted only by writes to the collections it was read from", () => {
    const counts = new Map<string, number>([["users", 0], ["posts", 0], ["comments", 0]]);
    const write = (collection: string) => counts.set(collection, counts.get(collection)! + 1);
    const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
    const cache = new ResponseCache({ total, of: (collection) => counts.get(collection) ?? 0 });
    cache.set("users", cache.version(), ["users"], "U", '"u"');
    cache.set("users+posts", cache.version(), ["users", "posts"], "UP", '"up"');
    write("comments");
    assert.equal(textOf(cache.get("users")), "U");
    assert.equal(textOf(cache.get("users+posts")), "UP");
    write("posts");
    assert.equal(textOf(cache.get("users")), "U", "a write to posts leaves a users-only body alone");
    assert.equal(cache.get("users+posts"), undefined, "but evicts a body that read posts through with");
  });
});
