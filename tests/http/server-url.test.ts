import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { serverUrl } from "../../src/http/server-url.ts";
import { type DenoRuntime, serveDeno } from "../../src/adapters/deno.ts";

describe("the URL a server reports", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "http://localhost:8080"],
    ["", "http://localhost:8080"],
    ["0.0.0.0", "http://localhost:8080"],
    ["::", "http://localhost:8080"],
    ["::1", "http://[::1]:8080"],
    ["fe80::1", "http://[fe80::1]:8080"],
    ["127.0.0.1", "http://127.0.0.1:8080"],
    ["api.internal", "http://api.internal:8080"],
  ];
  for (const [host, expected] of cases) {
    test(`host ${JSON.stringify(host)} is reached at ${expected}, a URL that parses`, () => {
      assert.equal(serverUrl(host, 8080), expected);
      assert.equal(new URL(expected).port, "8080");
    });
  }

  test("serveDeno reports an IPv6 host bracketed and a wildcard as localhost (a stand-in Deno.serve)", async () => {
    const runtime: DenoRuntime = {
      serve: () => ({ addr: { port: 4100 }, shutdown: () => Promise.resolve() }),
    };
    const urls: string[] = [];
    for (const host of ["::1", "::", "0.0.0.0"]) {
      const server = serveDeno(runtime, () => Promise.resolve(new Response(null)), { port: 0, host });
      urls.push(server.url);
      await server.close();
    }
    assert.deepEqual(urls, ["http://[::1]:4100", "http://localhost:4100", "http://localhost:4100"]);
  });
});
