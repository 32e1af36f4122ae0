import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

describe("HTTP semantics", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 3);
  });
  after(() => app.close());

  test("SHOW and PAGINATE send a strong ETag; a matching If-None-Match gives 304", async () => {
    for (const path of ["/api/v1/users/1", "/api/v1/users?per_page=2"]) {
      const first = await call(app, "GET", path);
      const etag = first.headers.get("etag")!;
      assert.match(etag, /^"[^"]+"$/, "strong, quoted");
      const again = await call(app, "GET", path, undefined, { "if-none-match": etag });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), "");
      assert.equal(again.headers.get("etag"), etag);
      const other = await call(app, "GET", path, undefined, { "if-none-match": '"nope"' });
      assert.equal(other.status, 200);
    }
  });

  test("the ETag changes when the record changes", async () => {
    const before = (await call(app, "GET", "/api/v1/users/2")).headers.get("etag");
    await call(app, "PATCH", "/api/v1/users/2", { name: "Changed" });
    const after = (await call(app, "GET", "/api/v1/users/2")).headers.get("etag");
    assert.notEqual(before, after);
  });

  test("If-Match: a mismatch is 412 and nothing is written; a match writes", async () => {
    const etag = (await call(app, "GET", "/api/v1/users/3")).headers.get("etag")!;
    const stale = await jsonOf(
      await call(app, "PATCH", "/api/v1/users/3", { name: "Nope" }, { "if-match": '"stale"' }),
    );
    assert.equal(stale.status, 412);
    assert.equal(typeof stale.body.error, "string");
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/users/3"))).body.name, "Name3");
    const weak = await call(app, "PUT", "/api/v1/users/3", { email: "u3@example.com", name: "N", surname: "S" }, {
      "if-match": `W/${etag}`,
    });
    assert.equal(weak.status, 412, "If-Match uses strong comparison");
    const ok = await call(app, "PATCH", "/api/v1/users/3", { name: "Yes" }, { "if-match": etag });
    assert.equal(ok.status, 200);
    const newTag = ok.headers.get("etag")!;
    assert.equal(newTag, (await call(app, "GET", "/api/v1/users/3")).headers.get("etag"));
    const del = await call(app, "DELETE", "/api/v1/users/3", undefined, { "if-match": etag });
    assert.equal(del.status, 412);
    assert.equal((await call(app, "DELETE", "/api/v1/users/3", undefined, { "if-match": newTag })).status, 204);
  });

  test("50 concurrent PATCHes with the same If-Match: exactly one wins", async () => {
    const etag = (await call(app, "GET", "/api/v1/users/1")).headers.get("etag")!;
    const responses = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => call(app, "PATCH", "/api/v1/users/1", { name: `Racer${i}` }, { "if-match": etag }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 200).length, 1);
    assert.equal(statuses.filter((s) => s === 412).length, 49);
  });

  test("HEAD works wherever GET does, with no body", async () => {
    for (const path of ["/api/v1/users", "/api/v1/users/1", "/api/v1/users/99"]) {
      const get = await call(app, "GET", path);
      const head = await call(app, "HEAD", path);
      assert.equal(head.status, get.status, path);
      assert.equal(await head.text(), "");
      assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
      assert.equal(head.headers.get("etag"), get.headers.get("etag"));
    }
  });

  test("a wrong method on an existing route is 405 with Allow", async () => {
    const collection = await call(app, "DELETE", "/api/v1/users");
    assert.equal(collection.status, 405);
    assert.equal(collection.headers.get("allow"), "OPTIONS, GET, HEAD, POST");
    assert.match((await collection.json()).error, /DELETE method is not allowed/);
    const item = await call(app, "POST", "/api/v1/users/1", {});
    assert.equal(item.status, 405);
    assert.equal(item.headers.get("allow"), "OPTIONS, GET, HEAD, PUT, PATCH, DELETE");
  });
});
