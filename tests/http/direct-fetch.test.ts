import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { directFetchOf } from "../../src/http/direct-fetch.ts";

const Note = defineModel({ name: "Note", fields: { text: string() } });
const Hooked = defineModel({ name: "Hooked", fields: { text: string() } });

/** Status, headers and body of a response, but for what differs per request (its id, the rate limit's count and clock). */
async function bytesOf(response: Response): Promise<unknown> {
  const headers = [...response.headers].filter(([name]) => name !== "x-request-id" && !name.startsWith("ratelimit-"));
  return { status: response.status, headers, body: await response.text() };
}

describe("app.fetch's synchronous side (what the Node adapter calls)", () => {
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

  test("a cache hit comes back as a Response, not a Promise, with the bytes app.fetch sends", async () => {
    const direct = directFetchOf(app.fetch);
    assert.notEqual(direct, app.fetch);
    const headers = { origin: "http://web.example", "accept-language": "de" };
    const viaPromise = await app.fetch(new Request(url, { headers })); // a miss: stores the page
    const miss = await bytesOf(viaPromise);
    const hit = direct(new Request(url, { headers }));
    assert.ok(!(hit instanceof Promise) && hit instanceof Response);
    const again = await bytesOf(await app.fetch(new Request(url, { headers })));
    assert.deepEqual(await bytesOf(hit), again);
    // The hit differs from the miss only in what Cache-Status says.
    const differing = (a: unknown, b: unknown) => {
      const [x, y] = [a, b].map((r) => new Map((r as { headers: [string, string][] }).headers));
      return [...x.keys()].filter((name) => x.get(name) !== y.get(name)).sort();
    };
    assert.deepEqual(differing(miss, again), ["cache-status"]);
    assert.equal((hit as Response).headers.get("access-control-allow-origin"), "http://web.example");
    assert.equal((hit as Response).headers.get("content-language"), "de");
    assert.equal((hit as Response).headers.get("ratelimit-limit"), "1000");
  });

  test("what needs the database still comes back as a Promise, and fails as app.fetch fails", async () => {
    const direct = directFetchOf(app.fetch);
    const pending = direct(new Request("http://localhost/api/v1/hookeds/1"));
    assert.ok(pending instanceof Promise);
    assert.equal((await pending).status, 404);
    const notFound = direct(new Request("http://localhost/nowhere"));
    assert.equal((await notFound).status, 404);
  });

  test("a plain fetch function is its own synchronous side", () => {
    const plain = (_request: Request) => Promise.resolve(new Response(null));
    assert.equal(directFetchOf(plain), plain);
  });
});
