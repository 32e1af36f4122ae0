import type { OutgoingHttpHeaders, ServerResponse } from "./node-adapter.ts";
import { directResponse, type DirectResponse, type FullBody, type HeaderRecord } from "../../http/fast-response.ts";
import { carriesBody, isBodilessStatus } from "../../http/head.ts";
import { jsonHeaders } from "../../http/responses.ts";

/**
 * Writes a Response to node's ServerResponse. A response made by createResponse goes out in
 * one write with its Content-Length; any other is streamed. Resolves once the body is written,
 * or the client is gone; rejects if the body stream fails (the socket is destroyed by then
 * whenever headers were already sent, so the client cannot take a cut body for a whole one).
 */
export function writeResponse(res: ServerResponse, response: Response, method: string): Promise<void> | void {
  const direct = directResponse(response);
  if (direct !== undefined) return writeDirect(res, direct, method);
  return writeStreamed(res, response, method);
}

/**
 * A body held in full: status line, headers and body handed to node at once. Its length is
 * the Content-Length; on HEAD, where nothing follows the headers, one the response gives (the
 * GET's, from http/head.ts) is kept.
 */
function writeDirect(res: ServerResponse, { status, headers, body }: DirectResponse, method: string): void {
  const sendsBody = carriesBody(method, status);
  const out = headers instanceof Headers ? nodeHeaders(headers) : copy(headers, body, !sendsBody);
  if (isBodilessStatus(status)) {
    res.writeHead(status, out).end();
    return;
  }
  if (sendsBody || body !== null || out["content-length"] === undefined) {
    out["content-length"] = body === null ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  }
  res.writeHead(status, out);
  if (!sendsBody || body === null) res.end();
  else res.end(body);
}

/**
 * A copy to add Content-Length to (the record may be shared), leaving out any the record has
 * (in any case, which would go out as a second one) unless `keepLength`. A string body without
 * a Content-Type gets the one `new Response(string)` gives it, so the wire shows what a real
 * Response would. A plain loop: on Node 20 object spread of such a record costs microseconds.
 */
function copy(headers: HeaderRecord, body: FullBody, keepLength: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  let typed = false;
  for (const name in headers) {
    const length = name.length;
    if (length === 14 && name.toLowerCase() === "content-length") {
      if (keepLength) out["content-length"] = headers[name];
      continue;
    }
    if (length === 12 && name.toLowerCase() === "content-type") typed = true;
    out[name] = headers[name];
  }
  if (!typed && typeof body === "string") out["content-type"] = "text/plain;charset=UTF-8";
  return out;
}

/** Any other Response: headers first, then the body chunk by chunk as the socket drains. */
async function writeStreamed(res: ServerResponse, response: Response, method: string): Promise<void> {
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

/** Web Headers as node wants them: Set-Cookie as separate lines, never joined by commas. */
function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of headers) {
    if (name !== "set-cookie") out[name] = value;
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

/**
 * Answers with a small JSON document, for the errors the adapter itself raises. `close` asks
 * node to end the connection afterwards (when the request body was left unread).
 */
export function writeJson(res: ServerResponse, status: number, payload: unknown, language: string, close = false): void {
  const body = JSON.stringify(payload);
  const headers: OutgoingHttpHeaders = { ...jsonHeaders(language), "content-length": Buffer.byteLength(body) };
  if (close) headers.connection = "close";
  res.writeHead(status, headers).end(body);
}
