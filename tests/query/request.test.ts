import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { allKeys, get, HIDDEN_KEYS, queryApp, SECRET_MARKERS } from "./app.ts";
import { SORT_CASES, WHERE_CASES } from "./cases.ts";

let app: App;
before(async () => {
  app = await queryApp();
});
after(() => app?.close());

const ids = (body: { data: { id: number }[] }) => body.data.map((record) => record.id);

function noLeak(text: string, body: unknown): void {
  for (const marker of SECRET_MARKERS) assert.ok(!text.includes(marker), `response leaks ${marker}`);
  for (const key of allKeys(body)) assert.ok(!HIDDEN_KEYS.has(key), `response has hidden key ${key}`);
}

describe("PAGINATE q: every operator and combination against the engine", () => {
  for (const [q, expected] of WHERE_CASES) {
    test(q, async () => {
      const { status, body, text } = await get(app, "users", { q, per_page: "100" });
      assert.equal(status, 200, text);
      assert.deepEqual(ids(body), expected);
      assert.equal(body.pagination.total, expected.length);
      noLeak(text, body);
    });
  }
});

describe("PAGINATE sort", () => {
  for (const [sort, expected] of SORT_CASES) {
    test(sort || "(default)", async () => {
      const { status, body } = await get(app, "users", sort ? { sort, per_page: "100" } : { per_page: "100" });
      assert.equal(status, 200);
      assert.deepEqual(ids(body), expected);
    });
  }
  test("id breaks ties, so pages of an equal-valued sort never overlap", async () => {
    const pages = [];
    for (const page of ["1", "2", "3", "4"]) {
      pages.push(...ids((await get(app, "users", { sort: "active", per_page: "2", page })).body));
    }
    assert.deepEqual(pages, [4, 2, 5, 7, 1, 3, 6, 8]);
  });
});

describe("q, sort, fields, with and paging together", () => {
  test("a filtered, sorted, second page with field selection and relations", async () => {
    const { status, body, text } = await get(app, "users", {
      q: '[{"age.$gte":18},{"$or.name.$like":"Karl*"}]',
      sort: "-age",
      fields: "name",
      with: "posts{title|comments{content}},team{name}",
      page: "2",
      per_page: "2",
    });
    assert.equal(status, 200, text);
    // age >= 18 or Karl*: 1, 2, 3, 4, 6, 7, 8; by age desc: 8, 3, 6, 1, 7, 4, 2.
    assert.deepEqual(body.data, [
      { id: 6, name: "100% pure", posts: [], team: { name: "Red" } },
      {
        id: 1,
        name: "Karl",
        posts: [
          { title: "p11", comments: [{ content: "c101" }, { content: "c102" }] },
          { title: "p12", comments: [] },
          { title: "p13", comments: [] },
        ],
        team: { name: "Red" },
      },
    ]);
    assert.equal(body.pagination.total, 7);
    noLeak(text, body);
  });

  test("join keys are fetched but not returned unless asked for", async () => {
    const without = await get(app, "users", { q: '{"id":2}', fields: "name", with: "team{name},posts{title}" });
    assert.deepEqual(without.body.data, [{ id: 2, name: "Karla", team: { name: "Red" }, posts: [{ title: "p21" }] }]);
    const asked = await get(app, "users", {
      q: '{"id":2}',
      fields: "name,team_id",
      with: "team{id|name},posts{user_id|title}",
    });
    assert.deepEqual(asked.body.data, [{
      id: 2,
      name: "Karla",
      team_id: 1,
      team: { id: 1, name: "Red" },
      posts: [{ user_id: 2, title: "p21" }],
    }]);
  });

  test("hasOne and belongsTo give objects or null; hasMany gives arrays", async () => {
    const { body } = await get(app, "users", {
      q: '{"id.$in":[1,3,4]}',
      fields: "id",
      with: "profile{bio},team{name},posts{id}",
    });
    assert.deepEqual(body.data, [
      { id: 1, profile: { bio: "b1" }, team: { name: "Red" }, posts: [{ id: 11 }, { id: 12 }, { id: 13 }] },
      { id: 3, profile: null, team: { name: "Blue" }, posts: [{ id: 31 }] },
      { id: 4, profile: null, team: null, posts: [] },
    ]);
  });

  test("soft-deleted children are left out of relations", async () => {
    const { body } = await get(app, "posts", { q: '{"id":11}', fields: "id", with: "comments{id|likes{id}}" });
    assert.deepEqual(body.data, [{ id: 11, comments: [{ id: 101, likes: [{ id: 1001 }] }, { id: 102, likes: [] }] }]);
  });

  test("relations with all fields never include hidden ones", async () => {
    const { status, body, text } = await get(app, "teams", { with: "members{posts{user}}", per_page: "100" });
    assert.equal(status, 200);
    assert.equal(body.data[0].members.length, 3);
    noLeak(text, body);
  });
});

describe("SHOW applies with and fields", () => {
  test("one record with nested relations", async () => {
    const { status, body, text } = await get(app, "users/1", {
      fields: "name",
      with: "posts{title|comments{content}},profile",
    });
    assert.equal(status, 200, text);
    assert.equal(body.name, "Karl");
    assert.deepEqual(body.posts.map((p: { title: string }) => p.title), ["p11", "p12", "p13"]);
    assert.deepEqual(body.posts[0].comments, [{ content: "c101" }, { content: "c102" }]);
    assert.equal(body.profile.bio, "b1");
    noLeak(text, body);
  });
  test("an unknown relation on SHOW is a 400", async () => {
    const { status, body } = await get(app, "users/1", { with: "friends" });
    assert.equal(status, 400);
    assert.deepEqual(body, { error: "Undefined relation: friends" });
  });
});

