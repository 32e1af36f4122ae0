import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { maxHeaderSize } from "node:http";
import { type NodeServer, serveNode } from "../../src/adapters/node/node-adapter.ts";
import { refusalBytes, refusalFor } from "../../src/adapters/node/node-client-error.ts";
import { reply } from "../../src/http/reply.ts";
import { replyHandler } from "../helpers/reply-handler.ts";
import { Languages } from "../../src/i18n/languages.ts";
import { english } from "../../src/i18n/message.ts";
import { parseRaw, rawExchange } from "../helpers/raw-http.ts";

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const limits = { maxHeaderSize: 16_384, timeouts: { headersTimeout: 10_000, requestTimeout: 30_000 } };

// What node:http refuses before any handler runs: the same statuses as node's own answers,
// with the spec's {error} body instead of none.
describe("client errors: status and message", () => {
  test("each node:http client error maps to node's status, with a message that says what was wrong", () => {
    const cases: [Record<string, string>, number, string][] = [
      [
        { code: "HPE_INVALID_METHOD", reason: "Invalid method encountered" },
        400,
        "The request is not valid HTTP/1.1: Invalid method encountered.",
      ],
      [{ code: "HPE_HEADER_OVERFLOW" }, 431, "The request's header section is larger than the limit of 16384 bytes."],
      [
        { code: "HPE_CHUNK_EXTENSIONS_OVERFLOW" },
        413,
        "The request body's chunk extensions are larger than the server allows.",
      ],
      [
        { code: "ERR_HTTP_REQUEST_TIMEOUT" },
        408,
        "The request was not received in time: the server allows 10000 ms for its headers and 30000 ms for the whole request.",
      ],
      [{}, 400, "The request is not valid HTTP/1.1: unknown error."],
    ];
    for (const [error, status, text] of cases) {
      const refusal = refusalFor(error, limits);
      assert.equal(refusal.status, status, JSON.stringify(error));
      assert.equal(english(refusal.message), text);
    }
  });

  test("a timeout names only the limits that are set", () => {
    const only = (headersTimeout: number, requestTimeout: number) =>
      english(
        refusalFor({ code: "ERR_HTTP_REQUEST_TIMEOUT" }, { ...limits, timeouts: { headersTimeout, requestTimeout } })
          .message,
      );
    assert.equal(only(50, 0), "The request was not received in time: the server allows 50 ms for its headers.");
    assert.equal(only(0, 70), "The request was not received in time: the server allows 70 ms for the whole request.");
  });

  test("a parser reason is kept to printable ASCII and 200 characters", () => {
    const message = refusalFor({ code: "HPE_X", reason: "bad\r\n\u00e9" + "x".repeat(300) }, limits).message;
    const reason = String(message.params!.reason);
    assert.equal(reason.length, 200);
    assert.match(reason, /^bad\?\?\?x+$/);
  });

  test("the raw answer is a complete HTTP/1.1 response in the server's default language", () => {
    const now = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
    const raw = refusalBytes(refusalFor({ code: "HPE_HEADER_OVERFLOW" }, limits), new Languages("de"), now)
      .toString("latin1");
    const { status, headers, body } = parseRaw(raw);
    assert.equal(status, 431);
    assert.match(raw, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    assert.equal(headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(headers.get("content-language"), "de");
    assert.equal(headers.get("connection"), "close");
    assert.equal(headers.get("date"), "Mon, 23 Nov 2026 12:00:00 GMT");
    assert.equal(Number(headers.get("content-length")), Buffer.byteLength(Buffer.from(body, "latin1")));
    const utf8 = Buffer.from(body, "latin1").toString("utf8");
    assert.deepEqual(JSON.parse(utf8), { error: "Die Header der Anfrage sind größer als das Limit von 16384 Bytes." });
  });
});

describe("serveNode answers node:http's own refusals as {error}", {
  skip: isDeno && "Deno serves through Deno.serve, which answers malformed requests itself",
}, () => {
  let server: NodeServer;
  let handled = 0;
  before(async () => {
    server = await serveNode(
      replyHandler(() => {
        handled++;
        return reply('{"ok":true}', 200, { "content-type": "application/json" });
      }),
      { port: 0, host: "127.0.0.1" },
    );
  });
  after(() => server.close());

  test("an unparsable request gets 400 with the parser's reason", async () => {
    const before = handled;
    const { status, headers, body } = parseRaw(await rawExchange(server.port, "GARBAGE\r\n\r\n"));
    assert.equal(status, 400);
    assert.equal(headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(headers.get("content-language"), "en");
    assert.deepEqual(JSON.parse(body), { error: "The request is not valid HTTP/1.1: Invalid method encountered." });
    assert.equal(handled, before, "the handler never ran");
  });

  test("a header section over node's limit gets 431 naming the limit", async () => {
    const raw = await rawExchange(
      server.port,
      `GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${"y".repeat(maxHeaderSize)}\r\n\r\n`,
    );
    const { status, body } = parseRaw(raw);
    assert.equal(status, 431);
    assert.deepEqual(JSON.parse(body), {
      error: `The request's header section is larger than the limit of ${maxHeaderSize} bytes.`,
    });
  });

  test("after a keep-alive answer, a malformed request on the same connection gets its 400 after it", async () => {
    const raw = await rawExchange(server.port, "GET /a HTTP/1.1\r\nHost: a\r\n\r\nNOT HTTP\r\n\r\n");
    const split = raw.indexOf("HTTP/1.1 400 ");
    assert.ok(split > 0, raw);
    const first = parseRaw(raw.slice(0, split));
    assert.equal(first.status, 200);
    assert.equal(first.body, '{"ok":true}');
    assert.equal(parseRaw(raw.slice(split)).status, 400);
  });
});

describe("serveNode: a refusal never lands inside a response already under way", {
  skip: isDeno && "Deno serves through Deno.serve, which answers malformed requests itself",
}, () => {
  test("the connection is cut instead, as node does", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Headers go out at once; the body waits for the test.
    const server = await serveNode(() =>
      new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            await held;
            controller.enqueue(new TextEncoder().encode("late"));
            controller.close();
          },
        }),
        { status: 200 },
      ), { port: 0, host: "127.0.0.1" });
    try {
      const raw = await rawExchange(server.port, "GET / HTTP/1.1\r\nHost: a\r\n\r\nNOT HTTP\r\n\r\n");
      release();
      assert.doesNotMatch(raw, /HTTP\/1\.1 400 /);
      assert.doesNotMatch(raw, /late/);
    } finally {
      release();
      await server.close();
    }
  });
});
