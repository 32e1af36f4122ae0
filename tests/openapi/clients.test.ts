// deno-lint-ignore-file no-explicit-any -- the document and generated text are walked freely
/**
 * Clients nobody here wrote, against the example app's document: openapi-typescript generates
 * its types, and openapi-fetch (with its default settings) drives the app through them, as a
 * typed client would. Query arrays go out as openapi-fetch sends them by default (repeated
 * `fields=a&fields=b`); the server must take that as the document's comma-separated list.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import createClient from "openapi-fetch";
import openapiTS, { astToString } from "openapi-typescript";
import type { App } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";
import { exampleAuth, exampleProjectApp } from "../helpers/example.ts";

let app: App;
let doc: any;
let types: string;

before(async () => {
  app = await exampleProjectApp();
  doc = await (await call(app, "GET", "/api/v1/openapi.json")).json();
  types = astToString(await openapiTS(doc));
});
after(async () => await app.close());

const sent: string[] = [];

/** openapi-fetch over the app itself: every request goes to `app.fetch`, no socket; its URL is kept in `sent`. */
function client() {
  const fetch = (request: Request) => (sent.push(request.url), app.fetch(request));
  return createClient<any>({ baseUrl: "http://localhost", fetch });
}

test("openapi-fetch's default array serialization reaches the fields and sort the client asked for", async () => {
  const api = client();
  for (const email of ["ada@example.com", "bob@example.com"]) {
    const created = await api.POST("/api/v1/users", { body: { email, name: email[0], surname: "S" } });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
  }
  // Emails are for admins only in the example's rules.
  const headers = await exampleAuth(1, ["admin"]);
  const { data, error, response } = await api.GET("/api/v1/users", {
    params: { query: { fields: ["id", "email"], sort: ["-email"], per_page: 1 } },
    headers,
  });
  assert.equal(response.status, 200, JSON.stringify(error));
  assert.match(sent.at(-1)!, /fields=id&fields=email/, "openapi-fetch repeats the parameter");
  assert.deepEqual(data.data, [{ id: 2, email: "bob@example.com" }]);
  const page = await api.GET("/api/v1/users", { params: { query: { cursor: data.pagination.next } }, headers });
  assert.equal(page.response.status, 200, JSON.stringify(page.error));
  assert.deepEqual(page.data.data.map((user: any) => user.email), ["ada@example.com"]);
});

test("openapi-fetch's errors arrive as the document's ErrorBody", async () => {
  const { error, response } = await client().GET("/api/v1/users/{id}", { params: { path: { id: 99 } } });
  assert.equal(response.status, 404);
  assert.deepEqual(error, { error: "The item is not found on User." });
});

test("openapi-typescript types every parameter, and names no type after a global", () => {
  assert.match(types, /count\?: "exact" \| "estimated" \| "none";/);
  assert.doesNotMatch(types, /count\?: unknown/);
  assert.match(types, /ErrorBody: \{/);
  assert.doesNotMatch(types, /\bError: \{/);
  // Writes answer every field: the full record's title is not optional; a user's email is, as
  // the example's rules show it only to admins.
  assert.match(types, /PostFull: \{[^}]*\btitle: string;/s);
  assert.match(types, /UserFull: \{[^}]*\bemail\?: string;/s);
});
