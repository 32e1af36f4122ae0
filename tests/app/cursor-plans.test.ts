import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { number, optional, string } from "superstruct";
import type { CommandStartedEvent, Document } from "mongodb";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { mulberry32 } from "../helpers/random.ts";

// Every find a cursor page sends, replayed through the engine's explain, reads about one page
// of index entries and documents, however deep the page lies: forward and backward, in id
// order, on ascending, descending and mixed sorts, across null and missing values, and with a
// q ANDed in. Seeded data (CURSOR_PLANS_SEED); every failure names the seed.
const SEED = Number(process.env.CURSOR_PLANS_SEED ?? 1129);
const N = 1500;
const PER_PAGE = 50;
/** Entries a find may read beyond the page and the one extra record: the first of each branch's scan, and the one that ends it. */
const SLACK = 8;

const Member = defineModel({
  name: "Member",
  fields: { name: optional(string()), score: optional(number()), group: string() },
  maxPerPage: 100,
  indexes: [{ keys: { name: 1 } }, { keys: { score: -1 } }, { keys: { created_at: -1, name: 1 } }, {
    keys: { group: 1, score: -1 },
  }],
});

const random = mulberry32(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];

function person(i: number): Document {
  const at = new Date(Date.UTC(2025, 0, 1 + Math.floor(random() * 30)));
  const doc: Document = { _id: i + 1, group: pick(["a", "b", "c"]), created_at: at, updated_at: at };
  const name = pick(["ann", "bob", "cy", "dee", "eve", null, undefined]);
  const score = pick([0, 1, 2.5, 7, 42, null, undefined]);
  if (name !== undefined) doc.name = name;
  if (score !== undefined) doc.score = score;
  return doc;
}

let app: App;
let finds: Document[] = [];
before(async () => {
  app = await createApp({ models: [Member], responseCache: false, clientOptions: { monitorCommands: true } });
  app.client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.commandName === "find" && event.command.find === "members") finds.push(structuredClone(event.command));
  });
  await app.db.collection("members").insertMany(Array.from({ length: N }, (_, i) => person(i)));
});
after(() => app?.close());

async function get(path: string): Promise<Document> {
  const response = await app.fetch(new Request(`http://localhost${path}`));
  const body = await response.json();
  assert.equal(response.status, 200, `seed ${SEED}: ${path}: ${JSON.stringify(body)}`);
  return body;
}

/** The work of one find, as the engine's explain reports it. */
async function work(find: Document): Promise<{ keys: number; docs: number; plan: Document }> {
  const { find: collection, filter, sort, skip, limit, projection } = find;
  const explained = await app.db.command({
    explain: { find: collection, filter, sort, skip, limit, projection },
    verbosity: "executionStats",
  });
  const stats = explained.executionStats;
  return { keys: stats.totalKeysExamined, docs: stats.totalDocsExamined, plan: explained.queryPlanner.winningPlan };
}

/** Requests a cursor page and checks the work of every find it sent; returns the body. */
async function cursorPage(cursor: string, budget: number, label: string): Promise<Document> {
  finds = [];
  const body = await get(`/api/v1/members?cursor=${encodeURIComponent(cursor)}`);
  assert.ok(finds.length >= 1, "a cursor page reads with find");
  for (const find of finds) {
    const { keys, docs, plan } = await work(find);
    const sort = find.sort instanceof Map ? Object.fromEntries(find.sort) : find.sort;
    const where = `seed ${SEED}: ${label}: ${JSON.stringify(find.filter)} sort ${JSON.stringify(sort)}`;
    assert.ok(keys <= budget && docs <= budget, `${where}: ${keys} keys, ${docs} docs; plan ${JSON.stringify(plan)}`);
  }
  return body;
}

const CASES: [label: string, query: string, budget: number][] = [
  ["id order", "", PER_PAGE + 1 + SLACK],
  ["sort=-id", "sort=-id", PER_PAGE + 1 + SLACK],
  ["sort=name (nulls and missing first)", "sort=name", PER_PAGE + 1 + SLACK],
  ["sort=-score (nulls last, _id ascending: mixed)", "sort=-score", PER_PAGE + 1 + SLACK],
  ["sort=-created_at,name (mixed)", "sort=-created_at,name", PER_PAGE + 1 + SLACK],
  ["sort=group,-score (mixed)", "sort=group,-score", PER_PAGE + 1 + SLACK],
  [
    "q on the index's first key, sort=-score",
    `q=${encodeURIComponent('{"group":"b"}')}&sort=-score`,
    PER_PAGE + 1 + SLACK,
  ],
  // A third of the records are in group c, so about 1.5 entries are read per record returned.
  [
    "q with $or through $and, sort=name",
    `q=${encodeURIComponent('[{"$or.group":"a"},{"$or.group":"b"}]')}&sort=name`,
    2 * (PER_PAGE + 1) + SLACK,
  ],
];

