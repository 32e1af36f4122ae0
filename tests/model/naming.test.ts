import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { collectionName, formerNames, routeName } from "../../src/model/naming.ts";
import { defineModel } from "../../src/mod.ts";

describe("model naming", () => {
  const cases: [string, string, string][] = [
    ["User", "users", "users"],
    ["BlogPost", "blog-posts", "blog_posts"],
    ["Category", "categories", "categories"],
    ["Box", "boxes", "boxes"],
    ["Key", "keys", "keys"],
    ["HTTPLog", "http-logs", "http_logs"],
    ["Person", "people", "people"],
    ["BookShelf", "book-shelves", "book_shelves"],
    ["Analysis", "analyses", "analyses"],
    ["Status", "statuses", "statuses"],
    ["Child", "children", "children"],
    ["Sheep", "sheep", "sheep"],
  ];
  for (const [name, route, collection] of cases) {
    test(`${name} → /${route}, collection ${collection}`, () => {
      assert.equal(routeName(name), route);
      assert.equal(collectionName(name), collection);
    });
  }

  test("names mongorest 0.1.0 derived are known where they differ, and only there", () => {
    assert.deepEqual(formerNames("Person"), { route: "persons", collection: "persons" });
    assert.deepEqual(formerNames("BookShelf"), { route: "book-shelfs", collection: "book_shelfs" });
    assert.deepEqual(formerNames("Analysis"), { route: "analysises", collection: "analysises" });
    for (const name of ["User", "BlogPost", "Category", "Box", "Status", "HTTPLog"]) {
      assert.equal(formerNames(name), undefined, name);
    }
  });

  test("defineModel keeps the former names only for what the model leaves derived", () => {
    const fields = { name: string() };
    assert.deepEqual(defineModel({ name: "Person", fields }).former, { route: "persons", collection: "persons" });
    assert.deepEqual(defineModel({ name: "Person", fields, route: "folks" }).former, { collection: "persons" });
    assert.equal(defineModel({ name: "Person", fields, collection: "humans" }).former, undefined);
    assert.equal(defineModel({ name: "Widget", fields }).former, undefined);
  });

  test("defineModel derives route, collection and limits", () => {
    const model = defineModel({ name: "Widget", fields: { title: string() } });
    assert.equal(model.route, "widgets");
    assert.equal(model.collection, "widgets");
    assert.equal(model.perPage, 10);
    assert.equal(model.maxPerPage, 100);
    assert.deepEqual([...model.visible].sort(), ["created_at", "id", "title", "updated_at"]);
  });

  test("defineModel refuses definitions that would fail at request time", () => {
    assert.throws(() => defineModel({ name: "widget", fields: {} }), /PascalCase/);
    assert.throws(() => defineModel({ name: "W", fields: { id: string() } }), /set by the framework/);
    assert.throws(() => defineModel({ name: "W", fields: {}, hidden: ["x"] }), /hidden field "x"/);
    assert.throws(() => defineModel({ name: "W", fields: {}, perPage: 50, maxPerPage: 20 }), /exceeds/);
    assert.throws(() => defineModel({ name: "W", fields: {}, perPage: 0 }), /positive integer/);
  });
});
