import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { request as undiciRequest } from "undici";
import { Comment, Post, User } from "../fixtures/blog.ts";
import { type App, createApp } from "../../src/mod.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { listen } from "../../src/adapters/serve.ts";
import { exampleApp } from "../helpers/app.ts";
import { countText } from "../../src/service/rate-limit.ts";

const MINUTE = 60_000;

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 0, 1)): { now: () => number; advance(ms: number): void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function get(app: App, path: string, address = "192.0.2.1", headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch(new Request(`http://localhost${path}`, { headers }), { remoteAddr: { hostname: address } });
}

function limitHeaders(res: Response): Record<string, string | null> {
  return Object.fromEntries(
    ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after"].map((
      name,
    ) => [name, res.headers.get(name)]),
  );
}

describe("rate limits: memory store", async () => {
  const clock = manualClock();
  const app = await exampleApp({ rateLimit: { windowMs: MINUTE, max: 2, now: clock.now } });
  after(() => app.close());

  it("counts per socket address, answers 429 with Retry-After, and starts over in the next window", async () => {
    clock.advance(15_000); // 45 s left in this minute's window
    const first = await get(app, "/api/v1/users");
    assert.equal(first.status, 200);
    assert.deepEqual(limitHeaders(first), {
      "ratelimit-limit": "2",
      "ratelimit-remaining": "1",
      "ratelimit-reset": "45",
      "retry-after": null,
    });
    assert.equal((await get(app, "/api/v1/users/1")).headers.get("ratelimit-remaining"), "0");
    const refused = await get(app, "/api/v1/users");
    assert.equal(refused.status, 429);
    assert.deepEqual(limitHeaders(refused), {
      "ratelimit-limit": "2",
      "ratelimit-remaining": "0",
      "ratelimit-reset": "45",
      "retry-after": "45",
    });
    assert.deepEqual(await refused.json(), {
      // Axe API's text first, then the limit and when to retry.
      error: "Rate limit exceeded. At most 2 requests in 60 seconds are allowed; retry in 45 seconds.",
    });

    // Another client has its own count.
    assert.equal((await get(app, "/api/v1/users", "192.0.2.2")).status, 200);
    // The 429 is in the client's language.
    const german = await get(app, "/api/v1/users", "192.0.2.1", { "accept-language": "de" });
    assert.deepEqual(await german.json(), {
      error:
        "Anfragelimit überschritten. Erlaubt sind höchstens 2 Anfragen in 60 Sekunden; erneut versuchen in 45 Sekunden.",
    });

    clock.advance(45_000); // the next window
    const again = await get(app, "/api/v1/users");
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("ratelimit-reset"), "60");
  });

  it("health probes are exempt", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await get(app, "/healthz", "192.0.2.3");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("ratelimit-limit"), null);
      assert.equal((await get(app, "/readyz", "192.0.2.3")).status, 200);
    }
    assert.equal((await get(app, "/api/v1/users", "192.0.2.3")).headers.get("ratelimit-remaining"), "1");
  });

  it("CORS preflights are not counted, whatever their origin, with CORS off too", async () => {
    const preflight = {
      origin: "https://elsewhere.example",
      "access-control-request-method": "POST",
    };
    for (let i = 0; i < 3; i++) {
      const res = await app.fetch(
        new Request("http://localhost/api/v1/users", { method: "OPTIONS", headers: preflight }),
        { remoteAddr: { hostname: "192.0.2.4" } },
      );
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("ratelimit-limit"), null);
    }
    assert.equal((await get(app, "/api/v1/users", "192.0.2.4")).headers.get("ratelimit-remaining"), "1");
  });

  it("X-Forwarded-For is ignored without trustProxy", async () => {
    clock.advance(MINUTE);
    for (const forwarded of ["203.0.113.1", "203.0.113.2"]) {
      assert.equal((await get(app, "/api/v1/users", "10.0.0.9", { "x-forwarded-for": forwarded })).status, 200);
    }
    assert.equal((await get(app, "/api/v1/users", "10.0.0.9", { "x-forwarded-for": "203.0.113.3" })).status, 429);
  });
});

describe("RateLimit-Remaining's text", () => {
  it("is String(count) for every count, across each thousand's boundary", () => {
    const counts = [0, 7, 999, 1000, 1001, 1009, 1010, 1099, 1100, 9999, 10_000, 999_999_012, 1_000_000_000];
    for (let count = 0; count < 5000; count++) counts.push(count, 2 ** 31 + count, Number.MAX_SAFE_INTEGER - count);
    for (const count of counts) assert.equal(countText(count), String(count));
  });
});

