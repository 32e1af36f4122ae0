import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sortLimits } from "../../src/embedded/query/sort.ts";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

/**
 * A sort no index serves, past the engine's sort memory (MongoDB's code 292), is the client's
 * choice of sort and depth: a 400 that says what to do instead, never a 500.
 */
let app: App;
const saved = sortLimits.maxEntries;
before(async () => {
  sortLimits.maxEntries = 20; // the engine's limit, lowered so a small collection reaches it
  // In the app's thread: the limit lowered above is this thread's copy of the engine's modules.
  app = await exampleApp({ responseCache: false, engineThread: false });
  await seedUsers(app, 30);
});
after(async () => {
  sortLimits.maxEntries = saved;
  await app.close();
});

test("a deep page of an unindexed sort past the sort limit is a 400 saying what to do", async () => {
  const shallow = await jsonOf(await call(app, "GET", "/api/v1/users?sort=surname&per_page=10&page=1"));
  assert.equal(shallow.status, 200, "within the limit the sort is served");
  const deep = await jsonOf(await call(app, "GET", "/api/v1/users?sort=surname&per_page=10&page=3"));
  assert.equal(deep.status, 400);
  assert.match(
    deep.body.error,
    /too large for the database to hold in memory: sort on an indexed field, filter with q, or page by cursor/,
  );
});
