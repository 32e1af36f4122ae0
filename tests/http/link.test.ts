import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { linkHeader } from "../../src/http/link.ts";
import { checkProperty } from "../helpers/seed.ts";

const PINNED = ["cursor", "page", "per_page", "q", "sort", "trashed"];

/** One link's URL the way the header built it before it parsed the request once for both: a fresh parse per link. */
function oneParsePerLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  for (const name of PINNED) url.searchParams.delete(name);
  url.searchParams.set("cursor", cursor);
  return url.href;
}

describe("linkHeader", () => {
  test("next and prev replace the pinned parameters by the cursor and keep the others, in order", () => {
    const url = "http://h/api/v1/users?fields=name,email&page=3&sort=-name&with=posts&cursor=old&count=none";
    assert.equal(
      linkHeader(url, "N.x", "P.y"),
      '<http://h/api/v1/users?fields=name%2Cemail&with=posts&count=none&cursor=N.x>; rel="next", ' +
        '<http://h/api/v1/users?fields=name%2Cemail&with=posts&count=none&cursor=P.y>; rel="prev"',
    );
    assert.equal(
      linkHeader("http://h/api/v1/users?page=2", "abc", null),
      '<http://h/api/v1/users?cursor=abc>; rel="next"',
    );
    assert.equal(linkHeader("http://h/api/v1/users", null, "abc"), '<http://h/api/v1/users?cursor=abc>; rel="prev"');
    assert.equal(linkHeader("http://h/api/v1/users?page=2", null, null), undefined);
  });

  test("each link is what a parse of its own gives, for any query and cursors", async () => {
    const name = fc.constantFrom(...PINNED, "fields", "with", "count", "x", "a b", "é");
    const value = fc.string({ maxLength: 8 });
    const cursor = fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}\.[A-Za-z0-9_-]{1,6}$/), { nil: null });
    await checkProperty(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), cursor, cursor, (pairs, next, prev) => {
        const query = new URLSearchParams(pairs).toString();
        const url = `http://127.0.0.1:3000/api/v1/users${query ? `?${query}` : ""}`;
        const links = [
          ...(next === null ? [] : [`<${oneParsePerLink(url, next)}>; rel="next"`]),
          ...(prev === null ? [] : [`<${oneParsePerLink(url, prev)}>; rel="prev"`]),
        ];
        assert.equal(linkHeader(url, next, prev), links.length > 0 ? links.join(", ") : undefined);
      }),
      { numRuns: 300 },
    );
  });
});
