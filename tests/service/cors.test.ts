import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { exampleApp } from "../helpers/app.ts";
import { ApiError } from "../../src/mod.ts";
import { Cors } from "../../src/service/cors.ts";

const ORIGIN = "https://app.example.com";

function send(
  app: Awaited<ReturnType<typeof exampleApp>>,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<Response> {
  return app.fetch(new Request(`http://localhost${path}`, { method, headers }), {
    remoteAddr: { hostname: "192.0.2.1" },
  });
}

describe("CORS", async () => {
  const app = await exampleApp({
    cors: { origin: [ORIGIN], maxAge: 600, credentials: true },
    rateLimit: { windowMs: 60_000, max: 1000 },
  });
  const byFunction = await exampleApp({
    cors: {
      origin: (origin) => origin.endsWith(".example.org"),
      methods: ["GET"],
      headers: ["content-type"],
      exposeHeaders: ["ETag"],
    },
  });
  after(() => Promise.all([app.close(), byFunction.close()]));

  it("answers an allowed origin's preflight with 204 and the allowed methods and headers", async () => {
    const res = await send(app, "OPTIONS", "/api/v1/users", {
      origin: ORIGIN,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, if-match",
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), ORIGIN);
    assert.equal(res.headers.get("access-control-allow-methods"), "GET, HEAD, POST, PUT, PATCH, DELETE");
    assert.equal(res.headers.get("access-control-allow-headers"), "content-type, if-match");
    assert.equal(res.headers.get("access-control-max-age"), "600");
    assert.equal(res.headers.get("access-control-allow-credentials"), "true");
    assert.match(res.headers.get("vary") ?? "", /Origin/);
    assert.equal(res.headers.get("ratelimit-limit"), null, "preflights are not counted");
  });

  it("exposes ETag, Link and the RateLimit headers on responses to an allowed origin", async () => {
    const res = await send(app, "GET", "/api/v1/users", { origin: ORIGIN });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), ORIGIN);
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(", ");
    for (const name of ["ETag", "Link", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Request-Id"]) {
      assert.ok(exposed.includes(name), name);
    }
    assert.equal(res.headers.get("vary"), "Origin");
    assert.ok(res.headers.get("etag"));
  });

  it("gives a disallowed origin no CORS headers, preflight or not", async () => {
    const preflight = await send(app, "OPTIONS", "/api/v1/users", {
      origin: "https://evil.example",
      "access-control-request-method": "DELETE",
    });
    assert.equal(preflight.status, 204); // the plain OPTIONS answer, with Allow
    assert.equal(preflight.headers.get("allow"), "OPTIONS, GET, HEAD, POST");
    const get = await send(app, "GET", "/api/v1/users", { origin: "https://evil.example" });
    for (const res of [preflight, get]) {
      for (const [name] of res.headers) {
        assert.ok(!name.startsWith("access-control-"), `${name} sent to a disallowed origin`);
      }
    }
    assert.equal(get.headers.get("vary"), "Origin");
  });

  it("takes a predicate, and the configured methods, headers and exposed headers", async () => {
    const res = await send(byFunction, "OPTIONS", "/api/v1/users/1", {
      origin: "https://a.example.org",
      "access-control-request-method": "GET",
      "access-control-request-headers": "x-other",
    });
    assert.equal(res.headers.get("access-control-allow-origin"), "https://a.example.org");
    assert.equal(res.headers.get("access-control-allow-methods"), "GET");
    assert.equal(res.headers.get("access-control-allow-headers"), "content-type");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    const get = await send(byFunction, "GET", "/api/v1/users/1", { origin: "https://a.example.org" });
    assert.equal(get.status, 404);
    assert.equal(get.headers.get("access-control-expose-headers"), "ETag");
    assert.equal(get.headers.get("vary"), "Origin, Accept-Language");
    assert.equal(
      (await send(byFunction, "GET", "/api/v1/users", { origin: "https://example.com" })).headers.get(
        "access-control-allow-origin",
      ),
      null,
    );
  });

  it("asks a predicate once per origin, and answers right however origins alternate", () => {
    const asked: string[] = [];
    const cors = new Cors({
      origin: (origin) => (asked.push(origin), origin.endsWith(".example.org")),
      credentials: true,
    });
    const origins = ["https://a.example.org", "https://a.example.org", "https://x.test", "https://a.example.org"];
    assert.deepEqual(origins.map((origin) => cors.allows(origin)), [true, true, false, true]);
    assert.equal(cors.allows(null), false);
    assert.deepEqual(asked, ["https://a.example.org", "https://x.test"]);
    const headers: Record<string, string> = { "x-request-id": "r1" };
    cors.addResponseHeaders(headers, "https://a.example.org");
    assert.deepEqual(headers, {
      "x-request-id": "r1",
      "access-control-allow-credentials": "true",
      "access-control-expose-headers":
        "ETag, Link, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id",
      "access-control-allow-origin": "https://a.example.org",
    });
  });

  it("adds Origin to the app's own Vary instead of replacing it", async () => {
    const varying = await exampleApp({
      cors: { origin: [ORIGIN] },
      hooks: {
        User: {
          onAfterPaginate(ctx) {
            ctx.headers.set("vary", "Authorization");
          },
        },
        Post: {
          onBeforePaginate() {
            throw new ApiError("Sign in first.", { status: 401, headers: { Vary: "authorization, Origin" } });
          },
        },
      },
    });
    try {
      const users = await send(varying, "GET", "/api/v1/users", { origin: ORIGIN });
      assert.deepEqual([users.status, users.headers.get("vary")], [200, "Authorization, Origin"]);
      const posts = await send(varying, "GET", "/api/v1/posts", { origin: ORIGIN });
      assert.deepEqual([posts.status, posts.headers.get("vary")], [401, "authorization, Origin, Accept-Language"]);
    } finally {
      await varying.close();
    }
  });

  it("a malformed cors option stops start-up with one line", async () => {
    await assert.rejects(
      exampleApp({ cors: { origin: "https://app.example.com" as never } }),
      /^TypeError: cors.origin must be an array of origins or a function/,
    );
    await assert.rejects(
      exampleApp({ cors: { origin: [ORIGIN], maxAge: -1 } }),
      /cors.maxAge must be a number of seconds/,
    );
    const refusals: [unknown, RegExp][] = [
      [null, /^TypeError: cors must be an object/],
      [{ origin: [ORIGIN], credentail: true }, /^TypeError: cors: unknown key "credentail"/],
      [
        { origin: [`${ORIGIN}/`] },
        /cors.origin entries must be "\*" or origins .*; got "https:\/\/app.example.com\/"$/,
      ],
      [{ origin: ["app.example.com"] }, /cors.origin entries must be/],
      [{ origin: [ORIGIN], credentials: "no" }, /^TypeError: cors.credentials must be true or false, got "no"$/],
      [{ origin: ["*"], credentials: true }, /cors.origin \["\*"\] with credentials: true would let every website/],
      [
        { origin: [ORIGIN], exposeHeaders: ["ETag\r\nSet-Cookie: x=1"] },
        /cors.exposeHeaders must hold header or method names/,
      ],
    ];
    for (const [cors, message] of refusals) {
      await assert.rejects(exampleApp({ cors: cors as never }), message, JSON.stringify(cors));
    }
  });
});
