import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

describe("PAGINATE", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
  });
  after(() => app.close());

  test("an empty collection gives one empty page", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/comments"));
    assert.equal(status, 200);
    assert.deepEqual(body, {
      data: [],
      pagination: {
        total: 0,
        lastPage: 1,
        perPage: 10,
        currentPage: 1,
        from: 0,
        to: 10,
        count: "exact",
        next: null,
        prev: null,
      },
    });
  });

  test("one record at the default page size matches the spec's sample", async () => {
    await seedUsers(app, 1);
    const { body } = await jsonOf(await call(app, "GET", "/api/v1/users"));
    assert.equal(body.data.length, 1);
    assert.deepEqual(body.pagination, {
      total: 1,
      lastPage: 1,
      perPage: 10,
      currentPage: 1,
      from: 0,
      to: 10,
      count: "exact",
      next: null,
      prev: null,
    });
  });

  test("page 2 of 25 records holds ids 11..20 in id order", async () => {
    await seedUsers(app, 24);
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users?page=2&per_page=10"));
    assert.equal(status, 200);
    assert.deepEqual(body.data.map((u: { id: number }) => u.id), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    const { next, prev, ...spec } = body.pagination;
    assert.deepEqual(spec, { total: 25, lastPage: 3, perPage: 10, currentPage: 2, from: 10, to: 20, count: "exact" });
    assert.equal(typeof next, "string", "a later page exists");
    assert.equal(typeof prev, "string", "an earlier page exists");
  });

  test("records show id and timestamps, never _id or hidden fields", async () => {
    const { body } = await jsonOf(await call(app, "GET", "/api/v1/users?per_page=1"));
    const [user] = body.data;
    assert.deepEqual(Object.keys(user), ["id", "email", "name", "surname", "created_at", "updated_at"]);
    assert.match(user.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(!JSON.stringify(body).includes("secret"));
  });

  test("a page past the end is 200 with no data", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users?page=4&per_page=10"));
    assert.equal(status, 200);
    assert.deepEqual(body.data, []);
    assert.deepEqual(body.pagination, {
      total: 25,
      lastPage: 3,
      perPage: 10,
      currentPage: 4,
      from: 30,
      to: 40,
      count: "exact",
      next: null,
      prev: null,
    });
  });

  test("the largest page size is allowed and not exceeded", async () => {
    const { body } = await jsonOf(await call(app, "GET", "/api/v1/users?per_page=100"));
    assert.equal(body.data.length, 25);
    assert.equal(body.pagination.perPage, 100);
  });

  const bad: [string, RegExp][] = [
    ["page=0", /^The page parameter must be an integer from 1 to 900719925474099; received "0"\.$/],
    ["page=900719925474100", /page.*from 1 to 900719925474099; received "900719925474100"/],
    ["page=9007199254740993", /page.*"9007199254740993"/],
    ["page=-1", /page.*"-1"/],
    ["page=abc", /page.*"abc"/],
    ["page=1.5", /page.*"1\.5"/],
    ["page=", /page.*""/],
    ["per_page=0", /^The per_page parameter must be an integer from 1 to 100; received "0"\.$/],
    ["per_page=101", /per_page.*from 1 to 100.*"101"/],
    ["per_page=ten", /per_page.*"ten"/],
    ["per_page=1e2", /per_page.*"1e2"/],
    ["page=1&page=2", /page parameter may be given only once/],
  ];
  for (const [query, message] of bad) {
    test(`${query} is a 400 naming the parameter, value and range`, async () => {
      const { status, body } = await jsonOf(await call(app, "GET", `/api/v1/users?${query}`));
      assert.equal(status, 400);
      assert.match(body.error, message);
    });
  }

  test("fields selects columns, id always allowed", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users?fields=name,id&per_page=2"));
    assert.equal(status, 200);
    assert.deepEqual(body.data, [{ id: 1, name: "Name1" }, { id: 2, name: "Name2" }]);
  });

  test("fields with unknown or hidden names is a 400 listing them", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users?fields=name,nope,password"));
    assert.equal(status, 400);
    assert.deepEqual(body, { error: "Undefined column names: nope,password" });
  });
});

describe("PAGINATE page-size overrides", () => {
  test("a model can set its own default and maximum", async () => {
    const Tag = defineModel({ name: "Tag", fields: { label: string() }, perPage: 2, maxPerPage: 3 });
    const app = await createApp({ models: [Tag] });
    try {
      for (const label of ["a", "b", "c", "d"]) await call(app, "POST", "/api/v1/tags", { label });
      const first = await jsonOf(await call(app, "GET", "/api/v1/tags"));
      assert.equal(first.body.data.length, 2);
      assert.equal(first.body.pagination.lastPage, 2);
      const tooMany = await jsonOf(await call(app, "GET", "/api/v1/tags?per_page=4"));
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.body.error, /from 1 to 3; received "4"/);
    } finally {
      await app.close();
    }
  });
});
