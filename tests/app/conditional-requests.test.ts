/**
 * Conditional requests where hooks reshape responses, and the write preconditions of RFC 9110:
 * If-Match still works when an after-hook changes the body, If-None-Match guards writes too,
 * and a 304 repeats the caching headers its 200 carried.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { optional, string } from "superstruct";
import { type App, createApp, defineHooks, defineModel } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Note = defineModel({ name: "Note", fields: { title: string(), secret: optional(string()) }, hidden: ["secret"] });

/** After-hooks on every verb add a field, as an app adding `viewed` or `can_edit` would. */
const reshaping = defineHooks({
  onAfterShow(ctx) {
    ctx.result = { ...ctx.result, viewed: true };
    ctx.headers.set("cache-control", "private, max-age=60");
    ctx.headers.set("vary", "Authorization");
  },
  onAfterInsert(ctx) {
    ctx.result = { ...ctx.result, created: true };
  },
  onAfterUpdate(ctx) {
    ctx.result = { ...ctx.result, replaced: true };
  },
  onAfterPatch(ctx) {
    ctx.result = { ...ctx.result, patched: true };
  },
  onAfterPaginate(ctx) {
    ctx.headers.set("cache-control", "private");
    ctx.headers.set("vary", "Authorization");
  },
});

describe("conditional requests on a model whose after-hooks reshape the body", () => {
  let app: App;
  before(async () => {
    app = await createApp({ models: [Note], hooks: { Note: reshaping } });
    for (const title of ["a", "b", "c"]) await call(app, "POST", "/api/v1/notes", { title, secret: "s" });
  });
  after(() => app.close());

  test("If-Match takes the ETag a hooked SHOW sent, and a stale one is still 412", async () => {
    const shown = await call(app, "GET", "/api/v1/notes/1");
    assert.equal((await shown.json()).viewed, true);
    const etag = shown.headers.get("etag")!;
    const patched = await call(app, "PATCH", "/api/v1/notes/1", { title: "a2" }, { "if-match": etag });
    assert.deepEqual([patched.status, (await patched.json()).title], [200, "a2"]);
    const stale = await jsonOf(await call(app, "PATCH", "/api/v1/notes/1", { title: "a3" }, { "if-match": etag }));
    assert.equal(stale.status, 412);
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/notes/1"))).body.title, "a2");
  });

  test("If-Match takes the ETag of the last hooked write, whichever verb wrote", async () => {
    let etag = (await call(app, "POST", "/api/v1/notes", { title: "d" })).headers.get("etag")!;
    const id = 4;
    for (const [method, body] of [["PATCH", { title: "d2" }], ["PUT", { title: "d3" }], ["PATCH", { title: "d4" }]]) {
      const written = await call(app, method as string, `/api/v1/notes/${id}`, body, { "if-match": etag });
      assert.equal(written.status, 200, `${method} with the previous write's ETag`);
      etag = written.headers.get("etag")!;
    }
    assert.equal((await call(app, "DELETE", `/api/v1/notes/${id}`, undefined, { "if-match": etag })).status, 204);
  });

  test("the 304 of a hooked SHOW still follows the body the hook sent", async () => {
    const etag = (await call(app, "GET", "/api/v1/notes/2")).headers.get("etag")!;
    const again = await call(app, "GET", "/api/v1/notes/2", undefined, { "if-none-match": etag });
    assert.equal(again.status, 304);
    await call(app, "PATCH", "/api/v1/notes/2", { title: "b2" });
    const changed = await call(app, "GET", "/api/v1/notes/2", undefined, { "if-none-match": etag });
    assert.equal(changed.status, 200);
  });

  test("a 304 repeats the Cache-Control and Vary a hook gave the 200 (RFC 9110 15.4.5)", async () => {
    for (const path of ["/api/v1/notes/3", "/api/v1/notes?per_page=2"]) {
      const first = await call(app, "GET", path);
      const again = await call(app, "GET", path, undefined, { "if-none-match": first.headers.get("etag")! });
      assert.equal(again.status, 304, path);
      assert.deepEqual(
        [again.headers.get("cache-control"), again.headers.get("vary")],
        [first.headers.get("cache-control"), first.headers.get("vary")],
        path,
      );
      assert.ok(again.headers.get("cache-control"), path);
    }
  });
});

