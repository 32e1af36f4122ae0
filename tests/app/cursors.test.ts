// deno-lint-ignore-file no-explicit-any -- response bodies are parsed JSON that the assertions walk
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { number, optional, string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";
import { mulberry32 } from "../helpers/random.ts";

// Cursor walks over 1,000 records with ties, nulls and missing fields, under inserts and deletes
// between requests. Random data and changes come from a seeded generator: set CURSOR_SEED to
// replay a run; every failure message names the seed.
const SEED = Number(process.env.CURSOR_SEED ?? 8288);
const Item = defineModel({
  name: "Item",
  fields: { name: optional(string()), score: optional(number()), group: optional(string()) },
  maxPerPage: 100,
});
const Other = defineModel({ name: "Other", fields: { name: optional(string()) } });

const random = mulberry32(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
const at = new Date("2025-01-01T00:00:00Z");
let nextId = 1;

/** A record whose fields are often equal to others', null, or missing altogether. */
function randomItem(): Record<string, unknown> {
  const doc: Record<string, unknown> = { _id: nextId++, created_at: at, updated_at: at };
  const name = pick(["ann", "bob", "cy", "dee", "Éve", "zed", null, undefined]);
  const score = pick([-2.5, 0, 1, 1, 7, 42, null, undefined]);
  const group = pick(["a", "b", null, undefined]);
  if (name !== undefined) doc.name = name;
  if (score !== undefined) doc.score = score;
  if (group !== undefined) doc.group = group;
  return doc;
}

let app: App;
before(async () => {
  app = await createApp({ models: [Item, Other], responseCache: false });
  await app.db.collection("items").insertMany(Array.from({ length: 1000 }, randomItem) as never[]);
  await app.db.collection("others").insertOne({ _id: 1, name: "x", created_at: at, updated_at: at } as never);
});
after(() => app?.close());

async function get(path: string): Promise<{ status: number; body: any; link: string | null }> {
  const response = await app.fetch(new Request(`http://localhost${path}`));
  return { ...(await jsonOf(response)), link: response.headers.get("link") };
}

const ids = (body: any): number[] => body.data.map((record: { id: number }) => record.id);
const cursorUrl = (cursor: string) => `/api/v1/items?cursor=${encodeURIComponent(cursor)}`;

/** The ids in the order the engine itself sorts them: what a walk must reproduce. */
async function engineOrder(sort: Record<string, 1 | -1>, filter: Record<string, unknown> = {}): Promise<number[]> {
  const docs = await app.db.collection("items").find(filter, { sort, projection: { _id: 1 } }).toArray();
  return docs.map((doc) => doc._id as unknown as number);
}

/** Walks a list to its end by `next`, or from a cursor back to its start by `prev`; returns every page. */
async function walk(
  first: string,
  rel: "next" | "prev",
  between: () => Promise<void> = async () => {},
): Promise<number[][]> {
  const pages: number[][] = [];
  let page = await get(first);
  for (;;) {
    assert.equal(page.status, 200, `seed ${SEED}: ${JSON.stringify(page.body)}`);
    pages.push(ids(page.body));
    const cursor = page.body.pagination[rel];
    if (cursor === null) return pages;
    assert.ok(pages.length < 1000, `seed ${SEED}: the walk does not end`);
    await between();
    page = await get(cursorUrl(cursor));
  }
}

const SORTS: [string, Record<string, 1 | -1>][] = [
  ["name", { name: 1, _id: 1 }],
  ["-name", { name: -1, _id: 1 }],
  ["-score,name", { score: -1, name: 1, _id: 1 }],
  ["group,-score,-id", { group: 1, score: -1, _id: -1 }],
  ["-created_at,name", { created_at: -1, name: 1, _id: 1 }],
  ["-id", { _id: -1 }],
];

describe("cursor walks over 1,000 records", () => {
  for (const [sort, spec] of SORTS) {
    test(`sort=${sort}: forward by next and back by prev, every record exactly once, in order`, async () => {
      const expected = await engineOrder(spec);
      const perPage = 37;
      const forward = await walk(`/api/v1/items?sort=${sort}&per_page=${perPage}`, "next");
      assert.deepEqual(forward.flat(), expected, `seed ${SEED}: forward walk`);
      assert.ok(forward.slice(0, -1).every((page) => page.length === perPage), `seed ${SEED}: full pages`);
      // From the last page back to the first.
      const last = await get(`/api/v1/items?sort=${sort}&per_page=${perPage}&page=${forward.length}`);
      const backward = await walk(cursorUrl(last.body.pagination.prev), "prev");
      assert.deepEqual(
        [...backward].reverse().flat(),
        expected.slice(0, expected.length - forward[forward.length - 1].length),
        `seed ${SEED}: backward walk`,
      );
    });
  }

  test("with a filter on q, the cursor keeps the filter without the client repeating it", async () => {
    const q = JSON.stringify([{ "score.$gte": 1 }, { "$or.name": null }]);
    const expected = await engineOrder({ score: -1, name: 1, _id: 1 }, {
      $or: [{ score: { $gte: 1 } }, { name: null }],
    });
    const pages = await walk(`/api/v1/items?sort=-score,name&per_page=50&q=${encodeURIComponent(q)}`, "next");
    assert.deepEqual(pages.flat(), expected, `seed ${SEED}`);
  });

  test("inserts and deletes between requests: no record twice, every surviving record once, in order", async () => {
    for (const [sort, spec] of [SORTS[0], SORTS[2], SORTS[3]]) {
      const before = new Set(await engineOrder(spec));
      const deleted = new Set<number>();
      const inserted = new Set<number>();
      const items = app.db.collection("items");
      const between = async () => {
        for (let i = 0; i < 3; i++) {
          const doc = randomItem();
          await items.insertOne(doc as never);
          inserted.add(doc._id as number);
        }
        const victim = pick([...before].filter((id) => !deleted.has(id)));
        await items.deleteOne({ _id: victim as never });
        deleted.add(victim);
      };
      for (const rel of ["next", "prev"] as const) {
        const start = rel === "next"
          ? `/api/v1/items?sort=${sort}&per_page=50`
          : `/api/v1/items?sort=${sort}&per_page=50&page=${Math.ceil(before.size / 50)}`;
        const pages = await walk(start, rel, between);
        const seen = (rel === "next" ? pages : [...pages].reverse()).flat();
        assert.equal(new Set(seen).size, seen.length, `seed ${SEED}, sort=${sort}, ${rel}: a record came twice`);
        const survivors = [...before].filter((id) => !deleted.has(id));
        const missing = rel === "next" ? survivors.filter((id) => !seen.includes(id)) : [];
        assert.deepEqual(missing, [], `seed ${SEED}, sort=${sort}: surviving records skipped`);
        const final = await engineOrder(spec);
        const positions = seen.filter((id) => final.includes(id)).map((id) => final.indexOf(id));
        assert.ok(
          positions.every((p, i) => i === 0 || p > positions[i - 1]),
          `seed ${SEED}, sort=${sort}, ${rel}: out of order`,
        );
      }
    }
  });
});

describe("cursor responses", () => {
  test("page 1 has next and no prev; a cursor page has null position fields and Link headers with full URLs", async () => {
    const first = await get("/api/v1/items?per_page=10&sort=name&fields=name");
    assert.equal(first.body.pagination.prev, null);
    assert.equal(first.body.pagination.currentPage, 1);
    assert.match(first.link!, /^<http:\/\/localhost\/api\/v1\/items\?fields=name&cursor=[^>]+>; rel="next"$/);
    const nextUrl = new URL(/<([^>]+)>; rel="next"/.exec(first.link!)![1]);
    const second = await get(nextUrl.pathname + nextUrl.search);
    assert.equal(second.status, 200);
    assert.deepEqual(Object.keys(second.body.data[0]), ["id", "name"], "fields travels in the link");
    const { pagination } = second.body;
    assert.deepEqual([pagination.currentPage, pagination.from, pagination.to, pagination.perPage], [
      null,
      null,
      null,
      10,
    ]);
    assert.equal(pagination.total, await app.db.collection("items").countDocuments());
    assert.match(second.link!, /rel="next", <[^>]+>; rel="prev"$/);
  });

  test("the last page has no next and no rel=next link", async () => {
    const total = await app.db.collection("items").countDocuments();
    const last = await get(`/api/v1/items?per_page=100&page=${Math.ceil(total / 100)}`);
    assert.equal(last.body.pagination.next, null);
    assert.doesNotMatch(last.link!, /rel="next"/);
  });
});

describe("bad cursors are 400s with {error}", () => {
  let cursor: string;
  before(async () => {
    cursor =
      (await get("/api/v1/items?sort=-score,name&per_page=5&q=%7B%22score.%24gte%22%3A1%7D")).body.pagination.next;
  });

  async function refused(path: string, message: RegExp): Promise<void> {
    const { status, body } = await get(path);
    assert.equal(status, 400, JSON.stringify(body));
    assert.deepEqual(Object.keys(body), ["error"]);
    assert.match(body.error, message);
  }

  test("tampered: one character of the payload changed", async () => {
    const i = 3;
    const tampered = cursor.slice(0, i) + (cursor[i] === "A" ? "B" : "A") + cursor.slice(i + 1);
    await refused(cursorUrl(tampered), /altered or was issued by another server/);
  });

  test("truncated, garbage, empty", async () => {
    await refused(cursorUrl(cursor.slice(0, -4)), /malformed or cut short/);
    await refused(cursorUrl(cursor.slice(0, cursor.indexOf("."))), /malformed or cut short/);
    await refused(cursorUrl(cursor.slice(8)), /altered|malformed/);
    await refused(cursorUrl("not a cursor"), /malformed/);
    await refused("/api/v1/items?cursor=", /malformed/);
    await refused(cursorUrl("x".repeat(20_000) + ".y"), /malformed/);
  });

  test("foreign: issued by another model's list, or by another server", async () => {
    await refused(
      `/api/v1/others?cursor=${encodeURIComponent(cursor)}`,
      /issued by another list, not \/api\/v1\/others/,
    );
    const elsewhere = await createApp({ models: [Item], cursorSecret: "another server's secret" });
    try {
      await elsewhere.db.collection("items").insertMany(
        Array.from({ length: 3 }, (_, i) => ({ _id: i + 1, name: "a" })) as never[],
      );
      const theirs = (await jsonOf(await call(elsewhere, "GET", "/api/v1/items?per_page=1"))).body.pagination.next;
      await refused(cursorUrl(theirs), /altered or was issued by another server/);
    } finally {
      await elsewhere.close();
    }
  });

  test("foreign parent: a cursor of /users/1/posts does not page /users/2/posts", async () => {
    const nested = await exampleApp({ responseCache: false });
    try {
      await nested.db.collection("users").insertMany(
        [1, 2].map((id) => ({ _id: id, email: `u${id}@x.io`, name: "n", surname: "s" })) as never[],
      );
      await nested.db.collection("posts").insertMany(
        Array.from({ length: 6 }, (_, i) => ({ _id: i + 1, user_id: 1 + (i % 2), title: `t${i}` })) as never[],
      );
      const mine = (await jsonOf(await call(nested, "GET", "/api/v1/users/1/posts?per_page=1"))).body.pagination.next;
      const ok = await jsonOf(await call(nested, "GET", `/api/v1/users/1/posts?cursor=${encodeURIComponent(mine)}`));
      assert.deepEqual(ok.body.data.map((post: { id: number }) => post.id), [3]);
      const theirs = await jsonOf(
        await call(nested, "GET", `/api/v1/users/2/posts?cursor=${encodeURIComponent(mine)}`),
      );
      assert.equal(theirs.status, 400);
      assert.match(theirs.body.error, /issued by another list, not \/api\/v1\/users\/2\/posts/);
    } finally {
      await nested.close();
    }
  });

  test("combined with page, or with a different sort, q, per_page", async () => {
    await refused(`${cursorUrl(cursor)}&page=2`, /page parameter cannot be combined with cursor/);
    await refused(`${cursorUrl(cursor)}&sort=name`, /sort parameter differs/);
    await refused(`${cursorUrl(cursor)}&q=${encodeURIComponent('{"score.$gte":2}')}`, /q parameter differs/);
    await refused(`${cursorUrl(cursor)}&per_page=6`, /per_page parameter differs/);
  });

  test("the same sort, q and per_page may be repeated, in any spelling", async () => {
    const same = `${cursorUrl(cursor)}&sort=${encodeURIComponent("-score,+name")}&q=${
      encodeURIComponent('{ "score.$gte" : 1 }')
    }&per_page=5`;
    const { status, body } = await get(same);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(ids(body), ids((await get(cursorUrl(cursor))).body));
  });

  test("a cursor carries no hidden field and no value of an unselected record's other fields", async () => {
    const Secretive = defineModel({ name: "Secretive", fields: { name: string(), pin: string() }, hidden: ["pin"] });
    const other = await createApp({ models: [Secretive] });
    try {
      await other.db.collection("secretives").insertMany(
        [1, 2, 3].map((id) => ({ _id: id, name: `n${id}`, pin: `PIN${id}` })) as never[],
      );
      const next = (await jsonOf(await call(other, "GET", "/api/v1/secretives?per_page=1&sort=name"))).body.pagination
        .next as string;
      const payload = atob(next.slice(0, next.indexOf(".")).replace(/-/g, "+").replace(/_/g, "/"));
      assert.doesNotMatch(payload, /PIN/);
      assert.equal((await call(other, "GET", "/api/v1/secretives?sort=pin")).status, 400);
    } finally {
      await other.close();
    }
  });
});