describe("cursor pages read about one page, through explain of the finds they send", () => {
  for (const [label, query, budget] of CASES) {
    test(`${label}: every page forward by next, then back by prev`, async () => {
      let body = await get(`/api/v1/members?per_page=${PER_PAGE}&${query}`);
      let pages = 1;
      let cursor: string | null = body.pagination.next;
      let last = body;
      for (; cursor !== null; pages++) {
        last = await cursorPage(cursor, budget, `${label}, page ${pages + 1} forward`);
        cursor = last.pagination.next;
        assert.ok(pages < N, "the walk ends");
      }
      cursor = last.pagination.prev;
      for (let back = pages - 1; cursor !== null; back--) {
        body = await cursorPage(cursor, budget, `${label}, page ${back} backward`);
        cursor = body.pagination.prev;
      }
      assert.ok(pages > 5, `seed ${SEED}: ${label}: walked ${pages} pages`);
    });
  }
});

describe("what lies behind a cursor page", () => {
  async function fresh(): Promise<App> {
    const other = await createApp({ models: [Member], responseCache: false, clientOptions: { monitorCommands: true } });
    const at = new Date("2025-01-01T00:00:00Z");
    await other.db.collection("members").insertMany(
      ["ann", "bob", "cy", "dee", "eve", "fay"].map((name, i) => ({
        _id: i + 1,
        name,
        group: "a",
        created_at: at,
        updated_at: at,
      })) as never[],
    );
    return other;
  }

  async function page(other: App, path: string): Promise<{ body: Document; finds: number }> {
    let count = 0;
    const listener = (event: CommandStartedEvent) => void (event.commandName === "find" && count++);
    other.client.on("commandStarted", listener);
    try {
      const response = await other.fetch(new Request(`http://localhost${path}`));
      assert.equal(response.status, 200);
      return { body: await response.json(), finds: count };
    } finally {
      other.client.off("commandStarted", listener);
    }
  }

  const names = (body: Document) => body.data.map((record: { name: string }) => record.name);

  test("the boundary record still there: one find reads the page and shows a page behind", async () => {
    const other = await fresh();
    try {
      const first = await page(other, "/api/v1/members?sort=name&per_page=2");
      const second = await page(other, `/api/v1/members?cursor=${encodeURIComponent(first.body.pagination.next)}`);
      assert.deepEqual(names(second.body), ["cy", "dee"]);
      assert.notEqual(second.body.pagination.prev, null);
      assert.equal(second.finds, 1);
      const back = await page(other, `/api/v1/members?cursor=${encodeURIComponent(second.body.pagination.prev)}`);
      assert.deepEqual(names(back.body), ["ann", "bob"]);
      assert.equal(back.body.pagination.prev, null);
      assert.notEqual(back.body.pagination.next, null);
      assert.equal(back.finds, 1);
    } finally {
      await other.close();
    }
  });

  test("the boundary record deleted: a second find asks what lies behind, forward and backward", async () => {
    const other = await fresh();
    try {
      const first = await page(other, "/api/v1/members?sort=name&per_page=1");
      await other.db.collection("members").deleteOne({ _id: 1 as never }); // ann, the boundary of next
      const second = await page(other, `/api/v1/members?cursor=${encodeURIComponent(first.body.pagination.next)}`);
      assert.deepEqual(names(second.body), ["bob"]);
      assert.equal(second.body.pagination.prev, null, "nothing is left before bob");
      assert.equal(second.finds, 2);
      const third = await page(other, `/api/v1/members?sort=name&per_page=2&page=2`); // dee, eve (ann is gone)
      assert.deepEqual(names(third.body), ["dee", "eve"]);
      await other.db.collection("members").deleteOne({ _id: 4 as never }); // dee, the boundary of prev
      const back = await page(other, `/api/v1/members?cursor=${encodeURIComponent(third.body.pagination.prev)}`);
      assert.deepEqual(names(back.body), ["bob", "cy"]);
      assert.notEqual(back.body.pagination.next, null, "eve is still after cy");
      assert.equal(back.finds, 2);
      await other.db.collection("members").deleteMany({ _id: { $gt: 4 } as never }); // eve, fay: nothing after dee
      const none = await page(other, `/api/v1/members?cursor=${encodeURIComponent(third.body.pagination.prev)}`);
      assert.deepEqual(names(none.body), ["bob", "cy"]);
      assert.equal(none.body.pagination.next, null, "nothing is left after cy");
    } finally {
      await other.close();
    }
  });
});
