import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { request } from "undici";
import { type NodeServer, serveNode } from "../../src/adapters/node/node-adapter.ts";
import { cutResponse, type DenoRuntime, serveDeno } from "../../src/adapters/deno.ts";
import { listen } from "../../src/adapters/serve.ts";
import { Languages } from "../../src/i18n/languages.ts";

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

// What app.languages is: the shipped catalogs with the app's overrides laid over them.
const languages = new Languages("en", { fr: { "request.targetMalformed": "Cible refusée." } });

/** Runs `work` with console.error silenced (a failing handler is logged by the adapter). */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const original = console.error;
  console.error = () => {};
  try {
    return await work();
  } finally {
    console.error = original;
  }
}

// The errors the Node adapter answers itself, before the app runs, are negotiated from the
// client's Accept-Language with the app's languages, as the app's own errors are.
describe("node adapter errors in the client's language", () => {
  let server: NodeServer;
  let reached = 0;
  before(async () => {
    server = await serveNode((req) => {
      reached++;
      // Reading the body lets the adapter notice a streamed body over the limit.
      return req.text().then(() => Promise.reject(new Error("broken")));
    }, { port: 0, host: "127.0.0.1", bodyLimit: 8, languages });
  });
  after(() => server.close());

  test("a 413 refused by Content-Length is German for Accept-Language: de-CH", async () => {
    const response = await request(`${server.url}/x`, {
      method: "POST",
      body: "0123456789",
      headers: { "accept-language": "de-CH, en;q=0.5" },
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.headers["content-language"], "de");
    assert.deepEqual(await response.body.json(), { error: "Der Request-Body ist größer als das Limit von 8 Bytes." });
  });

  test("a 413 for a streamed body that outgrows the limit is German too", async () => {
    // No Content-Length: sent chunked, so only reading it shows it is too large.
    const response = await request(`${server.url}/x`, {
      method: "POST",
      body: Readable.from(["01234", "56789"]),
      headers: { "accept-language": "de" },
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.headers["content-language"], "de");
    assert.deepEqual(await response.body.json(), { error: "Der Request-Body ist größer als das Limit von 8 Bytes." });
  });

  test("a 400 for a malformed Host header is German, and the handler never runs", async () => {
    const before = reached;
    const response = await request(`${server.url}/x`, {
      headers: { host: "evil.example/path", "accept-language": "de" },
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.headers["content-language"], "de");
    assert.deepEqual(await response.body.json(), { error: "Das Anfrageziel oder der Host-Header ist fehlerhaft." });
    assert.equal(reached, before);
  });

  test("the app's overrides apply, and a client that asks for no language gets the default", async () => {
    const french = await request(`${server.url}/x`, { headers: { host: "a b", "accept-language": "fr-CA" } });
    assert.deepEqual([french.statusCode, french.headers["content-language"], await french.body.json()], [400, "fr", {
      error: "Cible refusée.",
    }]);
    const plain = await request(`${server.url}/x`, { headers: { host: "a b" } });
    assert.deepEqual([plain.statusCode, plain.headers["content-language"], await plain.body.json()], [400, "en", {
      error: "The request target or Host header is malformed.",
    }]);
  });

  test("a 500 from a failing handler keeps the spec's constant body, labelled with the negotiated language", async () => {
    const failed = await quietly(() => request(`${server.url}/x`, { headers: { "accept-language": "de" } }));
    assert.deepEqual([failed.statusCode, failed.headers["content-language"]], [500, "de"]);
    assert.deepEqual(await failed.body.json(), { message: "An error occurred!" });
  });
});

describe("node adapter without languages", () => {
  test("answers English, labelled with the `language` option", async () => {
    const server = await serveNode(() => new Response(null, { status: 204 }), {
      port: 0,
      host: "127.0.0.1",
      bodyLimit: 8,
      language: "de",
    });
    try {
      const response = await request(`${server.url}/x`, {
        method: "POST",
        body: "0123456789",
        headers: { "accept-language": "fr" },
      });
      assert.deepEqual([response.statusCode, response.headers["content-language"]], [413, "de"]);
      assert.deepEqual(await response.body.json(), { error: "The request body is larger than the limit of 8 bytes." });
    } finally {
      await server.close();
    }
  });
});

describe("Deno's shutdown 503 in the client's language", () => {
  test("cutResponse negotiates Accept-Language", async () => {
    const german = cutResponse(new Request("http://a/x", { headers: { "accept-language": "de-AT" } }), languages);
    assert.deepEqual([german.status, german.headers.get("content-language"), german.headers.get("retry-after")], [
      503,
      "de",
      "1",
    ]);
    assert.deepEqual(await german.json(), {
      error: "Der Server wird heruntergefahren; bitte die Anfrage in Kürze wiederholen.",
    });
    const english = cutResponse(new Request("http://a/x"), languages);
    assert.deepEqual(await english.json(), { error: "The server is shutting down; retry the request shortly." });
  });

  test("serveDeno answers a request its deadline cut in German (a stand-in Deno.serve)", async () => {
    let handler!: (request: Request) => Promise<Response>;
    const runtime: DenoRuntime = {
      serve(_options, fetch) {
        handler = fetch;
        // A shutdown that never ends, as Deno.serve's does while a handler runs.
        return { addr: { port: 1 }, shutdown: () => new Promise<void>(() => {}) };
      },
    };
    const server = serveDeno(runtime, () => new Promise<Response>(() => {}), {
      port: 0,
      host: "127.0.0.1",
      shutdownTimeout: 1,
      log: () => {},
      languages,
    });
    const answer = handler(new Request("http://a/stuck", { headers: { "accept-language": "de" } }));
    await server.close();
    const response = await answer;
    assert.deepEqual([response.status, response.headers.get("content-language")], [503, "de"]);
    assert.deepEqual(await response.json(), {
      error: "Der Server wird heruntergefahren; bitte die Anfrage in Kürze wiederholen.",
    });
  });

  test("over a real socket on Deno.serve", { skip: !isDeno && "Deno.serve runs on Deno only" }, async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = await listen(() => {
      entered();
      return new Promise<Response>(() => {});
    }, { port: 0, host: "127.0.0.1", shutdownTimeout: 1, log: () => {}, languages });
    const pending = request(`${server.url}/stuck`, { headers: { "accept-language": "de-CH" } });
    await inHandler;
    await server.close();
    const response = await pending;
    assert.deepEqual([response.statusCode, response.headers["content-language"]], [503, "de"]);
    assert.deepEqual(await response.body.json(), {
      error: "Der Server wird heruntergefahren; bitte die Anfrage in Kürze wiederholen.",
    });
  });
});
