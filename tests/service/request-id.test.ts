import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { requestIdOf } from "../../src/service/request-id.ts";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  test("fresh ones are version 4 UUIDs, all different", () => {
    const seen = new Set<string>();
    let previous: string | undefined;
    for (let i = 0; i < 20_000; i++) {
      const id = requestIdOf(new Request("http://localhost/"));
      assert.match(id, V4);
      seen.add(id);
      // The counter in the last 12 digits counts up by one, across every block of 256.
      if (previous !== undefined) {
        assert.equal(id.slice(0, 24), previous.slice(0, 24));
        assert.equal(parseInt(id.slice(24), 16), parseInt(previous.slice(24), 16) + 1, `${previous} then ${id}`);
      }
      previous = id;
    }
    assert.equal(seen.size, 20_000);
  });

  test("a sane id from the client is kept, any other replaced", () => {
    const given = (id: string) => requestIdOf(new Request("http://localhost/", { headers: { "x-request-id": id } }));
    assert.equal(given("01HZX.trace:9@edge-1"), "01HZX.trace:9@edge-1");
    assert.match(given("has space"), V4);
    assert.match(given("x".repeat(129)), V4);
  });

  // The request log writes ids into JSON lines unescaped (service/request-log.ts): that holds
  // only while every id this returns is one JSON.stringify leaves as it is.
  test("every id it returns, kept or fresh, needs no escaping in JSON", () => {
    const given = (id: string) => requestIdOf(new Request("http://localhost/", { headers: { "x-request-id": id } }));
    const candidates = ["a-Z_0.9:@", 'quo"te', "back\\slash", "tab\there", "\u00e9t\u00e9", "ok", "ctl\u007f"];
    for (const candidate of candidates) {
      const id = given(candidate);
      assert.equal(JSON.stringify(id), `"${id}"`, candidate);
    }
    assert.equal(given("a-Z_0.9:@"), "a-Z_0.9:@");
    assert.match(given('quo"te'), V4);
  });
});
