import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CursorSealer, type CursorState } from "../../src/query/cursor.ts";

// The sealer signs with node:crypto where the runtime has it: its signatures must be exactly
// Web Crypto's HMAC-SHA-256 (truncated to 16 bytes), so cursors verify on any runtime that
// shares the secret.
describe("CursorSealer", () => {
  const secret = new TextEncoder().encode("a secret of sixteen bytes or more");
  const state: CursorState = {
    list: "/api/v1/users",
    q: null,
    sort: "-created_at,name",
    trashed: null,
    perPage: 10,
    side: "after",
    key: [new Date(0), "Ann", 7],
  };

  test("the signature is Web Crypto's HMAC-SHA-256 of the payload", async () => {
    const cursor = await new CursorSealer(secret).seal(state);
    const [payload, signature] = cursor.split(".");
    const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload)), 0, 16);
    const expected = btoa(String.fromCharCode(...mac)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    assert.equal(signature, expected);
    assert.deepEqual(await new CursorSealer(secret).open(cursor), state);
  });
});
