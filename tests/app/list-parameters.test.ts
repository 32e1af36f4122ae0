import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type App, createApp, defineModel, id } from "../../src/mod.ts";
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

describe("a cursor pins trashed on a model without soft delete, where it still selects records", () => {
  const Author = defineModel({
    name: "Author",
    fields: { name: string() },
    relations: { books: { type: "hasMany", model: "Book", foreignKey: "author_id" } },
  });
  const Book = defineModel({
    name: "Book",
    fields: { author_id: id(), title: string() },
    softDelete: true,
    relations: {
      author: { type: "belongsTo", model: "Author", foreignKey: "author_id" },
      reviews: { type: "hasMany", model: "Review", foreignKey: "book_id" },
    },
  });
  const Review = defineModel({ name: "Review", fields: { book_id: id(), text: string() } });
  let app: App;
  before(async () => {
    app = await createApp({ models: [Author, Book, Review] });
    for (let i = 1; i <= 4; i++) await call(app, "POST", "/api/v1/authors", { name: `A${i}` });
    for (let i = 1; i <= 4; i++) await call(app, "POST", "/api/v1/books", { author_id: i, title: `B${i}` });
    for (let i = 1; i <= 5; i++) await call(app, "POST", "/api/v1/books/1/reviews", { text: `R${i}` });
    for (let i = 1; i <= 4; i++) assert.equal((await call(app, "DELETE", `/api/v1/books/${i}`)).status, 204);
  });
  after(() => app.close());

  /** Every page of a walk that follows the Link header's rel="next" from `path`. */
  async function walk(path: string): Promise<unknown[][]> {
    const pages: unknown[][] = [];
    let next: string | null = path;
    while (next !== null) {
      const response = await call(app, "GET", next);
      const body = await response.json();
      assert.equal(response.status, 200, `${next}: ${JSON.stringify(body)}`);
      pages.push(body.data);
      const link = /<http:\/\/localhost([^>]*)>; rel="next"/.exec(response.headers.get("link") ?? "");
      next = link ? link[1] : null;
    }
    return pages;
  }

  test("the reviews of a trashed book, walked by Link, are all there and never a 404", async () => {
    const pages = await walk("/api/v1/books/1/reviews?trashed=true&per_page=2");
    assert.deepEqual(pages.flat().map((review) => (review as { text: string }).text), ["R1", "R2", "R3", "R4", "R5"]);
  });

  test("trashed books loaded through `with` stay loaded on every page of the walk", async () => {
    const pages = await walk("/api/v1/authors?trashed=true&with=books{title}&per_page=2");
    const books = pages.flat().map((author) => (author as { books: { title: string }[] }).books.map((b) => b.title));
    assert.deepEqual(books, [["B1"], ["B2"], ["B3"], ["B4"]]);
  });

  test("a cursor made with trashed=true refuses trashed=false, and takes trashed=true repeated", async () => {
    const first = await call(app, "GET", "/api/v1/authors?trashed=true&per_page=2");
    const cursor = encodeURIComponent((await first.json()).pagination.next);
    const repeated = await call(app, "GET", `/api/v1/authors?cursor=${cursor}&trashed=true`);
    assert.equal(repeated.status, 200);
    const changed = await jsonOf(await call(app, "GET", `/api/v1/authors?cursor=${cursor}&trashed=false`));
    assert.equal(changed.status, 400);
    assert.match(changed.body.error, /trashed/);
  });
});
