import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

describe("SHOW", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 3);
  });
  after(() => app.close());

  test("returns one record without _id or hidden fields", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users/2"));
    assert.equal(status, 200);
    assert.equal(body.id, 2);
    assert.equal(body.email, "u2@example.com");
    assert.ok(!("_id" in body) && !("password" in body));
  });

  test("fields applies to SHOW too", async () => {
    const { body } = await jsonOf(await call(app, "GET", "/api/v1/users/3?fields=email"));
    assert.deepEqual(body, { id: 3, email: "u3@example.com" });
  });

  for (const id of ["99", "0", "abc", "1.5", "-1", "%ZZ", "1e1", "01", "99999999999999999999"]) {
    test(`id ${id} gives the spec's 404`, async () => {
      const { status, body } = await jsonOf(await call(app, "GET", `/api/v1/users/${id}`));
      assert.equal(status, 404);
      assert.deepEqual(body, { error: "The item is not found on User." });
    });
  }

  test("a percent-encoded id is decoded", async () => {
    const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users/%32"));
    assert.equal(status, 200);
    assert.equal(body.id, 2);
  });
});
