import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "undici";
import { serveNode, type NodeServer } from "../../src/adapters/node/node-adapter.ts";

// The errors the Node adapter answers itself carry the language it is given (the app's), not a hard-coded "en".
describe("node adapter errors in the app's language", () => {
  let server: NodeServer;
  before(async () => {
    server = await serveNode(() => Promise.reject(new Error("broken")), { port: 0, host: "127.0.0.1", bodyLimit: 8, language: "de" });
  });
  after(() => server.close());

  test("a 413 refused by Content-Length and a 500 from a failing handler say Content-Language: de", async () => {
    const tooLarge = await request(`${server.url}/x`, { method: "POST", body: "0123456789" });
    assert.deepEqual([tooLarge.statusCode, tooLarge.headers["content-language"]], [413, "de"]);
    await tooLarge.body.text();
    const original = console.error;
    console.error = () => {};
    try {
      const failed = await request(`${server.url}/x`);
      assert.deepEqual([failed.statusCode, failed.headers["content-language"]], [500, "de"]);
      await failed.body.text();
    } finally {
      console.error = original;
    }
  });
});
