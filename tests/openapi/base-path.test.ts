/** `basePath` forms: routes, the OpenAPI document, its own URL and the docs page agree on one prefix. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { string } from "superstruct";
import { createApp, defineModel } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";

const Note = defineModel({ name: "Note", fields: { text: string() } });

for (const [basePath, prefix] of [["/", ""], ["/api/v2/", "/api/v2"], ["", ""], ["/v1", "/v1"]]) {
  test(`basePath ${JSON.stringify(basePath)}: routes, document paths and the docs page use ${JSON.stringify(prefix)}`, async () => {
    const app = await createApp({ models: [Note], basePath });
    try {
      const script = await (await call(app, "GET", "/docs/docs-init.js")).text();
      const url = /url: "([^"]*)"/.exec(script)?.[1];
      assert.equal(url, `${prefix}/openapi.json`);
      const response = await call(app, "GET", url!);
      assert.equal(response.status, 200);
      const doc = await response.json();
      assert.deepEqual(Object.keys(doc.paths).slice(0, 2), [`${prefix}/notes`, `${prefix}/notes/{id}`]);
      assert.equal((await call(app, "POST", `${prefix}/notes`, { text: "t" })).status, 201);
      assert.equal((await call(app, "GET", `${prefix}/notes/1`)).status, 200);
      assert.equal((await call(app, "GET", `${prefix}//notes`)).status, 404);
    } finally {
      await app.close();
    }
  });
}

test("a basePath that cannot be one path prefix stops start-up with one line", async () => {
  for (const basePath of ["api/v1", "/api//v1", "/api/:v", "/api?x", "/a b", 7]) {
    await assert.rejects(
      createApp({ models: [Note], basePath: basePath as string }),
      (error: Error) =>
        error instanceof TypeError && /^basePath must be a path such as "\/api\/v1"/.test(error.message),
      JSON.stringify(basePath),
    );
  }
});
