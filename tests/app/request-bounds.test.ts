import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Document } from "mongodb";
import { string } from "superstruct";
import { type App, createApp, defineHooks, defineModel } from "../../src/mod.ts";
import { errorToReply } from "../../src/http/errors.ts";
import { toResponse } from "../../src/http/reply.ts";
import { Languages } from "../../src/i18n/languages.ts";
import { MAX_FIELD_MESSAGES } from "../../src/model/validate.ts";
import { Comment, Post, User } from "../fixtures/blog.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";
import { exampleAuth, exampleProjectApp } from "../helpers/example.ts";

const LIST = "page, per_page, cursor, q, sort, count, fields, with, trashed";

describe("a parameter the route does not know is a 400 that names it and lists the known ones", () => {
  let app: App;
  let commands: string[] = [];
  const listen = (event: CommandStartedEvent) => void commands.push(event.commandName);

  before(async () => {
    app = await exampleApp({ clientOptions: { monitorCommands: true } });
    await seedUsers(app, 2);
    app.client.on("commandStarted", listen);
  });
  after(async () => {
    app.client.off("commandStarted", listen);
    await app.close();
  });

  for (
    const [path, name] of [
      ["/api/v1/users?pge=2", "pge"],
      ["/api/v1/users?limit=2", "limit"],
      ["/api/v1/users?x=1", "x"],
      ["/api/v1/users?page=1&x=1", "x"],
      ["/api/v1/users/1/posts?offset=3", "offset"],
    ]
  ) {
    test(`list: ${path}`, async () => {
      commands = [];
      const res = await jsonOf(await call(app, "GET", path));
      assert.deepEqual(res, { status: 400, body: { error: `Unknown parameter "${name}"; this route takes ${LIST}.` } });
      assert.deepEqual(commands, [], "refused before any database command");
    });
  }

  test("list parameters on a show are unknown there", async () => {
    for (const name of ["page", "per_page", "q", "sort", "count", "cursor"]) {
      const res = await jsonOf(await call(app, "GET", `/api/v1/users/1?${name}=1`));
      assert.deepEqual(res, {
        status: 400,
        body: { error: `Unknown parameter "${name}"; this route takes fields, with, trashed.` },
      });
    }
  });

  test("HEAD answers the same status", async () => {
    assert.equal((await call(app, "HEAD", "/api/v1/users?x=1")).status, 400);
  });

  test("writes take none", async () => {
    const post = await jsonOf(await call(app, "POST", "/api/v1/users?debug=1", { name: "n" }));
    assert.deepEqual(post, {
      status: 400,
      body: { error: 'Unknown parameter "debug"; this route takes no query parameters.' },
    });
    assert.equal((await call(app, "PATCH", "/api/v1/users/1?x=1", { name: "n" })).status, 400);
    assert.equal((await call(app, "PUT", "/api/v1/users/1?x=1", { name: "n" })).status, 400);
    assert.equal((await call(app, "DELETE", "/api/v1/users/1?x=1")).status, 400);
    assert.equal((await call(app, "GET", "/api/v1/users/1")).status, 200, "nothing was written");
  });

  test("made-up parameters no longer make new response-cache entries: each answer is a refusal", async () => {
    const first = await call(app, "GET", "/api/v1/users?x=1");
    const second = await call(app, "GET", "/api/v1/users?x=1");
    assert.equal(first.headers.get("cache-status"), null);
    assert.equal(second.headers.get("cache-status"), null);
  });
});

describe("a model's hooks may take parameters of their own, declared in params", () => {
  const Note = defineModel({ name: "Note", fields: { text: string() }, params: ["mine"] });
  let app: App;
  const seen: (string | null)[] = [];

  before(async () => {
    app = await createApp({
      models: [Note],
      hooks: {
        Note: defineHooks({
          onBeforePaginate: (ctx) => void seen.push(new URL(ctx.request.url).searchParams.get("mine")),
        }),
      },
    });
  });
  after(async () => await app.close());

  test("the declared one is accepted on every route and listed with the framework's", async () => {
    assert.equal((await call(app, "GET", "/api/v1/notes?mine=1")).status, 200);
    assert.deepEqual(seen, ["1"]);
    assert.equal((await call(app, "POST", "/api/v1/notes?mine=1", { text: "t" })).status, 201);
    const res = await jsonOf(await call(app, "GET", "/api/v1/notes?theirs=1"));
    assert.equal(res.body.error, `Unknown parameter "theirs"; this route takes ${LIST}, mine.`);
  });

  test("a name that is not a plain parameter name stops start-up with one line", () => {
    assert.throws(
      () => defineModel({ name: "Bad", fields: { text: string() }, params: ["a b"] }),
      /^TypeError: Model Bad: params holds "a b"; a parameter name is letters, digits and _ \. ~ -$/,
    );
  });
});