describe("rate limits: trustProxy, keys, per model and per handler", async () => {
  const clock = manualClock();
  const app = await exampleApp({
    trustProxy: 1,
    rateLimit: {
      now: clock.now,
      models: { Post: { windowMs: MINUTE, max: 3, handlers: { show: { windowMs: MINUTE, max: 1 } } } },
    },
  });
  const keyed = await exampleApp({
    rateLimit: {
      windowMs: MINUTE,
      max: 1,
      now: clock.now,
      key: (request) => request.headers.get("x-api-key") ?? "anonymous",
    },
  });
  after(() => Promise.all([app.close(), keyed.close()]));

  it("with trustProxy: 1 the address the proxy appended is the client", async () => {
    const via = (client: string) =>
      get(app, "/api/v1/posts", "10.0.0.1", { "x-forwarded-for": `198.51.100.7, ${client}` });
    for (let i = 0; i < 3; i++) assert.equal((await via("203.0.113.1")).status, 200);
    assert.equal((await via("203.0.113.1")).status, 429);
    assert.equal((await via("203.0.113.2")).status, 200); // another client behind the same proxy
  });

  it("a model's limit leaves other models alone; a handler's limit is tighter still", async () => {
    const users = await get(app, "/api/v1/users", "203.0.113.9");
    assert.equal(users.status, 200);
    assert.equal(users.headers.get("ratelimit-limit"), null); // no app-wide limit, none for User
    const show = await get(app, "/api/v1/posts/1", "203.0.113.9");
    assert.equal(show.status, 404); // counted, then answered as usual
    assert.deepEqual([show.headers.get("ratelimit-limit"), show.headers.get("ratelimit-remaining")], ["1", "0"]);
    assert.equal((await get(app, "/api/v1/posts/1", "203.0.113.9")).status, 429);
    const list = await get(app, "/api/v1/users/1/posts", "203.0.113.9"); // nested: a Post paginate
    assert.equal(list.status, 404);
    assert.equal(list.headers.get("ratelimit-remaining"), "0"); // the Post limit: three hits so far
  });

  it("nested routes at any depth count against their own model's and handler's limits", async () => {
    const nested = await exampleApp({
      rateLimit: {
        now: clock.now,
        models: {
          Post: { windowMs: MINUTE, max: 5, handlers: { patch: { windowMs: MINUTE, max: 1 } } },
          Comment: { windowMs: MINUTE, max: 1 },
        },
      },
    });
    try {
      const call = (method: string, path: string) =>
        nested.fetch(
          new Request(`http://localhost${path}`, {
            method,
            headers: { "content-type": "application/json" },
            body: method === "PATCH" ? "{}" : undefined,
          }),
          { remoteAddr: { hostname: "203.0.113.20" } },
        );
      const remaining = async (method: string, path: string) => {
        const response = await call(method, path);
        return [response.status, response.headers.get("ratelimit-remaining")];
      };
      assert.deepEqual(await remaining("GET", "/api/v1/users/1/posts/1"), [404, "4"]); // a Post show
      assert.deepEqual(await remaining("HEAD", "/api/v1/users/1/posts/1"), [404, "3"]);
      assert.deepEqual(await remaining("PATCH", "/api/v1/users/1/posts/1"), [404, "0"]); // the patch limit
      assert.deepEqual(await remaining("PATCH", "/api/v1/users/1/posts/1"), [429, "0"]);
      assert.deepEqual(await remaining("GET", "/api/v1/users/1/posts/1/comments"), [404, "0"]); // a Comment list
      assert.deepEqual(await remaining("GET", "/api/v1/users/1/posts/1/comments"), [429, "0"]);
    } finally {
      await nested.close();
    }
  });

  it("a key function groups requests its own way", async () => {
    assert.equal((await get(keyed, "/api/v1/users", "192.0.2.1", { "x-api-key": "a" })).status, 200);
    assert.equal((await get(keyed, "/api/v1/users", "192.0.2.2", { "x-api-key": "a" })).status, 429);
    assert.equal((await get(keyed, "/api/v1/users", "192.0.2.1", { "x-api-key": "b" })).status, 200);
  });

  it("mistakes in the options stop start-up with one line", async () => {
    await assert.rejects(
      exampleApp({ rateLimit: { windowMs: MINUTE, max: 0 } }),
      /^TypeError: rateLimit.max must be a positive integer, got 0$/,
    );
    await assert.rejects(
      exampleApp({ rateLimit: { models: { Nope: { windowMs: 1, max: 1 } } } }),
      /rateLimit.models names an unknown model Nope; models are User, Post, Comment/,
    );
    await assert.rejects(
      exampleApp({ rateLimit: { models: { User: { handlers: { list: { windowMs: 1, max: 1 } } as never } } } }),
      /unknown handler list/,
    );
    await assert.rejects(
      exampleApp({ rateLimit: { windowMs: 1, max: 1, store: "redis" as never } }),
      /rateLimit.store must be "memory", "mongodb"/,
    );
    await assert.rejects(
      exampleApp({ trustProxy: "yes" as never }),
      /trustProxy must be true, false or the number of proxies/,
    );
    const refusals: [unknown, RegExp][] = [
      [null, /^TypeError: rateLimit must be an object such as \{ windowMs: 60000, max: 100 \}, got null$/],
      [{}, /^TypeError: rateLimit sets no limit/],
      [
        { windowMs: MINUTE, max: 1, key: "x-api-key" },
        /^TypeError: rateLimit.key must be a function, got "x-api-key"$/,
      ],
      [
        { windowMs: MINUTE, max: 1, store: "mongodb", collection: 42 },
        /rateLimit.collection must be a collection name/,
      ],
      [{ windowMs: MINUTE, max: 1, modles: {} }, /^TypeError: rateLimit: unknown key "modles"/],
      [{ models: { Post: 5 } }, /^TypeError: rateLimit.models.Post must be an object/],
      [{ models: { Post: {} } }, /^TypeError: rateLimit.models.Post sets no limit/],
      [{ models: { Post: { handlers: { insert: null } } } }, /rateLimit.models.Post.handlers.insert must be an object/],
    ];
    for (const [rateLimit, message] of refusals) {
      await assert.rejects(exampleApp({ rateLimit: rateLimit as never }), message, JSON.stringify(rateLimit));
    }
  });
});

