import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";

// Parameters written another way mean the same thing: a page number of 16 digits, leading
// zeros, a cursor's pinned per_page spelled differently, trashed on a model without soft delete.
describe("list parameters, however they are written", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    for (let i = 1; i <= 12; i++) {
      await call(app, "POST", "/api/v1/users", { email: `u${i}@example.com`, name: `N${i}`, surname: "S" });
    }
  });
  after(() => app.close());

  test("a page number of 16 digits within the stated range is an empty page, not a 400", async () => {
    const last = await jsonOf(await call(app, "GET", "/api/v1/users?page=9007199254740991&per_page=1"));
    assert.equal(last.status, 200, JSON.stringify(last.body));
    assert.deepEqual(last.body.data, []);
    const zeros = await jsonOf(await call(app, "GET", "/api/v1/users?page=0000000000000001&per_page=2"));
    assert.deepEqual([zeros.status, zeros.body.pagination.currentPage], [200, 1]);
    const beyond = await jsonOf(await call(app, "GET", "/api/v1/users?page=9007199254740992&per_page=1"));
    assert.equal(beyond.status, 400);
  });

  test("a cursor's per_page may be repeated in another spelling, and trashed on a model without soft delete", async () => {
    for (const extra of ["per_page=05", "per_page=05&trashed=true"]) {
      const first = await jsonOf(await call(app, "GET", `/api/v1/users?${extra}`));
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const next = first.body.pagination.next as string;
      assert.ok(next, "a next cursor");
      const second = await jsonOf(
        await call(app, "GET", `/api/v1/users?${extra}&cursor=${encodeURIComponent(next)}`),
      );
      assert.equal(second.status, 200, `${extra}: ${JSON.stringify(second.body)}`);
      assert.equal(second.body.data.length, 5);
    }
    const first = await jsonOf(await call(app, "GET", "/api/v1/users?per_page=5"));
    const other = await call(
      app,
      "GET",
      `/api/v1/users?per_page=6&cursor=${encodeURIComponent(first.body.pagination.next)}`,
    );
    assert.equal(other.status, 400);
  });

  test("a cursor issued on the list with a trailing slash serves the list without one, and back", async () => {
    for (const [from, to] of [["/api/v1/users/", "/api/v1/users"], ["/api/v1/users", "/api/v1/users//"]]) {
      const first = await jsonOf(await call(app, "GET", `${from}?per_page=5`));
      assert.equal(first.status, 200);
      const second = await jsonOf(
        await call(app, "GET", `${to}?cursor=${encodeURIComponent(first.body.pagination.next)}`),
      );
      assert.equal(second.status, 200, `${from} → ${to}: ${JSON.stringify(second.body)}`);
      assert.equal(second.body.data[0].id, first.body.data[4].id + 1);
    }
  });

  test("a body that is not UTF-8 is refused, not stored with replacement characters", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"email":"bad@example.com","name":"A'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('","surname":"S"}'),
    ]);
    const response = await app.fetch(
      new Request("http://localhost/api/v1/users", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bytes,
      }),
    );
    assert.deepEqual(await jsonOf(response), { status: 400, body: { error: "The request body is not valid JSON." } });
    const stored = await jsonOf(
      await call(app, "GET", `/api/v1/users?q=${encodeURIComponent('{"email":"bad@example.com"}')}`),
    );
    assert.deepEqual(stored.body.data, []);
  });
});
