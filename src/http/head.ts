/**
 * HEAD, in one place: every path that answers GET answers HEAD, as that GET with the body
 * dropped, so its headers (ETag, Content-Length) are exactly the GET's. The router adds HEAD
 * to a path's methods, the app answers it as GET through {@link dropBody}, and the adapters
 * ask {@link carriesBody} whether anything follows the headers on the wire.
 */
import { createResponse, directResponse, type FullBody, type HeaderRecord } from "./fast-response.ts";

/** The methods a path answers, with HEAD added wherever GET is served. */
export function withHead(methods: Set<string>): Set<string> {
  if (methods.has("GET")) methods.add("HEAD");
  return methods;
}

/** The GET a HEAD request stands for: same URL and headers, no body. */
export function headAsGet(request: Request): Request {
  return new Request(request.url, { headers: request.headers });
}

/** Statuses whose responses never carry a body, nor a Content-Length that would promise one. */
export function isBodilessStatus(status: number): boolean {
  return status === 204 || status === 304 || (status >= 100 && status < 200);
}

/** Whether a response to `method` with `status` sends a body after its headers: never for HEAD. */
export function carriesBody(method: string, status: number): boolean {
  return method !== "HEAD" && !isBodilessStatus(status);
}

const encoder = new TextEncoder();

function byteLength(body: FullBody): number {
  return body === null ? 0 : typeof body === "string" ? encoder.encode(body).byteLength : body.byteLength;
}

/**
 * The GET's response without its body. A body held in full keeps its length as the
 * Content-Length (what the GET sends), and the response stays one an adapter writes directly;
 * a streamed body is cancelled, and its length stays unknown unless the GET said it.
 */
export async function dropBody(response: Response): Promise<Response> {
  const direct = directResponse(response);
  if (direct === undefined) {
    await response.body?.cancel().catch(() => {});
    return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  const { status, headers, body } = direct;
  if (isBodilessStatus(status)) return response;
  const length = String(byteLength(body));
  if (headers instanceof Headers) {
    const copy = new Headers(headers);
    copy.set("content-length", length);
    return new Response(null, { status, headers: copy });
  }
  const record: HeaderRecord = {};
  for (const name in headers) if (name.toLowerCase() !== "content-length") record[name] = headers[name];
  record["content-length"] = length;
  return createResponse(null, status, record);
}