describe("If-None-Match on writes", () => {
  let app: App;
  before(async () => {
    app = await createApp({ models: [Note] });
    for (const title of ["a", "b", "c"]) await call(app, "POST", "/api/v1/notes", { title });
  });
  after(() => app.close());

  const unchanged = "The item is still in the version If-None-Match names (or If-None-Match is *, and it exists): " +
    "nothing was written.";

  test("`If-None-Match: *` refuses PUT, PATCH and DELETE of a record that exists, and nothing is written", async () => {
    for (const [method, body] of [["PUT", { title: "x" }], ["PATCH", { title: "x" }], ["DELETE", undefined]]) {
      const refused = await jsonOf(
        await call(app, method as string, "/api/v1/notes/1", body, { "if-none-match": "*" }),
      );
      assert.deepEqual(refused, { status: 412, body: { error: unchanged } }, method as string);
    }
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/notes/1"))).body.title, "a");
  });

  test("a write naming the current ETag (weak or strong) in If-None-Match is 412; another ETag writes", async () => {
    const etag = (await call(app, "GET", "/api/v1/notes/2")).headers.get("etag")!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const refused = await call(app, "PATCH", "/api/v1/notes/2", { title: "x" }, { "if-none-match": header });
      assert.equal(refused.status, 412, header);
    }
    const written = await call(app, "PATCH", "/api/v1/notes/2", { title: "b2" }, { "if-none-match": '"other"' });
    assert.deepEqual([written.status, (await written.json()).title], [200, "b2"]);
  });

  test("If-Match is checked first: a stale If-Match is the If-Match 412 whatever If-None-Match says", async () => {
    const refused = await jsonOf(
      await call(app, "PATCH", "/api/v1/notes/3", { title: "x" }, {
        "if-match": '"stale"',
        "if-none-match": '"other"',
      }),
    );
    assert.deepEqual(refused, {
      status: 412,
      body: { error: "The item has changed: If-Match does not match its current ETag." },
    });
  });
});

describe("If-Match on GET and HEAD (RFC 9110 13.1.1)", () => {
  const changed = { error: "The item has changed: If-Match does not match its current ETag." };
  // With the response cache (the default on the embedded engine) and without it, hooked and plain.
  const setups = [
    ["cached", { models: [Note] }],
    ["uncached", { models: [Note], responseCache: false }],
    ["hooked", { models: [Note], hooks: { Note: reshaping } }],
  ] as const;

  for (const [label, options] of setups) {
    test(`${label}: a stale If-Match is 412 on SHOW and the list; the current one, a list of tags or * is 200`, async () => {
      const app = await createApp(options);
      try {
        await call(app, "POST", "/api/v1/notes", { title: "a" });
        for (const path of ["/api/v1/notes/1", "/api/v1/notes?per_page=5"]) {
          // Twice: a cached app answers the second from its cache.
          for (let round = 0; round < 2; round++) {
            const etag = (await call(app, "GET", path)).headers.get("etag")!;
            for (const header of [etag, `"other", ${etag}`, "*"]) {
              assert.equal((await call(app, "GET", path, undefined, { "if-match": header })).status, 200, header);
            }
            for (const header of ['"stale"', `W/${etag}`]) {
              const refused = await jsonOf(await call(app, "GET", path, undefined, { "if-match": header }));
              assert.deepEqual(refused, { status: 412, body: changed }, `${path} ${header}`);
              const head = await call(app, "HEAD", path, undefined, { "if-match": header });
              assert.equal(head.status, 412, `HEAD ${path} ${header}`);
            }
            // If-Match is evaluated before If-None-Match: a stale one is 412 even where a 304 would follow.
            const both = await call(app, "GET", path, undefined, { "if-match": '"stale"', "if-none-match": etag });
            assert.equal(both.status, 412);
          }
        }
        // A record that does not exist stays 404: preconditions only apply to what would be a 2xx.
        assert.equal((await call(app, "GET", "/api/v1/notes/99", undefined, { "if-match": "*" })).status, 404);
      } finally {
        await app.close();
      }
    });
  }

  test("an ETag taken before a write fails If-Match on GET after it", async () => {
    const app = await createApp({ models: [Note] });
    try {
      await call(app, "POST", "/api/v1/notes", { title: "a" });
      const etag = (await call(app, "GET", "/api/v1/notes/1")).headers.get("etag")!;
      const listTag = (await call(app, "GET", "/api/v1/notes")).headers.get("etag")!;
      await call(app, "PATCH", "/api/v1/notes/1", { title: "b" });
      assert.equal((await call(app, "GET", "/api/v1/notes/1", undefined, { "if-match": etag })).status, 412);
      assert.equal((await call(app, "GET", "/api/v1/notes", undefined, { "if-match": listTag })).status, 412);
    } finally {
      await app.close();
    }
  });
});
