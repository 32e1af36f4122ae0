import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { type NodeServer, serveNode } from "../../src/adapters/node/node-adapter.ts";
import { createResponse, directResponse, withHeaders } from "../../src/http/fast-response.ts";

// withHeaders keeps the added headers as a second record that the Node adapter writes beside
// the response's own; what reaches the wire must be exactly what one merged record gave.
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

describe("headers added by withHeaders", {
  skip: isDeno && "on Deno createResponse makes real Responses, and Deno.serve writes them",
}, () => {
  let server: NodeServer;
  let next: () => Response = () => createResponse(null, 204, {});
  before(async () => {
    server = await serveNode(() => next(), { port: 0, host: "127.0.0.1" });
  });
  after(() => server.close());

  /** Status, raw header lines (names lower-cased, in order, Date and Connection left out) and body of a GET answered with `response`. */
  async function wire(
    response: () => Response,
  ): Promise<{ status: number; headers: [string, string][]; body: string }> {
    next = response;
    // A raw socket: an HTTP client would merge or hide a header sent twice.
    const text = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(
        server.port,
        "127.0.0.1",
        () => socket.write("GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
      );
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
    const [head, body = ""] = text.split("\r\n\r\n");
    const [statusLine, ...lines] = head!.split("\r\n");
    const headers = lines.map((
      line,
    ): [string, string] => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]);
    return {
      status: Number(statusLine!.split(" ")[1]),
      headers: headers.filter(([name]) => name !== "date" && name !== "connection"),
      body,
    };
  }

  test("an added header replaces the response's own of that name; the true Content-Length is written once", async () => {
    const { status, headers, body } = await wire(() =>
      withHeaders(
        createResponse("{}", 200, {
          "content-type": "application/json",
          "content-language": "en",
          "content-length": "999",
        }),
        { "content-language": "de", "x-request-id": "r-1" },
      )
    );
    assert.equal(status, 200);
    assert.equal(body, "{}");
    assert.deepEqual(headers, [["content-type", "application/json"], ["content-language", "de"], [
      "x-request-id",
      "r-1",
    ], ["content-length", "2"]]);
  });

  test("added twice, the later value wins; a string body without a type gets text/plain", async () => {
    const { headers } = await wire(() =>
      withHeaders(withHeaders(createResponse("hi", 200, {}), { vary: "Origin", "x-a": "1" }), {
        vary: "Origin, Accept-Language",
      })
    );
    assert.deepEqual(headers, [["vary", "Origin, Accept-Language"], ["x-a", "1"], [
      "content-type",
      "text/plain;charset=UTF-8",
    ], ["content-length", "2"]]);
  });

  test("a bodiless status gets the added headers and no Content-Length", async () => {
    const { status, headers } = await wire(() =>
      withHeaders(createResponse(null, 204, { "content-language": "en" }), { "ratelimit-limit": "5" })
    );
    assert.equal(status, 204);
    assert.deepEqual(headers, [["content-language", "en"], ["ratelimit-limit", "5"]]);
  });

  test("read through the Response API, the added headers are there, and the response is written from the live Headers", async () => {
    const extended = withHeaders(createResponse("{}", 200, { "content-language": "en" }), {
      "content-language": "fr",
      "x-b": "2",
    });
    assert.equal(directResponse(extended)?.extra?.["x-b"], "2");
    assert.equal(extended.headers.get("content-language"), "fr");
    assert.equal(extended.headers.get("x-b"), "2");
    extended.headers.set("x-c", "3");
    const { headers } = await wire(() => extended);
    assert.deepEqual(headers, [["content-language", "fr"], ["content-type", "text/plain;charset=UTF-8"], ["x-b", "2"], [
      "x-c",
      "3",
    ], ["content-length", "2"]]);
  });

  test("each body's Content-Length is its own, however bodies repeat and alternate", async () => {
    const page = JSON.stringify({ name: "Zoë", note: "日本" });
    const bodies = [page, page, "x".repeat(page.length), page, "", page, "é".repeat(70_000), "", page];
    for (const body of bodies) {
      const { headers, body: received } = await wire(() => createResponse(body, 200, { "content-type": "a/b" }));
      assert.deepEqual(headers.at(-1), ["content-length", String(Buffer.byteLength(body))]);
      assert.equal(received, body);
    }
  });

  test("however many headers responses carry in turn, each gets exactly its own", async () => {
    const record = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-h${i}`, `v${i}`]));
    for (const [own, added] of [[1, 0], [3, 12], [1, 1], [20, 2], [2, 0], [0, 16], [3, 12]] as const) {
      const { headers } = await wire(() => withHeaders(createResponse("ok", 200, record(own)), record(added)));
      // The response's own headers that were not replaced, then the added ones.
      const expected = [
        ...Object.entries(record(own)).filter(([name]) => !(name in record(added))),
        ...Object.entries(record(added)),
      ];
      expected.push(["content-type", "text/plain;charset=UTF-8"], ["content-length", "2"]);
      assert.deepEqual(headers, expected, `${own} headers, then ${added} added`);
    }
  });
});
