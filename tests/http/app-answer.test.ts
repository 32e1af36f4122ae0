import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { toResponse } from "../../src/http/reply.ts";
import { msg } from "../../src/i18n/message.ts";

const Note = defineModel({ name: "Note", fields: { text: string() } });
const Hooked = defineModel({ name: "Hooked", fields: { text: string() } });

/** Status, headers and body of a response, but for what differs per request (its id, the rate limit's count and clock). */
async function bytesOf(response: Response): Promise<unknown> {
  const headers = [...response.headers].filter(([name]) => name !== "x-request-id" && !name.startsWith("ratelimit-"));
  return { status: response.status, headers, body: await response.text() };
}

describe("app.answer and app.refuse, the contract the Node adapter uses", () => {
  let app: App;
  const url = "http://localhost/api/v1/notes?per_page=5";
  before(async () => {
    app = await createApp({
      models: [Note, Hooked],
      hooks: { Hooked: { onBeforeShow() {} } },
      cors: { origin: ["http://web.example"] },
      rateLimit: { windowMs: 60_000, max: 1000 },
    });
    await app.fetch(
      new Request("http://localhost/api/v1/notes", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "a" }),
      }),
    );
  });
  after(() => app.close());

  test("a cache hit comes back as a reply, not a Promise, with the bytes app.fetch sends", async () => {
    const headers = { origin: "http://web.example", "accept-language": "de" };
    const viaPromise = await app.fetch(new Request(url, { headers })); // a miss: stores the page
    const miss = await bytesOf(viaPromise);
    const answered = app.answer(new Request(url, { headers }));
    assert.ok(!(answered instanceof Promise));
    const hit = toResponse(answered);
    const again = await bytesOf(await app.fetch(new Request(url, { headers })));
    assert.deepEqual(await bytesOf(hit), again);
    // The hit differs from the miss only in what Cache-Status says.
    const differing = (a: unknown, b: unknown) => {
      const [x, y] = [a, b].map((r) => new Map((r as { headers: [string, string][] }).headers));
      return [...x.keys()].filter((name) => x.get(name) !== y.get(name)).sort();
    };
    assert.deepEqual(differing(miss, again), ["cache-status"]);
    assert.equal(hit.headers.get("access-control-allow-origin"), "http://web.example");
    assert.equal(hit.headers.get("content-language"), "de");
    assert.equal(hit.headers.get("ratelimit-limit"), "1000");
  });

  test("what needs the database still comes back as a Promise, and fails as app.fetch fails", async () => {
    const pending = app.answer(new Request("http://localhost/api/v1/hookeds/1"));
    assert.ok(pending instanceof Promise);
    assert.equal((await pending).status, 404);
    const notFound = app.answer(new Request("http://localhost/nowhere"));
    assert.equal((await notFound).status, 404);
  });

  test("a refusal is answered at once, as the app's own errors: in the client's language, with its headers", async () => {
    const request = new Request(url, { headers: { origin: "http://web.example", "accept-language": "de" } });
    const refused = app.refuse(request, { status: 413, message: msg("request.bodyTooLarge", { limit: 64 }) });
    assert.ok(!(refused instanceof Promise));
    const response = toResponse(refused);
    assert.equal(response.status, 413);
    assert.equal(response.headers.get("content-language"), "de");
    assert.equal(response.headers.get("access-control-allow-origin"), "http://web.example");
    assert.ok(response.headers.get("x-request-id"));
    assert.deepEqual(await response.json(), { error: "Der Request-Body ist größer als das Limit von 64 Bytes." });
  });
});
