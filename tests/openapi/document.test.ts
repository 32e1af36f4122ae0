// deno-lint-ignore-file no-explicit-any -- response bodies are parsed JSON that the assertions walk
/** The OpenAPI document: valid OpenAPI 3.1, complete, true to the models, never naming hidden fields. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { boolean, defaulted, enums, nullable, number, optional, string } from "superstruct";
import { type App, createApp, defineModel, email, id } from "../../src/mod.ts";
import { EMAIL_PATTERN } from "../../src/model/types.ts";
import { call, exampleApp } from "../helpers/app.ts";

const Author = defineModel({
  name: "Author",
  description: "Someone who writes books.",
  fields: {
    email: email(),
    pen_name: nullable(string()),
    rating: optional(number()),
    genre: defaulted(enums(["novel", "poetry"]), "novel"),
    secret_token: string(),
  },
  descriptions: { pen_name: "The name on the cover.", id: "The author's number." },
  hidden: ["secret_token"],
  relations: { books: { type: "hasMany", model: "Book", foreignKey: "author_id" } },
  maxPerPage: 25,
  perPage: 5,
});

const Book = defineModel({
  name: "Book",
  fields: { author_id: id(), title: string(), in_print: optional(boolean()) },
  relations: { author: { type: "belongsTo", model: "Author", foreignKey: "author_id" } },
  softDelete: true,
  handlers: { update: false },
  unique: ["title"],
  sortable: ["title"],
});

let app: App;
let doc: any;

before(async () => {
  app = await createApp({
    models: [Author, Book],
    openapi: {
      title: "Library",
      version: "2.3.0",
      description: "Books and their authors.",
      servers: [{ url: "https://api.example.com", description: "live" }],
    },
  });
  const response = await call(app, "GET", "/api/v1/openapi.json");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
  doc = await response.json();
});
after(async () => await app.close());

test("the documents of a custom app and of the example app are valid OpenAPI 3.1", async () => {
  const validator = new Validator();
  assert.deepEqual(await validator.validate(doc), { valid: true });
  assert.equal(validator.version, "3.1");
  const example = await exampleApp();
  try {
    const exampleDoc = await (await call(example, "GET", "/api/v1/openapi.json")).json();
    assert.deepEqual(await new Validator().validate(exampleDoc), { valid: true });
  } finally {
    await example.close();
  }
});

test("the validator itself refuses a broken document", async () => {
  const broken = structuredClone(doc);
  delete broken.paths["/api/v1/authors"].get.parameters[0].in;
  assert.equal((await new Validator().validate(broken)).valid, false);
});

test("every enabled route is an operation, nested and force-delete ones included; switched-off ones are not", () => {
  const operations = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    Object.keys(item).map((m) => `${m} ${path}`)
  ).sort();
  assert.deepEqual(
    operations,
    [
      "delete /api/v1/authors/{id}",
      "get /api/v1/authors",
      "get /api/v1/authors/{id}",
      "patch /api/v1/authors/{id}",
      "post /api/v1/authors",
      "put /api/v1/authors/{id}",
      "delete /api/v1/books/{id}",
      "delete /api/v1/books/{id}/force",
      "get /api/v1/books",
      "get /api/v1/books/{id}",
      "patch /api/v1/books/{id}",
      "post /api/v1/books",
      "get /api/v1/authors/{authorId}/books",
      "post /api/v1/authors/{authorId}/books",
      "get /api/v1/authors/{authorId}/books/{id}",
      "patch /api/v1/authors/{authorId}/books/{id}",
      "delete /api/v1/authors/{authorId}/books/{id}",
      "delete /api/v1/authors/{authorId}/books/{id}/force",
      // HEAD wherever GET is, OPTIONS on every path (both are served, and listed in Allow).
      ...Object.keys(doc.paths).filter((path) => doc.paths[path].get).map((path) => `head ${path}`),
      ...Object.keys(doc.paths).map((path) => `options ${path}`),
    ].sort(),
  );
});

test("nested item operations have their own ids, both path parameters, and a body without the foreign key", () => {
  const ids = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
  assert.equal(new Set(ids).size, ids.length, `duplicate operation ids: ${ids}`);
  const show = doc.paths["/api/v1/authors/{authorId}/books/{id}"].get;
  assert.equal(show.operationId, "showAuthorBook");
  assert.deepEqual(show.parameters.filter((p: any) => p.in === "path").map((p: any) => [p.name, p.description]), [
    ["authorId", "The id of the Author the records belong to."],
    ["id", "The Book's id."],
  ]);
  const patch = doc.paths["/api/v1/authors/{authorId}/books/{id}"].patch.requestBody.content["application/json"].schema;
  assert.equal(patch.properties.author_id, undefined, "the path gives the foreign key");
  assert.deepEqual(patch.required, undefined);
});

test("options set title, version, description and servers; models set tag and field descriptions", () => {
  assert.deepEqual(doc.info, { title: "Library", version: "2.3.0", description: "Books and their authors." });
  assert.deepEqual(doc.servers, [{ url: "https://api.example.com", description: "live" }]);
  assert.deepEqual(doc.components.schemas.ErrorBody.required, ["error"]);
  assert.deepEqual(doc.tags[0], { name: "Author", description: "Someone who writes books." });
  const author = doc.components.schemas.Author;
  assert.equal(author.description, "Someone who writes books.");
  assert.equal(author.properties.pen_name.description, "The name on the cover.");
  assert.equal(author.properties.id.description, "The author's number.");
  assert.equal(doc.components.schemas.AuthorInput.properties.pen_name.description, "The name on the cover.");
});

function parameter(path: string, method: string, name: string): any {
  return doc.paths[path][method].parameters.find((p: any) => p.name === name);
}

test("list parameters carry the model's real limits", () => {
  // No defaults in the schemas (the docs page would send them next to a cursor); they are in the descriptions.
  assert.deepEqual(parameter("/api/v1/authors", "get", "page").schema, {
    type: "integer",
    minimum: 1,
    maximum: Math.floor(Number.MAX_SAFE_INTEGER / 25),
  });
  assert.match(parameter("/api/v1/authors", "get", "page").description, /default 1/);
  assert.deepEqual(parameter("/api/v1/authors", "get", "per_page").schema, {
    type: "integer",
    minimum: 1,
    maximum: 25,
  });
  assert.match(parameter("/api/v1/authors", "get", "per_page").description, /default 5/);
  assert.deepEqual(parameter("/api/v1/authors", "get", "count").schema, {
    type: "string",
    enum: ["exact", "estimated", "none"],
  });
  assert.equal(parameter("/api/v1/books", "get", "per_page").schema.maximum, 100);
  const fields = parameter("/api/v1/authors", "get", "fields");
  assert.deepEqual(fields.schema.items.enum, [
    "id",
    "created_at",
    "updated_at",
    "email",
    "pen_name",
    "rating",
    "genre",
  ]);
  assert.equal(fields.style, "form");
  assert.equal(fields.explode, false);
  assert.equal(fields.schema.items.type, "string");
  assert.ok(parameter("/api/v1/authors", "get", "sort").schema.items.enum.includes("-rating"));
  assert.deepEqual(
    parameter("/api/v1/books", "get", "sort").schema.items.enum,
    ["id", "+id", "-id", "title", "+title", "-title"],
    "a model's sortable list (id always included) is the sort enum",
  );
  const q = parameter("/api/v1/authors", "get", "q");
  const [first, ...conditions] = Object.values(q.examples) as { value: string }[];
  assert.equal(first.value, "", "the docs page pre-fills the first example, so it asks for nothing");
  assert.ok(conditions.length >= 2 && conditions.every((example) => typeof JSON.parse(example.value) === "object"));
  assert.match(q.description, /4096 bytes/);
  assert.match(parameter("/api/v1/authors", "get", "with").description, /`books`/);
  assert.deepEqual(parameter("/api/v1/books", "get", "trashed").schema, { type: "boolean" });
  assert.equal(parameter("/api/v1/authors", "get", "trashed"), undefined);
  assert.ok(parameter("/api/v1/books/{id}", "get", "fields"), "SHOW takes fields too");
  assert.equal(parameter("/api/v1/books/{id}", "get", "page"), undefined);
  assert.deepEqual(parameter("/api/v1/authors/{authorId}/books", "get", "authorId").schema, {
    type: "integer",
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
  });
});

test("a nested list documents its relation's limit and sort; with names only loadable relations", async () => {
  const Rack = defineModel({
    name: "Rack",
    fields: { label: string() },
    relations: {
      newest: { type: "hasMany", model: "Volume", foreignKey: "rack_id", sort: { created_at: -1 }, limit: 3 },
      volumes: { type: "hasMany", model: "Volume", foreignKey: "rack_id" },
    },
    loadable: ["volumes"],
  });
  const Volume = defineModel({ name: "Volume", fields: { rack_id: id(), title: string() } });
  const racks = await createApp({ models: [Rack, Volume] });
  try {
    const paths = (await (await call(racks, "GET", "/api/v1/openapi.json")).json()).paths;
    const param = (path: string, name: string) => paths[path].get.parameters.find((p: any) => p.name === name);
    assert.deepEqual(param("/api/v1/racks/{rackId}/newest", "per_page").schema, {
      type: "integer",
      minimum: 1,
      maximum: 3,
    });
    assert.match(param("/api/v1/racks/{rackId}/newest", "per_page").description, /default 3/);
    assert.match(
      param("/api/v1/racks/{rackId}/newest", "sort").description,
      /Default: the relation's, `-created_at,id`/,
    );
    assert.deepEqual(param("/api/v1/racks/{rackId}/volumes", "per_page").schema, {
      type: "integer",
      minimum: 1,
      maximum: 100,
    });
    assert.match(param("/api/v1/racks/{rackId}/volumes", "sort").description, /Default: `id`/);
    const withs = param("/api/v1/racks", "with");
    assert.match(withs.description, /`volumes`/);
    assert.doesNotMatch(withs.description, /newest/);
  } finally {
    await racks.close();
  }
});

test("request bodies follow the superstruct fields: types, required, email, enums, nullability, defaults", () => {
  const input = doc.components.schemas.AuthorInput;
  assert.deepEqual(input.properties.email, {
    type: "string",
    format: "email",
    pattern: EMAIL_PATTERN.source,
    maxLength: 65_536,
  });
  assert.deepEqual(input.properties.pen_name.type, ["string", "null"]);
  // Optional: null is "no value", as the record shows it (the server leaves it out, PATCH removes it).
  assert.deepEqual(input.properties.rating, { type: ["number", "null"] });
  assert.deepEqual(input.properties.genre, { enum: ["novel", "poetry"], default: "novel" });
  assert.deepEqual(input.required, ["email", "pen_name"]);
  assert.equal(doc.components.schemas.AuthorPatch.required, undefined);
  assert.deepEqual(doc.components.schemas.BookInput.properties.author_id, {
    type: "integer",
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
  });
  assert.equal(doc.components.schemas.BookInput.additionalProperties, false);
  const nested = doc.paths["/api/v1/authors/{authorId}/books"].post.requestBody.content["application/json"].schema;
  assert.equal(nested.properties.author_id, undefined, "the path gives the foreign key");
  assert.deepEqual(nested.required, ["title"]);
});

test("records mark the framework's fields read-only, and unset optional fields as nullable", () => {
  const author = doc.components.schemas.Author;
  for (const field of ["id", "created_at", "updated_at"]) assert.equal(author.properties[field].readOnly, true, field);
  assert.equal(author.properties.email.readOnly, undefined);
  assert.deepEqual(author.properties.rating.type, ["number", "null"]);
  assert.deepEqual(doc.components.schemas.Book.properties.deleted_at.type, ["string", "null"]);
  assert.deepEqual(author.properties.books.items, { $ref: "#/components/schemas/BookRelated" });
  assert.equal(author.additionalProperties, false);
});

test("hidden fields never appear in the document", () => {
  assert.doesNotMatch(JSON.stringify(doc), /secret_token/);
});

test("each operation lists every response it can give, with its schema", () => {
  const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
  // Every operation: 408 and 431 (Node adapter), 413 (a declared body over the limit, on any method),
  // 503 (a time limit; Deno's shutdown), 500. No 405 (only for methods the document does not list),
  // and no 404 where nothing is looked up (top-level list and create).
  const anywhere = ["408", "413", "431", "500", "503"];
  const sorted = (...codes: string[]) => [...codes, ...anywhere].sort();
  assert.deepEqual(statuses("/api/v1/authors", "get"), sorted("200", "304", "400", "412"));
  assert.deepEqual(statuses("/api/v1/authors", "head"), sorted("200", "304", "400", "412"));
  assert.deepEqual(statuses("/api/v1/authors", "options"), sorted("204"));
  assert.deepEqual(statuses("/api/v1/authors", "post"), sorted("201", "400", "415", "507"));
  assert.deepEqual(statuses("/api/v1/books", "post"), sorted("201", "400", "409", "415", "507"));
  assert.deepEqual(statuses("/api/v1/books/{id}", "patch"), sorted("200", "400", "404", "409", "412", "415", "507"));
  assert.deepEqual(statuses("/api/v1/books/{id}", "delete"), sorted("204", "400", "404", "412", "507"));
  assert.deepEqual(
    statuses("/api/v1/authors/{authorId}/books", "post"),
    sorted("201", "400", "404", "409", "415", "507"),
  );
  const responses = doc.paths["/api/v1/books/{id}"].patch.responses;
  assert.deepEqual(responses["400"].content["application/json"].schema.oneOf, [
    { $ref: "#/components/schemas/ValidationErrors" },
    { $ref: "#/components/schemas/ErrorBody" },
  ]);
  assert.deepEqual(responses["500"].content["application/json"].schema, {
    $ref: "#/components/schemas/InternalErrorBody",
  });
  // A write takes no `fields`: it answers the full record, every visible field present.
  assert.deepEqual(responses["200"].content["application/json"].schema, { $ref: "#/components/schemas/BookFull" });
  assert.deepEqual(doc.components.schemas.BookFull.required, [
    "id",
    "author_id",
    "title",
    "in_print",
    "created_at",
    "updated_at",
    "deleted_at",
  ]);
  assert.deepEqual(doc.components.schemas.Book.required, ["id"]);
  assert.deepEqual(doc.components.schemas.AuthorPage.properties.pagination, {
    $ref: "#/components/schemas/Pagination",
  });
});

test("docs: false switches off openapi.json and /docs", async () => {
  const quiet = await createApp({ models: [Author, Book], docs: false });
  try {
    for (const path of ["/api/v1/openapi.json", "/docs", "/docs/swagger-ui-bundle.js"]) {
      const response = await call(quiet, "GET", path);
      assert.equal(response.status, 404, path);
      assert.match((await response.json()).error, /No route matches/);
    }
  } finally {
    await quiet.close();
  }
});

test("the document follows the base path, answers HEAD and 304, and refuses other methods", async () => {
  const moved = await createApp({ models: [Author, Book], basePath: "/v2" });
  try {
    const response = await call(moved, "GET", "/v2/openapi.json");
    assert.ok(Object.keys((await response.json()).paths).every((path) => path.startsWith("/v2/")));
    assert.equal(
      (await call(moved, "GET", "/v2/openapi.json", undefined, { "if-none-match": response.headers.get("etag")! }))
        .status,
      304,
    );
    assert.equal((await call(moved, "HEAD", "/v2/openapi.json")).status, 200);
    const post = await call(moved, "POST", "/v2/openapi.json", {});
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD, OPTIONS");
    const german = await call(moved, "DELETE", "/docs", undefined, { "accept-language": "de" });
    assert.deepEqual([german.status, german.headers.get("content-language")], [405, "de"]);
    assert.deepEqual(await german.json(), {
      error: "Die Methode DELETE ist hier nicht erlaubt; erlaubt: GET, HEAD, OPTIONS.",
    });
    assert.equal((await call(moved, "GET", "/api/v1/openapi.json")).status, 404);
  } finally {
    await moved.close();
  }
});

test("the docs page and its assets come from the app itself", async () => {
  const page = await call(app, "GET", "/docs");
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  const html = await page.text();
  assert.doesNotMatch(html, /https?:\/\//, "no CDN");
  for (
    const [path, type] of [["/docs/swagger-ui-bundle.js", "javascript"], ["/docs/swagger-ui.css", "css"], [
      "/docs/docs-init.js",
      "javascript",
    ]]
  ) {
    assert.ok(html.includes(`src="${path}"`) || html.includes(`href="${path}"`), path);
    const asset = await call(app, "GET", path);
    assert.equal(asset.status, 200, path);
    assert.match(asset.headers.get("content-type")!, new RegExp(type));
    assert.ok((await asset.arrayBuffer()).byteLength > 100, path);
  }
  assert.match(await (await call(app, "GET", "/docs/docs-init.js")).text(), /"\/api\/v1\/openapi\.json"/);
});