describe("related conditions in q are capped apart, before any database command", () => {
  let app: App;
  let commands: string[] = [];
  const listen = (event: CommandStartedEvent) => void commands.push(event.commandName);

  before(async () => {
    app = await exampleApp({ clientOptions: { monitorCommands: true }, responseCache: false });
    app.client.on("commandStarted", listen);
  });
  after(async () => {
    app.client.off("commandStarted", listen);
    await app.close();
  });

  const related = (n: number) =>
    encodeURIComponent(JSON.stringify(Array.from({ length: n }, (_, i) => ({ "$or.user.surname.$like": `S${i}*` }))));

  test("five run, one query each", async () => {
    commands = [];
    assert.equal((await call(app, "GET", `/api/v1/posts?count=none&q=${related(5)}`)).status, 200);
    assert.equal(commands.filter((name) => name === "find").length, 5 + 1);
  });

  test("twenty are a 400 naming the cap, and nothing runs", async () => {
    commands = [];
    const res = await jsonOf(await call(app, "GET", `/api/v1/posts?q=${related(20)}`));
    assert.deepEqual(res, {
      status: 400,
      body: { error: "The number of conditions on related records in q exceeds the limit of 5" },
    });
    assert.deepEqual(commands, []);
  });
});

describe("every command a request sends carries a time limit", () => {
  const Tag = defineModel({ name: "Tag", fields: { name: string() }, queryTimeMs: 1234 });
  let app: App;
  let started: CommandStartedEvent[] = [];
  const listen = (event: CommandStartedEvent) => void started.push(event);
  const HANDSHAKE = new Set(["hello", "isMaster", "ismaster", "ping", "endSessions", "saslStart", "saslContinue"]);

  before(async () => {
    app = await createApp({
      models: [
        defineModel({
          ...{ name: "User", fields: User.fields, hidden: ["password"], unique: ["email"] },
          relations: { posts: { type: "hasMany", model: "Post", foreignKey: "user_id", onDelete: "cascade" } },
        }),
        Post,
        Comment,
        Tag,
      ],
      limits: { queryTimeMs: 4321 },
      responseCache: false,
      clientOptions: { monitorCommands: true },
    });
    app.client.on("commandStarted", listen);
  });
  after(async () => {
    app.client.off("commandStarted", listen);
    await app.close();
  });

  async function limitsOf(method: string, path: string, body?: unknown): Promise<[string, unknown][]> {
    started = [];
    const response = await call(app, method, path, body);
    assert.ok(response.status < 400, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
    await response.arrayBuffer();
    return started.filter((e) => !HANDSHAKE.has(e.commandName)).map((e) => [e.commandName, e.command.maxTimeMS]);
  }

  test("reads, related conditions, relations, counts, writes, integrity checks and cascades", async () => {
    const every = (pairs: [string, unknown][], ms: number) => {
      assert.ok(pairs.length > 0);
      for (const [name, limit] of pairs) assert.equal(limit, ms, `${name} carries maxTimeMS ${ms}`);
    };
    every(await limitsOf("POST", "/api/v1/users", { email: "t@l.co", name: "T", surname: "L" }), 4321);
    every(await limitsOf("POST", "/api/v1/posts", { user_id: 1, title: "p" }), 4321);
    every(await limitsOf("POST", "/api/v1/comments", { post_id: 1, content: "c" }), 4321);
    every(await limitsOf("GET", '/api/v1/posts?q={"user.name":"T"}&with=user,comments&count=exact'), 4321);
    every(await limitsOf("GET", "/api/v1/posts?count=estimated"), 4321);
    every(await limitsOf("GET", "/api/v1/users/1/posts/1?with=comments"), 4321);
    every(await limitsOf("PATCH", "/api/v1/posts/1", { title: "q" }), 4321);
    every(await limitsOf("PUT", "/api/v1/posts/1", { user_id: 1, title: "r" }), 4321);
    every(await limitsOf("DELETE", "/api/v1/users/1"), 4321);
    every(await limitsOf("POST", "/api/v1/tags", { name: "t" }), 1234);
    every(await limitsOf("GET", "/api/v1/tags/1"), 1234);
  });
});

describe("a command stopped by its time limit is a 503 with Retry-After, in the client's language", () => {
  const expired = Object.assign(new Error("operation exceeded time limit"), { code: 50 });
  const languages = new Languages("en");

  test("English and German", async () => {
    const request = new Request("http://localhost/api/v1/users");
    const english = toResponse(await errorToReply(expired, request, "en", null, languages));
    assert.equal(english.status, 503);
    assert.equal(english.headers.get("retry-after"), "5");
    assert.match(
      (await english.json()).error,
      /^The query took longer than the database allows one command; narrow it/,
    );
    const german = toResponse(await errorToReply(expired, request, "de", null, languages));
    assert.match((await german.json()).error, /^Die Abfrage hat länger gedauert/);
  });
});

describe("a bad body costs what the cap allows, not what the body holds", () => {
  let app: App;
  before(async () => (app = await exampleApp()));
  after(async () => await app.close());

  test("75,000 unknown keys: the first hundred are listed, then one entry saying more were left out", async () => {
    const body: Record<string, number> = {};
    for (let i = 0; i < 75_000; i++) body[`k${i}`] = 1;
    const response = await call(app, "POST", "/api/v1/users", body);
    const text = await response.text();
    assert.equal(response.status, 400);
    const { errors } = JSON.parse(text);
    const fields = Object.keys(errors);
    assert.equal(fields.length, MAX_FIELD_MESSAGES + 1);
    assert.deepEqual(fields.slice(0, 2), ["k0", "k1"]);
    assert.deepEqual(errors["*"], [
      "Further problems were not listed (at most 100 are); fix these and send the body again.",
    ]);
    assert.ok(text.length < 10_000, `${text.length} characters`);
  });

  test("fewer problems than the cap are all listed, with no * entry", async () => {
    const { status, body } = await jsonOf(await call(app, "POST", "/api/v1/users", { x: 1 }));
    assert.equal(status, 400);
    assert.deepEqual(Object.keys(body.errors).sort(), ["email", "name", "surname", "x"]);
  });
});

describe("a body the server would read as something else than was sent is a 415", () => {
  let app: App;
  before(async () => (app = await exampleApp()));
  after(async () => await app.close());

  const user = JSON.stringify({ email: "e@x.co", name: "E", surname: "X" });
  const post = (headers: Record<string, string>) =>
    app.fetch(
      new Request("http://localhost/api/v1/users", {
        method: "POST",
        body: user,
        headers: { "content-type": "application/json", ...headers },
      }),
    );

  for (const coding of ["br", "gzip", "x-unknown"]) {
    test(`Content-Encoding: ${coding}`, async () => {
      const response = await post({ "content-encoding": coding });
      assert.equal(response.status, 415);
      assert.equal(response.headers.get("accept-encoding"), "identity");
      assert.deepEqual(await response.json(), {
        error:
          `The request body is sent with Content-Encoding "${coding}", which this server does not decode; send it without one (identity).`,
      });
    });
  }

  test("a charset other than UTF-8", async () => {
    const response = await post({ "content-type": "application/json; charset=utf-16" });
    assert.deepEqual([response.status, await response.json()], [415, {
      error: 'The request body must be JSON in UTF-8; its Content-Type names charset "utf-16".',
    }]);
    assert.equal((await post({ "content-type": 'application/json; charset="UTF-8"' })).status, 201);
    assert.equal((await post({ "content-encoding": "identity" })).status, 409, "identity is no coding: read as sent");
    assert.equal(await app.db.collection("users").countDocuments(), 1, "nothing but the UTF-8 identity body stored");
  });
});

describe("per-model rate limits count the model's records wherever they are read", () => {
  let time = Date.UTC(2026, 0, 1);
  let app: App;
  before(async () => {
    app = await exampleApp({
      rateLimit: { models: { Post: { windowMs: 60_000, max: 2 } }, now: () => time },
    });
  });
  after(async () => await app.close());
  const get = (path: string) =>
    app.fetch(new Request(`http://localhost${path}`), { remoteAddr: { hostname: "192.0.2.9" } });

  test("through with on another model, and through related conditions in q", async () => {
    assert.equal((await get("/api/v1/users")).headers.get("ratelimit-limit"), null, "users alone are not limited");
    assert.equal((await get("/api/v1/users?with=posts")).status, 200);
    assert.equal((await get('/api/v1/comments?q={"post.title":"x"}')).status, 200);
    const third = await get("/api/v1/users/1?with=posts");
    assert.equal(third.status, 429);
    assert.equal((await get("/api/v1/posts")).status, 429, "the same window as Post's own routes");
    time += 60_000;
    assert.equal((await get("/api/v1/users?with=posts{comments}")).status, 200);
  });
});

describe("the example app stores the password hashed", () => {
  let app: App;
  before(async () => (app = await exampleProjectApp()));
  after(async () => await app.close());

  test("scrypt, salted: the same password twice gives two different hashes, neither holding it", async () => {
    for (const email of ["h1@x.co", "h2@x.co"]) {
      const res = await call(app, "POST", "/api/v1/users", { email, name: "H", surname: "X", password: "secret1" });
      assert.equal(res.status, 201);
    }
    const stored = await app.db.collection("users").find({}, { projection: { password: 1 } }).toArray() as Document[];
    const [a, b] = stored.map((doc) => doc.password as string);
    assert.match(a, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    assert.notEqual(a, b);
    assert.ok(!a.includes("secret1"));
    assert.equal((await call(app, "PATCH", "/api/v1/users/1", { password: "x" })).status, 401, "anonymous");
    const other = await call(app, "PATCH", "/api/v1/users/1", { password: "x" }, await exampleAuth(2));
    assert.equal(other.status, 404, "another user");
    const patched = await call(app, "PATCH", "/api/v1/users/1", { password: "secret2" }, await exampleAuth(1));
    assert.equal(patched.status, 200);
    const after = (await app.db.collection("users").findOne({ _id: 1 } as Document))?.password as string;
    assert.ok(after.startsWith("scrypt$") && after !== a);
  });
});
