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

  test("the payload is the state's JSON in UTF-8, base64url-encoded as the web-standard codec does", async () => {
    const sealer = new CursorSealer(secret);
    const withAccents = { ...state, q: '{"name":"Zoë 🦊"}', key: [new Date(0), "Ærø", 7] };
    const [payload] = (await sealer.seal(withAccents)).split(".");
    const bytes = Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    assert.deepEqual(json, { ...withAccents, key: [{ $date: "1970-01-01T00:00:00Z" }, "Ærø", 7] });
    assert.match(payload, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(await sealer.open(await sealer.seal(withAccents)), withAccents);
  });
});
