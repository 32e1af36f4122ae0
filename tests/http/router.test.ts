import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildRouter, pathnameOf } from "../../src/http/router.ts";
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

  test("the same URL again, or alternating URLs, each get their own path", () => {
    const urls = [
      "http://h/a?x",
      "http://h/a?x",
      "http://h/b",
      "http://h/a?x",
      "http://h/b#c",
      "http://h/",
      "http://h/a",
    ];
    assert.deepEqual(urls.map(pathnameOf), ["/a", "/a", "/b", "/a", "/b", "/", "/a"]);
  });
});

describe("buildRouter's kept matches", () => {
  const routes = [
    { method: "GET", path: "/api/v1/users", target: "list", enabled: true },
    { method: "GET", path: "/api/v1/users/:id", target: "show", enabled: true },
    { method: "DELETE", path: "/api/v1/users/:id", target: "delete", enabled: true },
  ];

  test("a repeated method and path gets the same (frozen) match, as the first time", () => {
    const router = buildRouter(routes);
    const first = router.match("GET", "/api/v1/users/7");
    assert.deepEqual({ ...first, params: { ...first!.params } }, { target: "show", params: { id: "7" } });
    assert.equal(router.match("GET", "/api/v1/users/7"), first);
    assert.ok(Object.isFrozen(first!.params));
    assert.equal(router.match("DELETE", "/api/v1/users/7")!.target, "delete");
    assert.equal(router.match("GET", "/api/v1/nothing"), undefined);
    assert.equal(router.match("GET", "/api/v1/nothing"), undefined);
  });

  test("the last pair asked for is told apart by method and by path", () => {
    const router = buildRouter(routes);
    const asked: [string, string][] = [
      ["GET", "/api/v1/users/7"],
      ["DELETE", "/api/v1/users/7"],
      ["GET", "/api/v1/users/7"],
      ["GET", "/api/v1/users/8"],
      ["GET", "/api/v1/users"],
      ["DELETE", "/api/v1/users"],
      ["GET", "/api/v1/users"],
    ];
    const answers = asked.map(([method, path]) => {
      const found = router.match(method, path);
      return found && `${found.target} ${JSON.stringify(found.params)}`;
    });
    assert.deepEqual(answers, [
      'show {"id":"7"}',
      'delete {"id":"7"}',
      'show {"id":"7"}',
      'show {"id":"8"}',
      "list {}",
      undefined,
      "list {}",
    ]);
  });

  test("matches stay right past the kept bound, and for paths too long to keep", () => {
    const router = buildRouter(routes);
    for (let round = 0; round < 2; round++) {
      for (let id = 1; id <= 3000; id++) {
        assert.deepEqual({ ...router.match("GET", `/api/v1/users/${id}`)?.params }, { id: String(id) });
      }
    }
    const long = "x".repeat(5000);
    assert.deepEqual({ ...router.match("GET", `/api/v1/users/${long}`)?.params }, { id: long });
    assert.equal(router.match("GET", `/api/v1/users/${long}/more`), undefined);
  });
});