describe("Axe API's JavaScript client works unchanged", () => {
  // The exact query strings axe-api-client builds (JSON.stringify of its condition array,
  // `with` paths each followed by a comma, fields and sort joined by commas).
  const cases: [string, Record<string, string>, number[]][] = [
    [".where('id', 1)", { q: JSON.stringify([{ id: 1 }]) }, [1]],
    [".where('age', '>=', 30).orWhere('name', 'john')", {
      q: JSON.stringify([{ "age.$gte": 30 }, { "$or.name": "john" }]),
    }, [1, 3, 4, 6, 7, 8]],
    [".whereIn / .whereNotNull", { q: JSON.stringify([{ "id.$in": [1, 2, 4] }, { "surname.$not": null }]) }, [1, 2]],
    [".whereNull('surname')", { q: JSON.stringify([{ surname: null }]) }, [4]],
    [".whereBetween('age', 18, 40).whereNotLike('name', '*a*')", {
      q: JSON.stringify([{ "age.$between": [18, 40] }, { "name.$notLike": "*a*" }]),
    }, [4, 6]],
    [".where('active', true).orWhere(q => q.where('age', 17).where('score', 2.5))", {
      q: JSON.stringify([{ active: true }, [{ "$or.age": 17 }, { score: 2.5 }]]),
    }, [1, 2, 3, 6, 8]],
    [".where('active', true).where(q => q.where('age', 30).orWhere('age', 65))", {
      q: JSON.stringify([{ active: true }, [{ "$and.age": 30 }, { "$or.age": 65 }]]),
    }, [1, 3]],
    [".sort('age', 'DESC').fields('id','name').with('posts{title}')", {
      sort: "-age",
      fields: "id,name",
      with: "posts{title},",
    }, [8, 3, 6, 1, 7, 4, 2, 5]],
    [".with('posts').with('team{name}')", { with: "posts,team{name}," }, [1, 2, 3, 4, 5, 6, 7, 8]],
    [".paginate({ page: 1, perPage: 10 })", { page: "1", per_page: "10" }, [1, 2, 3, 4, 5, 6, 7, 8]],
  ];
  for (const [name, params, expected] of cases) {
    test(name, async () => {
      const { status, body, text } = await get(app, "users", params);
      assert.equal(status, 200, text);
      assert.deepEqual(ids(body), expected);
    });
  }
});

describe("client mistakes are 400 with a message naming the part", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ q: "{not json" }, /^Malformed JSON in q/],
    [{ q: '{"password":"x"}' }, /^Undefined column names: password$/],
    [{ q: '{"nope":1,"zip":2}' }, /^Undefined column names: nope,zip$/],
    [{ q: '{"age.$regex":"1"}' }, /Unknown operator "\$regex"/],
    [{ q: '{"$where":"sleep(100)"}' }, /Unsupported operator "\$where"/],
    [{ q: '[{"name":"a"},{"$or.$expr":{"$eq":[1,1]}}]' }, /Unsupported operator "\$expr"/],
    [{ q: '{"name":{"$ne":null}}' }, /objects are not allowed/],
    [{ q: '{"age":"18"}' }, /expected an integer, got a string/],
    [{ q: '{"age.$between":[1,2,3]}' }, /exactly 2 values, got 3/],
    [{ q: '{"created_at.$gt":"not a date"}' }, /ISO 8601/],
    [{ q: `{"name":"${"x".repeat(4100)}"}` }, /length of q in bytes exceeds the limit of 4096/],
    [
      { q: JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ id: i }))) },
      /conditions in q exceeds the limit of 50/,
    ],
    [{ q: '[[[[[[{"id":1}]]]]]]' }, /nesting depth of q exceeds the limit of 5/],
    [
      { q: JSON.stringify({ "id.$in": Array.from({ length: 1001 }, (_, i) => i) }) },
      /1001 values, more than the limit of 1000/,
    ],
    [{ with: "friends" }, /^Undefined relation: friends$/],
    [{ with: "posts{secret}" }, /^Undefined column names: secret$/],
    [{ with: "posts{title" }, /unbalanced braces/],
    [{ with: "posts,,team" }, /empty name/],
    [{ with: "posts{comments{likes{comment{post}}}}" }, /relation depth of with .* exceeds the limit of 3/],
    [{ sort: "password" }, /^Undefined column names: password$/],
    [{ sort: "name,-name" }, /appears twice in sort/],
  ];
  for (const [params, message] of cases) {
    test(JSON.stringify(params).slice(0, 80), async () => {
      const { status, body } = await get(app, "users", params);
      assert.equal(status, 400);
      assert.deepEqual(Object.keys(body), ["error"]);
      assert.match(body.error, message);
    });
  }
});

describe("limits are configurable per app", () => {
  test("children per parent, relation count and depth follow createApp({ limits })", async () => {
    const tight = await queryApp({
      limits: { maxChildrenPerParent: 2, maxRelations: 2, maxRelationDepth: 1, maxConditions: 1 },
    });
    try {
      const capped = await get(tight, "users", { q: '{"id":1}', fields: "id", with: "posts{id}" });
      assert.deepEqual(capped.body.data, [{ id: 1, posts: [{ id: 11 }, { id: 12 }] }]);
      assert.match(
        (await get(tight, "users", { with: "posts,team,profile" })).body.error,
        /relations in with exceeds the limit of 2/,
      );
      assert.match(
        (await get(tight, "users", { with: "posts{comments}" })).body.error,
        /relation depth of with .* exceeds the limit of 1/,
      );
      assert.match(
        (await get(tight, "users", { q: '[{"id":1},{"id":2}]' })).body.error,
        /conditions in q exceeds the limit of 1/,
      );
    } finally {
      await tight.close();
    }
  });
});
