import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { ApiError, type App, createApp, defaultErrorHandler, defineModel } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";

function assertJsonHeaders(res: Response): void {
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(res.headers.get("content-language"), "en");
}

describe("request errors", () => {
  let app: App;
  before(async () => {
    app = await exampleApp({ bodyLimit: 256 });
  });
  after(() => app.close());

  test("an unmatched route is a JSON 404", async () => {
    for (const path of ["/", "/api/v1/nothing", "/api/v2/users", "/api/v1/users/1/extra"]) {
      const res = await call(app, "GET", path);
      assert.equal(res.status, 404, path);
      assertJsonHeaders(res);
      assert.equal(typeof (await res.json()).error, "string");
    }
  });

  test("malformed JSON is a 400", async () => {
    const res = await call(app, "POST", "/api/v1/users", "{not json");
    assert.equal(res.status, 400);
    assertJsonHeaders(res);
    assert.deepEqual(await res.json(), {
      error: 'The request body is not valid JSON: unexpected "n" at line 1, column 2.',
    });
  });

  test("a JSON body that is not an object is a 400", async () => {
    for (const body of ["[1,2]", "42", "null", '"text"']) {
      const { status, body: out } = await jsonOf(await call(app, "POST", "/api/v1/users", body));
      assert.equal(status, 400);
      assert.deepEqual(out, { error: "The request body must be a JSON object." });
    }
  });

  test("a body that is not application/json is a 415", async () => {
    const res = await call(app, "POST", "/api/v1/users", "email=a", {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(res.status, 415);
    assertJsonHeaders(res);
    assert.match((await res.json()).error, /application\/json/);
  });

  test("application/json with a charset, and +json types, are accepted", async () => {
    for (const type of ["application/json; charset=utf-8", "application/vnd.api+json", "Application/JSON"]) {
      const res = await call(app, "POST", "/api/v1/users", { email: "x" }, { "content-type": type });
      assert.equal(res.status, 400, type);
      assert.ok((await res.json()).errors, type);
    }
  });

  test("a request without a body is never a 415", async () => {
    const list = await call(app, "GET", "/api/v1/users", undefined, { "content-type": "text/plain" });
    assert.equal(list.status, 200);
    const post = await jsonOf(await call(app, "POST", "/api/v1/users", undefined, { "content-type": "text/plain" }));
    assert.equal(post.status, 400);
    assert.ok(post.body.errors.email);
  });

  test("a body over the limit is a 413, by Content-Length", async () => {
    const big = JSON.stringify({ name: "x".repeat(300) });
    const res = await call(app, "POST", "/api/v1/users", big, { "content-length": String(big.length) });
    assert.equal(res.status, 413);
    assertJsonHeaders(res);
    assert.deepEqual(await res.json(), { error: "The request body is larger than the limit of 256 bytes." });
  });

  test("a streamed body over the limit is a 413 and is not read to the end", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new TextEncoder().encode("x".repeat(100)));
      },
    });
    const request = new Request("http://localhost/api/v1/users", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    const res = await app.fetch(request);
    assert.equal(res.status, 413);
    assert.ok(pulled < 10, `read ${pulled} chunks of an endless body`);
  });
});

