/**
 * Errors hooks throw, in the OpenAPI document: an `ApiError` of any status from 400 to 599, on
 * every operation a hook runs for, `onBeforeRelation` of models `with` reaches included.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { string } from "superstruct";
import { ApiError, type App, createApp, defineHooks, defineModel, id } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";
import { type OpenApiDocument, ResponseChecker } from "./checker.ts";

const Shelf = defineModel({
  name: "Shelf",
  fields: { name: string() },
  relations: { books: { type: "hasMany", model: "Book", foreignKey: "shelf_id" } },
  params: ["fail"], // read by its onBeforeShow hook
});
const Book = defineModel({ name: "Book", fields: { shelf_id: id(), title: string() } });
const Note = defineModel({ name: "Note", fields: { text: string() } });

let app: App;
let doc: OpenApiDocument;
let checker: ResponseChecker;

before(async () => {
  app = await createApp({
    models: [Shelf, Book, Note],
    hooks: {
      Shelf: defineHooks({
        onBeforeShow(ctx) {
          const status = new URL(ctx.request.url).searchParams.get("fail");
          if (status) throw new ApiError("Maintenance.", { status: Number(status), headers: { "retry-after": "30" } });
        },
      }),
      Book: defineHooks({
        onBeforeRelation(ctx) {
          if (ctx.request.headers.get("x-deny")) throw new ApiError("No books for you.", 403);
        },
      }),
    },
  });
  doc = await (await call(app, "GET", "/api/v1/openapi.json")).json();
  checker = new ResponseChecker(doc);
});
after(async () => await app.close());

const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);

test("hooked operations document 4XX and 5XX; others neither", () => {
  for (const [path, method] of [["/api/v1/shelves/{id}", "get"], ["/api/v1/shelves", "get"]]) {
    assert.ok(statuses(path, method).includes("4XX"), `${method} ${path}`);
    assert.ok(statuses(path, method).includes("5XX"), `${method} ${path}`);
  }
  for (const [path, method] of [["/api/v1/shelves", "post"], ["/api/v1/notes", "get"], ["/api/v1/notes/{id}", "get"]]) {
    assert.deepEqual(statuses(path, method).filter((s) => s.endsWith("XX")), [], `${method} ${path}`);
  }
});

test("the 500 of a hooked operation is {message} or {error}; elsewhere {message}", () => {
  const schema = (path: string, method: string) =>
    doc.paths[path][method].responses["500"].content["application/json"].schema;
  assert.deepEqual(schema("/api/v1/shelves/{id}", "get"), {
    oneOf: [{ $ref: "#/components/schemas/InternalErrorBody" }, { $ref: "#/components/schemas/ErrorBody" }],
  });
  assert.deepEqual(schema("/api/v1/notes/{id}", "get"), { $ref: "#/components/schemas/InternalErrorBody" });
});

test("a hook's 503, its 500 and a relation hook's 403 match the document", async () => {
  await call(app, "POST", "/api/v1/shelves", { name: "S" });
  await call(app, "POST", "/api/v1/books", { shelf_id: 1, title: "B" });
  const cases: [string, number, Record<string, string>][] = [
    ["/api/v1/shelves/1?fail=503", 503, {}],
    ["/api/v1/shelves/1?fail=500", 500, {}],
    ["/api/v1/shelves?with=books", 403, { "x-deny": "1" }],
    ["/api/v1/shelves/1?with=books", 403, { "x-deny": "1" }],
  ];
  for (const [path, status, headers] of cases) {
    const response = await call(app, "GET", path, undefined, headers);
    const text = await response.text();
    assert.equal(response.status, status, text);
    const type = response.headers.get("content-type");
    assert.deepEqual(checker.check("GET", path.split("?")[0], status, type, text), [], path);
  }
});
