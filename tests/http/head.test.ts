import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "undici";
import { type NodeServer, serveNode } from "../../src/adapters/node/node-adapter.ts";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, seedUsers } from "../helpers/app.ts";

// HEAD is answered in one place (src/http/head.ts): as the GET with its body dropped, so the
// headers, Content-Length included, are the GET's, through app.fetch and over a real socket.
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const PATHS = [
  "/api/v1/users",
  "/api/v1/users/1",
  "/api/v1/users/1/posts",
  "/api/v1/users/99",
  "/api/v1/openapi.json",
  "/docs",
];

describe("HEAD has the GET's headers and no body", () => {
  let app: App;
  let server: NodeServer;

  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 2);
    server = await serveNode(app.fetch, { port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await server.close();
    await app.close();
  });

  test("through app.fetch", async () => {
    for (const path of PATHS) {
      const get = await call(app, "GET", path);
      const length = (await get.arrayBuffer()).byteLength;
      const head = await call(app, "HEAD", path);
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get("etag"), get.headers.get("etag"), path);
      assert.equal(head.headers.get("content-type"), get.headers.get("content-type"), path);
      assert.equal((await head.arrayBuffer()).byteLength, 0, path);
      // On Deno a Response's length is known only by reading it: HEAD may leave it out, never misstate it.
      const said = head.headers.get("content-length");
      if (isDeno) assert.ok(said === null || said === String(length), `${path}: ${said} for ${length} bytes`);
      else assert.equal(said, String(length), path);
    }
  });

  test("over node:http", async () => {
    for (const path of PATHS) {
      const get = await request(`${server.url}${path}`);
      const length = (await get.body.arrayBuffer()).byteLength;
      const head = await request(`${server.url}${path}`, { method: "HEAD" });
      assert.equal((await head.body.arrayBuffer()).byteLength, 0, path);
      assert.equal(head.statusCode, get.statusCode, path);
      assert.equal(head.headers["etag"], get.headers["etag"], path);
      const said = head.headers["content-length"];
      if (isDeno) assert.ok(said === undefined || said === String(length), `${path}: ${said} for ${length} bytes`);
      else assert.equal(said, String(length), path);
    }
  });
});