describe("rate limits: MongoDB store shared by two apps on one database", async () => {
  const engine = await startEmbeddedEngine();
  const clock = manualClock();
  const options = {
    models: [User, Post, Comment],
    uri: engine.uri,
    dbName: "shared",
    rateLimit: { windowMs: MINUTE, max: 3, store: "mongodb" as const, now: clock.now },
  };
  const first = await createApp(options);
  const second = await createApp(options);
  after(async () => {
    await first.close();
    await second.close();
    await engine.close();
  });

  it("both instances count against one limit", async () => {
    const statuses = [];
    for (const app of [first, second, first, second, first]) statuses.push((await get(app, "/api/v1/users")).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const counters = await first.db.collection("rate_limits").find().toArray();
    assert.equal(counters.length, 1);
    assert.equal(counters[0]!.count, 5);
  });

  it("concurrent hits are counted exactly (atomic $inc upserts)", async () => {
    clock.advance(MINUTE);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => get(i % 2 ? first : second, "/api/v1/users", "192.0.2.50")),
    );
    assert.deepEqual(responses.map((r) => r.status).sort(), [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    const remaining = responses.map((r) => r.headers.get("ratelimit-remaining")).sort();
    assert.deepEqual(remaining, ["0", "0", "0", "0", "0", "0", "0", "0", "1", "2"]);
  });

  it("ended windows are deleted", async () => {
    clock.advance(2 * MINUTE);
    await get(first, "/api/v1/users", "192.0.2.60"); // triggers the cleanup of earlier windows
    await first.db.command({ ping: 1 }); // the cleanup's deleteMany went out before this on the same pool
    const windows = await first.db.collection("rate_limits").find().toArray();
    assert.ok(windows.every((w) => (w.expiresAt as Date).getTime() > clock.now()), JSON.stringify(windows));
  });
});

describe("the client's socket address reaches the app over a real server", async () => {
  const seen: string[] = [];
  const app = await exampleApp({
    rateLimit: { windowMs: MINUTE, max: 100, key: (_request, client) => (seen.push(client.address), client.address) },
  });
  // listen() is Deno.serve on Deno and the Node adapter on Node: the test covers both.
  const server = await listen(app.fetch, { port: 0, host: "127.0.0.1" });
  after(async () => {
    await server.close();
    await app.close();
  });

  it("is the loopback address", async () => {
    const res = await undiciRequest(`${server.url}/api/v1/users`);
    await res.body.text();
    assert.equal(res.statusCode, 200);
    assert.deepEqual(seen, ["127.0.0.1"]);
  });
});
