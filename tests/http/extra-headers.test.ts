import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { type NodeServer, serveNode } from "../../src/adapters/node/node-adapter.ts";
import { type Reply, reply, replyOf, toResponse, withHeaders } from "../../src/http/reply.ts";
import { replyHandler } from "../helpers/reply-handler.ts";

// withHeaders keeps the added headers as a second record that the Node adapter writes beside
// the reply's own; what reaches the wire must be exactly what one merged record gave.
describe("headers added by withHeaders", () => {
  let server: NodeServer;
  let next: () => Reply = () => reply(null, 204, {});
  before(async () => {
    server = await serveNode(replyHandler(() => next()), { port: 0, host: "127.0.0.1" });
  });
  after(() => server.close());

  /** Status, raw header lines (names lower-cased, in order, Date and Connection left out) and body of a GET answered with `answer`. */
  async function wire(
    answer: () => Reply,
  ): Promise<{ status: number; headers: [string, string][]; body: string }> {
    next = answer;
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
        reply("{}", 200, {
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
      withHeaders(withHeaders(reply("hi", 200, {}), { vary: "Origin", "x-a": "1" }), {
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
      withHeaders(reply(null, 204, { "content-language": "en" }), { "ratelimit-limit": "5" })
    );
    assert.equal(status, 204);
    assert.deepEqual(headers, [["content-language", "en"], ["ratelimit-limit", "5"]]);
  });

  test("made a Response (app.fetch), a reply carries the added headers", async () => {
    const extended = withHeaders(reply("{}", 200, { "content-language": "en" }), {
      "content-language": "fr",
      "x-b": "2",
    });
    const response = toResponse(extended);
    assert.equal(response.headers.get("content-language"), "fr");
    assert.equal(response.headers.get("x-b"), "2");
    assert.equal(await response.text(), "{}");
  });

  test("a reply made from a Response (an error handler's) keeps its Headers, cookies apart, and gets the added ones", async () => {
    const headers = new Headers({ "content-language": "en", "x-b": "1" });
    headers.append("set-cookie", "a=1");
    headers.append("set-cookie", "b=2");
    const made = await replyOf(new Response("{}", { status: 500, headers }));
    const { status, headers: sent, body } = await wire(() =>
      withHeaders(made, { "content-language": "fr", "x-c": "3" })
    );
    assert.equal(status, 500);
    assert.equal(body, "{}");
    assert.deepEqual(sent, [
      ["content-language", "fr"],
      ["content-type", "text/plain;charset=UTF-8"],
      ["x-b", "1"],
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
      ["x-c", "3"],
      ["content-length", "2"],
    ]);
  });

  test("each body's Content-Length is its own, however bodies repeat and alternate", async () => {
    const page = JSON.stringify({ name: "Zoë", note: "日本" });
    const bodies = [page, page, "x".repeat(page.length), page, "", page, "é".repeat(70_000), "", page];
    for (const body of bodies) {
      const { headers, body: received } = await wire(() => reply(body, 200, { "content-type": "a/b" }));
      assert.deepEqual(headers.at(-1), ["content-length", String(Buffer.byteLength(body))]);
      assert.equal(received, body);
    }
  });

  test("however many headers responses carry in turn, each gets exactly its own", async () => {
    const record = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-h${i}`, `v${i}`]));
    for (const [own, added] of [[1, 0], [3, 12], [1, 1], [20, 2], [2, 0], [0, 16], [3, 12]] as const) {
      const { headers } = await wire(() => withHeaders(reply("ok", 200, record(own)), record(added)));
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
