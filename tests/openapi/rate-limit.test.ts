// deno-lint-ignore-file no-explicit-any -- the document is parsed JSON that the assertions walk
/**
 * Rate limits in the OpenAPI document: the operations a limit counts (app-wide, per model, per
 * handler) document 429 with Retry-After and the RateLimit-* headers on every response; the
 * others document neither. Real answers of rate-limited apps are checked against the document.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { string } from "superstruct";
import { type App, type AppOptions, createApp, defineModel, id } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";
import { type OpenApiDocument, ResponseChecker } from "./checker.ts";

const Shelf = defineModel({
  name: "Shelf",
  fields: { name: string() },
  relations: { books: { type: "hasMany", model: "Book", foreignKey: "shelf_id" } },
});
const Book = defineModel({ name: "Book", fields: { shelf_id: id(), title: string() } });
const WINDOW = { windowMs: 60_000 };

async function withApp(
  rateLimit: AppOptions["rateLimit"],
  body: (app: App, doc: OpenApiDocument, checker: ResponseChecker) => Promise<void>,
): Promise<void> {
  const app = await createApp({ models: [Shelf, Book], rateLimit: { ...rateLimit, now: () => 1_000_000 } });
  try {
    const doc = await (await call(app, "GET", "/api/v1/openapi.json")).json();
    assert.deepEqual(await new Validator().validate(doc), { valid: true });
    await body(app, doc, new ResponseChecker(doc));
  } finally {
    await app.close();
  }
}

/** The operations ("GET /api/v1/books") whose document has a 429, and those whose every response has the headers. */
function limitedOperations(doc: OpenApiDocument): { with429: string[]; withHeaders: string[] } {
  const with429: string[] = [];
  const withHeaders: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const name = `${method.toUpperCase()} ${path}`;
      const responses = Object.entries(op.responses as Record<string, any>);
      if (op.responses["429"]) with429.push(name);
      const headed = responses.filter(([, response]) => response.headers?.["RateLimit-Limit"]);
      if (headed.length === responses.length) withHeaders.push(name);
      else assert.equal(headed.length, 0, `${name}: some responses have RateLimit headers, some not`);
    }
  }
  return { with429: with429.sort(), withHeaders: withHeaders.sort() };
}

/** A request whose status is the expected one and whose body and headers match the document. */
async function step(app: App, checker: ResponseChecker, method: string, path: string, status: number, body?: unknown) {
  const response = await call(app, method, path, body);
  const text = await response.text();
  assert.equal(response.status, status, `${method} ${path}: ${text}`);
  const type = response.headers.get("content-type");
  assert.deepEqual(checker.check(method, path, status, type, text), [], `${method} ${path}`);
  assert.deepEqual(checker.checkHeaders(method, path, status, response.headers), [], `${method} ${path}`);
  return response;
}

test("an app-wide limit: every operation documents 429 and the headers, and real answers match", async () => {
  // The document itself is the first request counted.
  await withApp({ ...WINDOW, max: 4 }, async (app, doc, checker) => {
    const { with429, withHeaders } = limitedOperations(doc);
    const all = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)
    ).sort();
    assert.deepEqual(with429, all);
    assert.deepEqual(withHeaders, all);
    const tooMany = doc.paths["/api/v1/shelves"].get.responses["429"];
    assert.deepEqual(tooMany.content["application/json"].schema, { $ref: "#/components/schemas/ErrorBody" });
    assert.equal(tooMany.headers["Retry-After"].required, true);
    await step(app, checker, "POST", "/api/v1/shelves", 201, { name: "A" });
    await step(app, checker, "GET", "/api/v1/shelves/9", 404);
    const last = await step(app, checker, "GET", "/api/v1/shelves", 200);
    assert.equal(last.headers.get("ratelimit-remaining"), "0");
    const refused = await step(app, checker, "GET", "/api/v1/shelves", 429);
    assert.ok(refused.headers.get("retry-after"));
  });
});

test("a per-handler limit documents 429 and the headers on that handler's operations only", async () => {
  const limits = { models: { Book: { handlers: { paginate: { ...WINDOW, max: 1 } } } } };
  await withApp(limits, async (app, doc, checker) => {
    const expected = [
      "GET /api/v1/books",
      "GET /api/v1/shelves/{shelfId}/books",
      "HEAD /api/v1/books",
      "HEAD /api/v1/shelves/{shelfId}/books",
    ];
    assert.deepEqual(limitedOperations(doc), { with429: expected, withHeaders: expected });
    await step(app, checker, "GET", "/api/v1/books", 200);
    await step(app, checker, "GET", "/api/v1/books", 429);
    await step(app, checker, "HEAD", "/api/v1/books", 429);
    // Not counted: no RateLimit headers, as the document says.
    const shelves = await step(app, checker, "GET", "/api/v1/shelves", 200);
    assert.equal(shelves.headers.get("ratelimit-limit"), null);
  });
});

test("a per-model limit documents 429 on every operation of that model, nested ones included", async () => {
  await withApp({ models: { Book: { ...WINDOW, max: 1 } } }, async (app, doc, checker) => {
    const { with429 } = limitedOperations(doc);
    assert.ok(with429.length > 0);
    assert.deepEqual(with429.filter((op) => !/\/books/.test(op)), []);
    assert.ok(with429.includes("POST /api/v1/shelves/{shelfId}/books"));
    assert.ok(with429.includes("DELETE /api/v1/books/{id}"));
    await step(app, checker, "POST", "/api/v1/books", 201, { shelf_id: 1, title: "T" });
    await step(app, checker, "POST", "/api/v1/books", 429, { shelf_id: 1, title: "U" });
  });
});

test("without rateLimit the document has no 429 and no RateLimit headers", async () => {
  const app = await createApp({ models: [Shelf, Book] });
  try {
    const text = await (await call(app, "GET", "/api/v1/openapi.json")).text();
    assert.doesNotMatch(text, /"429"|RateLimit-/);
    // Retry-After only on the 503s (a time limit, Deno's shutdown), never the limiter's.
    const doc = JSON.parse(text);
    const retryAfter = Object.values(doc.paths).flatMap((item: any) =>
      Object.values(item).flatMap((op: any) =>
        Object.entries(op.responses).filter(([, response]: [string, any]) => response.headers?.["Retry-After"])
          .map(([status]) => status)
      )
    );
    assert.deepEqual([...new Set(retryAfter)], ["503"]);
  } finally {
    await app.close();
  }
});
