import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { string } from "superstruct";
import { createApp, defineModel } from "../../src/mod.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const Tag = defineModel({ name: "Tag", fields: { label: string() } });

describe("health probes", async () => {
  const engine = await startEmbeddedEngine();
  // A short server selection, so the unreachable case fails fast rather than after 30 s.
  const app = await createApp({ models: [Tag], uri: engine.uri, clientOptions: { serverSelectionTimeoutMS: 300 } });
  const off = await createApp({ models: [Tag], health: false });
  after(async () => {
    await app.close();
    await off.close();
    await engine.close();
  });

  it("live and ready at the root, outside the API base path", async () => {
    assert.deepEqual(await jsonOf(await call(app, "GET", "/healthz")), { status: 200, body: { status: "ok" } });
    assert.deepEqual(await jsonOf(await call(app, "GET", "/readyz")), { status: 200, body: { status: "ready" } });
    const head = await call(app, "HEAD", "/readyz");
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    assert.equal((await call(app, "GET", "/api/v1/healthz")).status, 404);
    assert.ok((await call(app, "GET", "/healthz")).headers.get("x-request-id"));
  });

  it("other methods get 405 with Allow, OPTIONS lists the methods", async () => {
    for (const method of ["POST", "DELETE"]) {
      const refused = await call(app, method, "/healthz", undefined, { "accept-language": "de" });
      assert.deepEqual([refused.status, refused.headers.get("allow")], [405, "GET, HEAD, OPTIONS"]);
      assert.deepEqual(await refused.json(), {
        error: `Die Methode ${method} ist hier nicht erlaubt; erlaubt: GET, HEAD, OPTIONS.`,
      });
      assert.ok(refused.headers.get("x-request-id"));
    }
    const options = await call(app, "OPTIONS", "/readyz");
    assert.deepEqual([options.status, options.headers.get("allow")], [204, "GET, HEAD, OPTIONS"]);
  });

  it("health: false leaves the paths to the router", async () => {
    assert.equal((await call(off, "GET", "/healthz")).status, 404);
  });

  it("/readyz answers 503 {error} once the database is gone, while /healthz still answers", async () => {
    await engine.close();
    const ready = await call(app, "GET", "/readyz", undefined, { "accept-language": "de" });
    assert.deepEqual(await jsonOf(ready), { status: 503, body: { error: "Die Datenbank ist nicht erreichbar." } });
    assert.deepEqual(await jsonOf(await call(app, "GET", "/readyz")), {
      status: 503,
      body: { error: "The database cannot be reached." },
    });
    assert.equal((await call(app, "GET", "/healthz")).status, 200);
  });
});
