import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { pathnameOf } from "../../src/http/router.ts";
import { checkProperty } from "../helpers/seed.ts";

describe("pathnameOf", () => {
  test("is the URL parser's pathname for any serialised http(s) URL", async () => {
    const urls = fc.webUrl({ validSchemes: ["http", "https"], withQueryParameters: true, withFragments: true });
    await checkProperty(
      fc.property(urls, (raw) => {
        const url = new URL(raw);
        assert.equal(pathnameOf(url.href), url.pathname);
      }),
      { numRuns: 5_000 },
    );
  });

  test("user info, IPv6 hosts, ports, encoded and empty paths", () => {
    for (
      const raw of [
        "http://u:p@h/a/b?c#d",
        "http://[::1]:3000/api/v1/users?page=2",
        "https://h",
        "http://h/%3F?x=/y",
        "http://h/a#/b?c",
        "http://h//x//",
      ]
    ) {
      const url = new URL(raw);
      assert.equal(pathnameOf(url.href), url.pathname, raw);
    }
  });
});
