import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { EJSON, Long, ObjectId } from "bson";
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

  // The sealer writes the whole state as Extended JSON in one pass; its cursors must stay the
  // bytes of the state's JSON with only the key in Extended JSON, which is what earlier
  // versions issued, and open to the same state.
  test("sealed bytes and opened states are the key's Extended JSON inside the state's JSON", async () => {
    const sealer = new CursorSealer(secret);
    const keys: unknown[][] = [
      [new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), "Ann", 7],
      [null, null, 1],
      [-0, 1.5, 2 ** 40, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER],
      [new ObjectId("64b7f0c2a1b2c3d4e5f60718"), Long.fromString("9007199254740993"), "é🦊\u0000\"'"],
      [{ b: 1, 2: "two", a: { $x: 1 } }, [3, "x", null], true, new Date(-1)],
    ];
    for (const key of keys) {
      for (const shape of [state, { ...state, q: '{"a":{"$gt":1}}', trashed: "true", side: "before" as const }]) {
        const sealed = { ...shape, key };
        const [payload] = (await sealer.seal(sealed)).split(".");
        const json = Buffer.from(payload, "base64url").toString("utf8");
        assert.equal(json, JSON.stringify({ ...sealed, key: EJSON.serialize(key, { relaxed: true }) }));
        const raw = JSON.parse(json);
        assert.deepEqual(await sealer.open(await sealer.seal(sealed)), {
          ...raw,
          key: EJSON.deserialize(raw.key, { relaxed: true }),
        });
      }
    }
  });
});