describe("error handler", () => {
  const Boom = defineModel({ name: "Boom", fields: { title: string() } });
  const failure = new Error("driver internals: mongodb://secret@host");
  let app: App;
  const savedEnv = process.env.NODE_ENV;
  before(async () => {
    app = await createApp({
      models: [Boom],
      hooks: {
        Boom: {
          onBeforeShow(ctx) {
            // Switches NODE_ENV during the request, after the app and its handler were set up.
            const env = ctx.request.headers.get("x-node-env");
            if (env !== null) process.env.NODE_ENV = env;
            throw failure;
          },
          onBeforePaginate(ctx) {
            const status = ctx.request.headers.get("x-status");
            if (status) throw new ApiError("Custom refusal.", Number(status));
          },
          onBeforeInsert() {
            throw new ApiError("Sign in first.", {
              status: 401,
              headers: { "WWW-Authenticate": 'Bearer realm="booms"', "Cache-Control": "no-store" },
            });
          },
        },
      },
    });
  });
  afterEach(() => {
    app.onError(null);
    if (savedEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = savedEnv;
  });
  after(() => app.close());

  test("with no handler, app.fetch rejects with the very error", async () => {
    await assert.rejects(call(app, "GET", "/api/v1/booms/1"), (error) => error === failure);
  });

  test("the default handler rethrows the very error outside production", async () => {
    delete process.env.NODE_ENV;
    app.onError(defaultErrorHandler);
    await assert.rejects(call(app, "GET", "/api/v1/booms/1"), (error) => error === failure);
  });

  test("the default handler answers 500 in production, with nothing leaked", async () => {
    app.onError(defaultErrorHandler);
    process.env.NODE_ENV = "production";
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(...args);
    try {
      const res = await call(app, "GET", "/api/v1/booms/1");
      assert.equal(res.status, 500);
      assertJsonHeaders(res);
      assert.deepEqual(await res.json(), { message: "An error occurred!" });
      assert.ok(logged.includes(failure), "the error is logged on the server");
    } finally {
      console.error = original;
    }
  });

  test("NODE_ENV is read at the moment of the error, not when the app or handler was set up", async () => {
    app.onError(defaultErrorHandler);
    process.env.NODE_ENV = "development";
    const res = await call(app, "GET", "/api/v1/booms/1", undefined, { "x-node-env": "production" });
    assert.equal(res.status, 500);
    process.env.NODE_ENV = "production";
    await assert.rejects(
      call(app, "GET", "/api/v1/booms/1", undefined, { "x-node-env": "development" }),
      (error) => error === failure,
    );
  });

  test("ApiError from a hook gives its status and message", async () => {
    for (const status of [400, 403, 409, 422, 503]) {
      const res = await call(app, "GET", "/api/v1/booms", undefined, { "x-status": String(status) });
      assert.equal(res.status, status);
      assertJsonHeaders(res);
      assert.deepEqual(await res.json(), { error: "Custom refusal." });
    }
  });

  test("ApiError's headers go out with its status and message, beside the framework's", async () => {
    const res = await call(app, "POST", "/api/v1/booms", { title: "x" });
    assert.equal(res.status, 401);
    assertJsonHeaders(res);
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="booms"');
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.deepEqual(await res.json(), { error: "Sign in first." });
  });

  test("ApiError refuses headers that would contradict its JSON body, and invalid ones", () => {
    for (const name of ["Content-Type", "content-length", "Transfer-Encoding"]) {
      assert.throws(() => new ApiError("x", { headers: { [name]: "1" } }), /cannot set/, name);
    }
    assert.throws(() => new ApiError("x", { headers: { "bad name": "1" } }), TypeError);
    assert.deepEqual(new ApiError("x", { headers: [["Retry-After", "120"]] }).headers, { "retry-after": "120" });
    assert.equal(new ApiError("x").headers, undefined);
  });

  test("ApiError defaults to 400", () => {
    assert.equal(new ApiError("x").status, 400);
  });

  test("ApiError takes a cause, like Error, and never sends it", () => {
    const cause = new Error("card declined by the bank");
    assert.equal(new ApiError("Payment refused.", 402, { cause }).cause, cause);
    const byOptions = new ApiError("Payment refused.", { status: 402, cause });
    assert.deepEqual([byOptions.status, byOptions.cause], [402, cause]);
    assert.equal("cause" in new ApiError("x"), false);
  });
});

describe("errors speak the app's configured language", () => {
  const Boom = defineModel({ name: "Boom", fields: { title: string() } });
  let app: App;
  const savedEnv = process.env.NODE_ENV;
  before(async () => {
    app = await createApp({
      models: [Boom],
      language: "de",
      hooks: {
        Boom: {
          onBeforeShow() {
            throw new Error("boom");
          },
        },
      },
    });
    app.onError(defaultErrorHandler);
  });
  after(async () => {
    if (savedEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = savedEnv;
    await app.close();
  });

  test("404, 400, 405 and the default handler's 500 carry Content-Language: de", async () => {
    process.env.NODE_ENV = "production";
    const original = console.error;
    console.error = () => {};
    try {
      for (
        const [method, path, status] of [["GET", "/nope", 404], ["GET", "/api/v1/booms?page=0", 400], [
          "PUT",
          "/api/v1/booms",
          405,
        ], ["GET", "/api/v1/booms/1", 500]] as const
      ) {
        const res = await call(app, method, path);
        assert.deepEqual([res.status, res.headers.get("content-language")], [status, "de"], `${method} ${path}`);
        await res.arrayBuffer();
      }
    } finally {
      console.error = original;
    }
  });
});
