import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { requestIdOf } from "../../src/service/request-id.ts";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  test("fresh ones are version 4 UUIDs, all different", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = requestIdOf(new Request("http://localhost/"));
      assert.match(id, V4);
      seen.add(id);
    }
    assert.equal(seen.size, 20_000);
  });

  test("a sane id from the client is kept, any other replaced", () => {
    const given = (id: string) => requestIdOf(new Request("http://localhost/", { headers: { "x-request-id": id } }));
    assert.equal(given("01HZX.trace:9@edge-1"), "01HZX.trace:9@edge-1");
    assert.match(given("has space"), V4);
    assert.match(given("x".repeat(129)), V4);
  });
});
