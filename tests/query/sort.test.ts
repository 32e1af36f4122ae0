import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "bson";
import { ApiError } from "../../src/errors.ts";
import { parseSort } from "../../src/query/sort.ts";
import { array, optional, string } from "superstruct";
import { createApp, defineModel } from "../../src/mod.ts";
import { Trashable, User } from "./models.ts";

describe("parseSort", () => {
  const cases: [string | null, Document][] = [
    [null, { _id: 1 }],
    ["", { _id: 1 }],
    ["name", { name: 1, _id: 1 }],
    ["-created_at,name", { created_at: -1, name: 1, _id: 1 }],
    ["+name", { name: 1, _id: 1 }],
    [" name", { name: 1, _id: 1 }], // `+name` after URL decoding
    ["name , -age", { name: 1, age: -1, _id: 1 }],
    ["name,", { name: 1, _id: 1 }],
    ["id", { _id: 1 }],
    ["-id", { _id: -1 }],
    ["-id,name", { _id: -1, name: 1 }],
    ["updated_at,-born", { updated_at: 1, born: -1, _id: 1 }],
  ];
  for (const [raw, expected] of cases) {
    test(JSON.stringify(raw), () => {
      const sort = parseSort(raw, User);
      assert.deepEqual(sort, expected);
      assert.deepEqual(Object.keys(sort), Object.keys(expected), "key order is the sort order");
    });
  }

  test("deleted_at is sortable only on soft-delete models", () => {
    assert.deepEqual(parseSort("-deleted_at", Trashable), { deleted_at: -1, _id: 1 });
    assert.throws(() => parseSort("-deleted_at", User), /Undefined column names: deleted_at/);
  });
});

describe("parseSort: rejected input", () => {
  const cases: [string, RegExp][] = [
    ["password", /^Undefined column names: password$/],
    ["nope,-password,name", /^Undefined column names: nope,password$/],
    ["posts", /^Undefined column names: posts$/],
    ["_id", /^Undefined column names: _id$/],
    ["name.first", /^Undefined column names: name.first$/],
    ["-", /Empty field name in sort/],
    [",name", /Empty field name in sort/],
    ["name,,age", /Empty field name in sort/],
    ["--name", /Undefined column names: -name/],
    ["name,-name", /Field "name" appears twice in sort/],
    ["id,-id", /Field "id" appears twice in sort/],
    ["constructor", /Undefined column names: constructor/],
    // A list orders by one of its elements, which no page cursor can follow.
    ["tags", /^Sorting on tags is not allowed: it holds a list or an object/],
    ["name,-tags", /^Sorting on tags is not allowed/],
  ];
  for (const [raw, message] of cases) {
    test(raw, () =>
      assert.throws(() => parseSort(raw, User), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 400);
        assert.match(error.message, message);
        return true;
      }));
  }
});

describe("fields holding lists or objects", () => {
  test("a model cannot declare one sortable, and the OpenAPI sort enum leaves them out", async () => {
    assert.throws(
      () => defineModel({ name: "Tagged", fields: { tags: optional(array(string())) }, sortable: ["tags"] }),
      /^TypeError: Model Tagged: sortable field "tags" holds a list or an object, which cannot be sorted on$/,
    );
    const Tagged = defineModel({
      name: "Tagged",
      fields: { label: optional(string()), tags: optional(array(string())) },
    });
    const app = await createApp({ models: [Tagged] });
    try {
      const document = await (await app.fetch(new Request("http://localhost/api/v1/openapi.json"))).json();
      const sort = document.paths["/api/v1/taggeds"].get.parameters.find((p: { name: string }) => p.name === "sort");
      assert.ok(sort.schema.items.enum.includes("-label"), JSON.stringify(sort.schema));
      assert.ok(
        !sort.schema.items.enum.includes("tags") && !sort.schema.items.enum.includes("-tags"),
        JSON.stringify(sort.schema),
      );
    } finally {
      await app.close();
    }
  });
});
