import type { OutgoingHttpHeaders, ServerResponse } from "./node-http.ts";
import type { FullBody, HeaderRecord, Reply } from "../../http/reply.ts";
import { carriesBody, isBodilessStatus } from "../../http/head.ts";
import { jsonHeaders } from "../../http/responses.ts";

/**
 * Writes a reply (the app's answer, see http/reply.ts): status line, headers and the whole
 * body handed to node at once, in one write. Its length is the Content-Length; on HEAD, where
 * nothing follows the headers, one the reply gives (the GET's, from http/head.ts) is kept.
 * Throws when node refuses the headers, before anything is written.
 */
export function writeReply(res: ServerResponse, { status, headers, body, extra }: Reply, method: string): void {
  const sendsBody = carriesBody(method, status);
  const keepGiven = !sendsBody && body === null;
  if (headers instanceof Headers) {
    const out = nodeHeaders(headers, extra);
    if (!isBodilessStatus(status) && !(keepGiven && out["content-length"] !== undefined)) {
      out["content-length"] = byteLength(body);
    }
    res.writeHead(status, out);
  } else {
    const given = keepGiven ? givenLength(headers, extra) : undefined;
    const length = isBodilessStatus(status) ? undefined : given ?? String(byteLength(body));
    res.writeHead(status, flatHeaders(headers, extra, body, length));
  }
  if (!sendsBody || body === null) res.end();
  else res.end(typeof body === "string" ? body : bufferOf(body));
}

/**
 * Bytes as a Buffer, which node's streams take as they are (a plain Uint8Array is wrapped in a
 * new Buffer on every write). A cached page is the same bytes on every hit, so the last
 * wrapper is kept.
 */
function bufferOf(bytes: Uint8Array): Buffer {
  if (bytes === lastBytes) return lastBuffer;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  lastBytes = bytes;
  lastBuffer = buffer;
  return buffer;
}

let lastBytes: Uint8Array | null = null;
let lastBuffer: Buffer = Buffer.alloc(0);

function byteLength(body: FullBody): number {
  if (body === null) return 0;
  if (typeof body !== "string") return body.byteLength;
  // A cached page is the same string on every hit: its length is counted once.
  if (body === lastBody) return lastBodyLength;
  const length = Buffer.byteLength(body);
  if (body.length <= LONGEST_BODY_KEPT) {
    lastBody = body;
    lastBodyLength = length;
  }
  return length;
}

/** The last string body written and its length in bytes; only bodies up to this many characters are kept. */
const LONGEST_BODY_KEPT = 64 * 1024;
let lastBody = "";
let lastBodyLength = 0;

/**
 * The headers as node's flat `[name, value, ...]` list: the record, then what withHeaders
 * added (a name there replaces the record's), then `length` as the Content-Length (any the
 * records hold is left out), without copying either record into a new object, which on Node
 * 20 cost more than the rest of writing. A string body without a Content-Type gets the one
 * `new Response(string)` gives it, so the wire shows what a real Response would. The list
 * starts at the size the last one ended at: cached pages answer alike, and a list that grew
 * past V8's first allocation (17 entries, fewer than a service's headers) was copied into one
 * of 43 on every request.
 */
function flatHeaders(
  headers: HeaderRecord,
  extra: HeaderRecord | undefined,
  body: FullBody,
  length: string | undefined,
): string[] {
  const out = new Array<string>(lastListLength);
  let filled = 0;
  let typed = false;
  for (const name in headers) {
    if (extra !== undefined && Object.hasOwn(extra, name)) continue;
    if (isLengthName(name)) continue;
    out[filled++] = name;
    out[filled++] = headers[name]!;
    typed ||= isTypeName(name);
  }
  if (extra !== undefined) {
    for (const name in extra) {
      if (isLengthName(name)) continue;
      out[filled++] = name;
      out[filled++] = extra[name]!;
      typed ||= isTypeName(name);
    }
  }
  if (!typed && typeof body === "string") {
    out[filled++] = "content-type";
    out[filled++] = "text/plain;charset=UTF-8";
  }
  if (length !== undefined) {
    out[filled++] = "content-length";
    out[filled++] = length;
  }
  if (filled !== out.length) out.length = filled; // a call into V8's runtime, so only when needed
  lastListLength = filled;
  return out;
}

/** How many entries the last header list had (see {@link flatHeaders}). */
let lastListLength = 16;

function isLengthName(name: string): boolean {
  return name.length === 14 && name.toLowerCase() === "content-length";
}

function isTypeName(name: string): boolean {
  return name.length === 12 && name.toLowerCase() === "content-type";
}

/** The Content-Length a response states itself (HEAD states the GET's), if any. */
function givenLength(headers: HeaderRecord, extra: HeaderRecord | undefined): string | undefined {
  for (const record of [extra, headers]) {
    for (const name in record) if (name.length === 14 && name.toLowerCase() === "content-length") return record[name];
  }
  return undefined;
}

/**
 * Writes a Response (a plain fetch handler's): headers first, then the body chunk by chunk as
 * the socket drains. Resolves once the body is written, or the client is gone; rejects if the
 * body stream fails (the socket is destroyed by then whenever headers were already sent, so
 * the client cannot take a cut body for a whole one).
 */
export async function writeResponse(res: ServerResponse, response: Response, method: string): Promise<void> {
  const { status, body } = response;
  const sendsBody = carriesBody(method, status);
  const headers = nodeHeaders(response.headers);
  // An empty body says so, rather than going out as an empty chunked one (HEAD keeps the GET's, if known).
  if (body === null && sendsBody) headers["content-length"] ??= 0;
  res.writeHead(status, response.statusText || undefined, headers);
  if (body === null || !sendsBody) {
    res.end();
    await body?.cancel().catch(() => {});
    return;
  }
  const reader = body.getReader();
  // The client left: stop the producer (its pending read resolves as done).
  const onClose = (): void => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    res.off("close", onClose);
  }
}

/** Resolves when the socket can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Web Headers as node wants them: Set-Cookie as separate lines, never joined by commas; then
 * `extra` (headers added to a reply), replacing the same names.
 */
function nodeHeaders(headers: Headers, extra?: HeaderRecord): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of headers) {
    if (name !== "set-cookie") out[name] = value;
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  for (const name in extra) out[name.toLowerCase()] = extra[name];
  return out;
}

/**
 * Answers with a small JSON document, for the errors the adapter itself raises. `close` asks
 * node to end the connection afterwards (when the request body was left unread).
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  language: string,
  close = false,
): void {
  const body = JSON.stringify(payload);
  const headers: OutgoingHttpHeaders = { ...jsonHeaders(language), "content-length": Buffer.byteLength(body) };
  if (close) headers.connection = "close";
  res.writeHead(status, headers).end(body);
}
