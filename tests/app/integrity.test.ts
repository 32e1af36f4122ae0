import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { optional, string } from "superstruct";
import { type App, createApp, defineModel, id } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

describe("unique fields", () => {
  let app: App;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 2);
  });
  after(() => app.close());

  test("a duplicate on insert, update or patch is a 409 and nothing changes", async () => {
    const user = { email: "u1@example.com", name: "A", surname: "B" };
    const inserted = await jsonOf(await call(app, "POST", "/api/v1/users", user));
    assert.equal(inserted.status, 409);
    assert.deepEqual(inserted.body, { error: "The email has already been taken." });
    const put = await jsonOf(await call(app, "PUT", "/api/v1/users/2", user));
    assert.equal(put.status, 409);
    const patched = await jsonOf(await call(app, "PATCH", "/api/v1/users/2", { email: "u1@example.com" }));
    assert.equal(patched.status, 409);
    assert.deepEqual(patched.body, { error: "The email has already been taken." });
    assert.equal((await jsonOf(await call(app, "GET", "/api/v1/users/2"))).body.email, "u2@example.com");
    assert.equal(await app.db.collection("users").countDocuments(), 2);
  });

  test("50 concurrent inserts of one email: exactly one 201, the rest 409", async () => {
    const user = { email: "race@example.com", name: "R", surname: "R" };
    const statuses = (await Promise.all(Array.from({ length: 50 }, () => call(app, "POST", "/api/v1/users", user))))
      .map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 1);
    assert.equal(statuses.filter((s) => s === 409).length, 49);
    assert.equal(await app.db.collection("users").countDocuments({ email: "race@example.com" }), 1);
  });

  test("declared indexes exist", async () => {
    const names = (await app.db.collection("posts").listIndexes().toArray()).map((index) => index.name);
    assert.ok(names.includes("user_id_1"), names.join());
    const userIndexes = await app.db.collection("users").listIndexes().toArray();
    assert.ok(userIndexes.some((index) => index.name === "email_unique" && index.unique === true));
  });
});

describe("belongsTo integrity", () => {
  let app: App;
  before(async () => {
    app = await exampleApp({ hooks: {} }); // without the ownership hooks, which would refuse first
    await seedUsers(app, 1);
  });
  after(() => app.close());

  test("a foreign key that points at nothing is a 400 in the errors shape", async () => {
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/posts", { user_id: 42, title: "t" }, { "x-user-id": "42" }),
    );
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { errors: { user_id: ["The user_id field must refer to an existing User."] } });
    const ok = await jsonOf(await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "t" }, { "x-user-id": "1" }));
    assert.equal(ok.status, 201);
    const patch = await jsonOf(
      await call(app, "PATCH", `/api/v1/posts/${ok.body.id}`, { user_id: 9 }, { "x-user-id": "1" }),
    );
    assert.equal(patch.status, 400);
    assert.deepEqual(patch.body.errors, { user_id: ["The user_id field must refer to an existing User."] });
  });
});

describe("soft delete", () => {
  const Author = defineModel({
    name: "Author",
    fields: { name: string() },
    softDelete: true,
    relations: { books: { type: "hasMany", model: "Book", foreignKey: "author_id" } },
  });
  const Book = defineModel({
    name: "Book",
    fields: { author_id: id(), title: string(), isbn: optional(string()) },
    softDelete: true,
    relations: { author: { type: "belongsTo", model: "Author", foreignKey: "author_id" } },
  });
  let app: App;
  before(async () => {
    app = await createApp({ models: [Author, Book] });
    await call(app, "POST", "/api/v1/authors", { name: "Ann" });
    await call(app, "POST", "/api/v1/authors", { name: "Bob" });
    await call(app, "POST", "/api/v1/books", { author_id: 1, title: "Kept" });
    await call(app, "POST", "/api/v1/books", { author_id: 1, title: "Trashed" });
  });
  after(() => app.close());

  test("DELETE sets deleted_at and the record vanishes from list, show and relations", async () => {
    assert.equal((await call(app, "DELETE", "/api/v1/books/2")).status, 204);
    const stored = await app.db.collection("books").findOne({ _id: 2 as never });
    assert.ok(stored?.deleted_at instanceof Date);
    assert.equal((await call(app, "GET", "/api/v1/books/2")).status, 404);
    const list = await jsonOf(await call(app, "GET", "/api/v1/books"));
    assert.deepEqual(list.body.data.map((b: { id: number }) => b.id), [1]);
    const withBooks = await jsonOf(await call(app, "GET", "/api/v1/authors/1?with=books"));
    assert.deepEqual(withBooks.body.books.map((b: { id: number }) => b.id), [1]);
  });

  test("trashed=true brings soft-deleted records back into reads", async () => {
    const list = await jsonOf(await call(app, "GET", "/api/v1/books?trashed=true"));
    assert.deepEqual(list.body.data.map((b: { id: number }) => b.id), [1, 2]);
    const shown = await jsonOf(await call(app, "GET", "/api/v1/books/2?trashed=true"));
    assert.equal(shown.status, 200);
    assert.match(shown.body.deleted_at, /Z$/);
  });

  test("DELETE …/force removes a record for good", async () => {
    assert.equal((await call(app, "DELETE", "/api/v1/books/2/force")).status, 204);
    assert.equal(await app.db.collection("books").countDocuments({ _id: 2 as never }), 0);
    assert.equal((await call(app, "GET", "/api/v1/books/2?trashed=true")).status, 404);
  });

  test("a soft-deleted parent cannot be referenced, not even through its nested route with trashed=true", async () => {
    await call(app, "DELETE", "/api/v1/authors/2");
    const res = await jsonOf(await call(app, "POST", "/api/v1/books", { author_id: 2, title: "x" }));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, { author_id: ["The author_id field must refer to an existing Author."] });
    const nested = await jsonOf(await call(app, "POST", "/api/v1/authors/2/books", { title: "x" }));
    assert.deepEqual([nested.status, nested.body], [404, { error: "The item is not found on Author." }]);
    // trashed has no meaning on a write: asking for it is refused, and reaches nothing.
    const asked = await jsonOf(await call(app, "POST", "/api/v1/authors/2/books?trashed=true", { title: "x" }));
    assert.deepEqual([asked.status, asked.body], [400, {
      error: 'Unknown parameter "trashed"; this route takes no query parameters.',
    }]);
    assert.equal(
      (await call(app, "GET", "/api/v1/authors/2/books?trashed=true")).status,
      200,
      "listing may still see it",
    );
  });
});
