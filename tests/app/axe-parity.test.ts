import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent } from "mongodb";
import { optional, string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { id } from "../../src/model/types.ts";
import { call, jsonOf } from "../helpers/app.ts";

// Issue 12, sections 2-4, 6 and 7, at the request level: serializers, conditions on related
// records, relation options and hooks, query permissions, Cache-Status.

const Person = defineModel({
  name: "Person",
  fields: { name: string(), surname: string(), secret: optional(string()) },
  hidden: ["secret"],
  filterable: ["name", "surname"],
  relations: {
    articles: {
      type: "hasMany",
      model: "Article",
      foreignKey: "person_id",
      sort: { title: -1 },
      filter: { status: "published" },
      limit: 2,
    },
    drafts: { type: "hasMany", model: "Article", foreignKey: "person_id", filter: { status: "draft" } },
    badge: { type: "hasOne", model: "Badge", foreignKey: "person_id" },
  },
  loadable: ["articles", "drafts", "badge"],
  serialize: (record) => {
    if (typeof record.name === "string" && typeof record.surname === "string") {
      record.fullname = `${record.name} ${record.surname}`;
    }
  },
});
const Article = defineModel({
  name: "Article",
  fields: { title: string(), status: string(), person_id: id() },
  sortable: ["title"],
  relations: { person: { type: "belongsTo", model: "Person", foreignKey: "person_id" } },
  serialize: (record) =>
    Promise.resolve({ ...record, shout: typeof record.title === "string" ? record.title.toUpperCase() : null }),
});
const Badge = defineModel({
  name: "Badge",
  fields: { label: string(), person_id: id() },
  relations: { person: { type: "belongsTo", model: "Person", foreignKey: "person_id" } },
  loadable: [],
});

let app: App;
const commands: string[] = [];

before(async () => {
  app = await createApp({
    models: [Person, Article, Badge],
    clientOptions: { monitorCommands: true },
    limits: { maxInList: 3 },
    serialize: (record, ctx) => ({
      ...record,
      kind: ctx.model.name,
      via: ctx.request.headers.get("x-client") ?? "none",
    }),
    hooks: {
      Article: {
        onBeforeRelation(ctx) {
          // Drafts are private: only their author (x-person) sees them inside with.
          if (ctx.relation.name === "drafts") {
            ctx.filters.push({ person_id: Number(ctx.request.headers.get("x-person") ?? 0) });
          }
        },
      },
    },
  });
  app.client.on(
    "commandStarted",
    (event: CommandStartedEvent) => commands.push(`${event.commandName}:${event.command[event.commandName]}`),
  );
  const people = [["Ada", "Lovelace"], ["Alan", "Turing"], ["Grace", "Hopper"], ["Edsger", "Dijkstra"]];
  for (const [name, surname] of people) {
    assert.equal((await call(app, "POST", "/api/v1/people", { name, surname, secret: "s" })).status, 201);
  }
  const articles = [["a1", "published", 1], ["a2", "published", 1], ["a3", "published", 1], ["d1", "draft", 1], [
    "b1",
    "published",
    2,
  ], ["d2", "draft", 2]];
  for (const [title, status, person_id] of articles) {
    await call(app, "POST", "/api/v1/articles", { title, status, person_id });
  }
  await call(app, "POST", "/api/v1/badges", { label: "first", person_id: 1 });
  await call(app, "POST", "/api/v1/badges", { label: "second", person_id: 3 });
});
after(() => app?.close());

const get = async (path: string, headers: Record<string, string> = {}) =>
  jsonOf(await call(app, "GET", `/api/v1/${path}`, undefined, headers));
const q = (filter: unknown) => `q=${encodeURIComponent(JSON.stringify(filter))}`;

describe("serializers", () => {
  test("the model's serializer, then the app's, shape list, show and written records", async () => {
    const list = await get("people?per_page=1", { "x-client": "web" });
    assert.deepEqual(list.body.data[0], {
      id: 1,
      name: "Ada",
      surname: "Lovelace",
      created_at: list.body.data[0].created_at,
      updated_at: list.body.data[0].updated_at,
      fullname: "Ada Lovelace",
      kind: "Person",
      via: "web",
    });
    assert.equal((await get("people/2")).body.fullname, "Alan Turing");
    const created = await jsonOf(
      await call(app, "POST", "/api/v1/articles", { title: "new", status: "draft", person_id: 4 }),
    );
    assert.equal(created.body.shout, "NEW");
    assert.equal(created.body.kind, "Article");
    const patched = await jsonOf(await call(app, "PATCH", `/api/v1/articles/${created.body.id}`, { title: "newer" }));
    assert.equal(patched.body.shout, "NEWER");
    const put = await jsonOf(
      await call(app, "PUT", `/api/v1/articles/${created.body.id}`, { title: "put", status: "draft", person_id: 4 }),
    );
    assert.equal(put.body.shout, "PUT");
    await call(app, "DELETE", `/api/v1/articles/${created.body.id}`);
  });

  test("related records loaded through with get their own model's serializer", async () => {
    const { body } = await get("people/1?with=articles,badge");
    assert.deepEqual(body.articles.map((a: { shout: string; kind: string }) => [a.shout, a.kind]), [["A3", "Article"], [
      "A2",
      "Article",
    ]]);
    assert.equal(body.badge.kind, "Badge");
    assert.equal(body.badge.fullname, undefined);
    const owner = await get("articles?with=person&per_page=2");
    assert.deepEqual(owner.body.data.map((a: { person: { fullname: string } }) => a.person.fullname), [
      "Ada Lovelace",
      "Ada Lovelace",
    ]);
  });

  test("fields= selects stored fields first; the serializer sees only those", async () => {
    const { body } = await get("people/1?fields=name");
    assert.deepEqual(Object.keys(body).sort(), ["id", "kind", "name", "via"].sort());
  });

  test("added fields are neither queryable nor sortable", async () => {
    assert.match((await get(`people?${q({ fullname: "Ada Lovelace" })}`)).body.error, /fullname/);
    assert.equal((await get("people?sort=fullname")).status, 400);
  });

  test("the ETag is computed from the serialized body", async () => {
    const web = await call(app, "GET", "/api/v1/people/1", undefined, { "x-client": "web" });
    const cli = await call(app, "GET", "/api/v1/people/1", undefined, { "x-client": "cli" });
    assert.notEqual(web.headers.get("etag"), cli.headers.get("etag"));
    const again = await call(app, "GET", "/api/v1/people/1", undefined, {
      "x-client": "web",
      "if-none-match": web.headers.get("etag")!,
    });
    assert.equal(again.status, 304);
  });
});

describe("conditions on related records", () => {
  test("belongsTo: every operator, through one query on the related model", async () => {
    commands.length = 0;
    const eq = await get(`articles?${q({ "person.name": "Alan" })}`);
    assert.deepEqual(eq.body.data.map((a: { title: string }) => a.title), ["b1", "d2"]);
    assert.equal(commands.filter((c) => c === "find:people").length, 1, commands.join(" "));
    const like = await get(`articles?${q({ "person.name.$like": "A*", "status": "draft" })}`);
    assert.deepEqual(like.body.data.map((a: { title: string }) => a.title), ["d1", "d2"]);
    const notIn = await get(`articles?${q({ "person.surname.$notIn": ["Lovelace"] })}`);
    assert.deepEqual(notIn.body.data.map((a: { title: string }) => a.title), ["b1", "d2"]);
    const or = await get(`articles?${q([{ "person.name": "Alan" }, { "$or.title": "a1" }])}`);
    assert.deepEqual(or.body.data.map((a: { title: string }) => a.title), ["a1", "b1", "d2"]);
  });

  test("hasOne: matching related records give the ids", async () => {
    const { body } = await get(`people?${q({ "badge.label.$in": ["second"] })}`);
    assert.deepEqual(body.data.map((p: { id: number }) => p.id), [3]);
  });

  test("no join per record: the related query runs once whatever the page size", async () => {
    commands.length = 0;
    await get(`articles?per_page=20&${q({ "person.name.$like": "*a*" })}`);
    assert.equal(commands.filter((c) => c === "find:people").length, 1, commands.join(" "));
  });

  test("more matches than maxInList is a 400 that states the bound", async () => {
    const { status, body } = await get(`articles?${q({ "person.id.$gte": 1 })}`);
    assert.equal(status, 400);
    assert.match(body.error, /person matches more than 3 Person records/);
  });

  test("hidden fields of the related model stay unqueryable, and hasMany is no related field", async () => {
    assert.match(
      (await get(`articles?${q({ "person.secret": "s" })}`)).body.error,
      /Undefined column names: person\.secret/,
    );
    assert.equal((await get(`people?${q({ "articles.title": "a1" })}`)).status, 400);
  });
});

describe("relation options and relation hooks", () => {
  test("with honours the relation's sort, filter and limit", async () => {
    const { body } = await get("people/1?with=articles");
    assert.deepEqual(body.articles.map((a: { title: string }) => a.title), ["a3", "a2"]);
  });

  test("the nested list honours them too: filter always, sort by default, limit as its page", async () => {
    const { body } = await get("people/1/articles");
    assert.deepEqual(body.data.map((a: { title: string }) => a.title), ["a3", "a2"]);
    assert.equal(body.pagination.perPage, 2);
    assert.equal(body.pagination.total, 3);
    const sorted = await get("people/1/articles?sort=title");
    assert.deepEqual(sorted.body.data.map((a: { title: string }) => a.title), ["a1", "a2"]);
    const tooLarge = await get("people/1/articles?per_page=3");
    assert.deepEqual([tooLarge.status, /per_page/.test(tooLarge.body.error)], [400, true]);
  });

  test("onBeforeRelation adds a filter from the request: a user sees only their own drafts", async () => {
    const mine = await get("people?with=drafts{title}&per_page=2", { "x-person": "1" });
    assert.deepEqual(mine.body.data.map((p: { drafts: { title: string }[] }) => p.drafts.map((d) => d.title)), [
      ["d1"],
      [],
    ]);
    const theirs = await get("people?with=drafts{title}&per_page=2", { "x-person": "2" });
    assert.deepEqual(theirs.body.data.map((p: { drafts: { title: string }[] }) => p.drafts.map((d) => d.title)), [[], [
      "d2",
    ]]);
  });
});

describe("query permissions", () => {
  test("a denied q, sort or with is a 400 naming the field and the feature", async () => {
    const filter = await get(`people?${q({ "created_at.$gt": "2000-01-01" })}`);
    assert.deepEqual([filter.status, /Filtering on created_at is not allowed on Person/.test(filter.body.error)], [
      400,
      true,
    ]);
    const sort = await get("articles?sort=status");
    assert.deepEqual([sort.status, /Sorting on status is not allowed on Article/.test(sort.body.error)], [400, true]);
    assert.equal((await get("articles?with=person")).status, 200);
    const denied = await get("badges?with=person");
    assert.deepEqual([denied.status, denied.body.error], [
      400,
      "Loading person with with is not allowed on Badge; loadable relations: (none)",
    ]);
    const through = await get(`badges?${q({ "person.name": "Ada" })}`);
    assert.deepEqual([through.status, /person with with is not allowed on Badge/.test(through.body.error)], [
      400,
      true,
    ]);
  });
});

describe("Cache-Status", () => {
  const Note = defineModel({ name: "Note", fields: { text: string() } });
  const Memo = defineModel({ name: "Memo", fields: { text: string() }, cache: false });
  let plain: App;
  before(async () => {
    plain = await createApp({ models: [Note, Memo] });
    for (const text of ["a", "b"]) await call(plain, "POST", "/api/v1/notes", { text });
    await call(plain, "POST", "/api/v1/memos", { text: "x" });
  });
  after(() => plain?.close());

  test("hit, uri-miss with stored, and stale after a write; ETag and 304 as before", async () => {
    const first = await call(plain, "GET", "/api/v1/notes?per_page=3");
    assert.equal(first.headers.get("cache-status"), "mongorest; fwd=uri-miss; stored");
    const second = await call(plain, "GET", "/api/v1/notes?per_page=3");
    assert.equal(second.headers.get("cache-status"), "mongorest; hit");
    assert.equal(second.headers.get("etag"), first.headers.get("etag"));
    const revalidated = await call(plain, "GET", "/api/v1/notes?per_page=3", undefined, {
      "if-none-match": first.headers.get("etag")!,
    });
    assert.deepEqual([revalidated.status, revalidated.headers.get("cache-status")], [304, "mongorest; hit"]);
    await call(plain, "PATCH", "/api/v1/notes/1", { text: "changed" });
    const third = await call(plain, "GET", "/api/v1/notes?per_page=3");
    assert.equal(third.headers.get("cache-status"), "mongorest; fwd=stale; stored");
    assert.notEqual(third.headers.get("etag"), first.headers.get("etag"));
    assert.equal(
      (await call(plain, "GET", "/api/v1/notes/1")).headers.get("cache-status"),
      "mongorest; fwd=uri-miss; stored",
    );
  });

  test("a model that opts out, and responses with serializers, bypass the cache", async () => {
    assert.equal(
      (await call(plain, "GET", "/api/v1/memos")).headers.get("cache-status"),
      "mongorest; fwd=bypass; detail=model",
    );
    assert.equal(
      (await call(plain, "GET", "/api/v1/memos")).headers.get("cache-status"),
      "mongorest; fwd=bypass; detail=model",
    );
    assert.equal(
      (await call(app, "GET", "/api/v1/people")).headers.get("cache-status"),
      "mongorest; fwd=bypass; detail=serializer",
    );
  });

  test("writes carry no Cache-Status", async () => {
    assert.equal((await call(plain, "POST", "/api/v1/notes", { text: "c" })).headers.get("cache-status"), null);
  });
});
