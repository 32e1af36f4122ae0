import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { connectTarget, externalUri, type Connected } from "./helpers.ts";

/** A small document limit keeps the oversize cases cheap; MongoDB's own is 16 MiB. */
const MAX = 256 * 1024;

/** Document limits: what MongoDB refuses to store, the engine refuses too. */
describe("embedded engine: document limits", { skip: externalUri !== undefined && "needs the engine's configurable limit" }, () => {
  let conn: Connected;

  before(async () => {
    conn = await connectTarget("limits", { maxBsonObjectSize: MAX });
  });
  after(async () => {
    await conn.close();
  });

  test("buildInfo and hello report the configured maxBsonObjectSize", async () => {
    const info = await conn.client.db("admin").command({ buildInfo: 1 });
    const hello = await conn.client.db("admin").command({ hello: 1 });
    assert.equal(info.maxBsonObjectSize, MAX);
    assert.equal(hello.maxBsonObjectSize, MAX);
  });
});
