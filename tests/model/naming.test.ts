import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { collectionName, routeName } from "../../src/model/naming.ts";
import { defineModel } from "../../src/mod.ts";

describe("model naming", () => {
  const cases: [string, string, string][] = [
    ["User", "users", "users"],
    ["BlogPost", "blog-posts", "blog_posts"],
    ["Category", "categories", "categories"],
    ["Box", "boxes", "boxes"],
    ["Key", "keys", "keys"],
    ["HTTPLog", "http-logs", "http_logs"],
  ];
  for (const [name, route, collection] of cases) {
    test(`${name} → /${route}, collection ${collection}`, () => {
      assert.equal(routeName(name), route);
      assert.equal(collectionName(name), collection);
    });
  }

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
