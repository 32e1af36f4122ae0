/**
 * HEAD, in one place: every path that answers GET answers HEAD, as that GET with the body
 * dropped, so its headers (ETag, Content-Length) are exactly the GET's. The router adds HEAD
 * to a path's methods, the app answers it as GET through {@link dropBody}, and the adapters
 * ask {@link carriesBody} whether anything follows the headers on the wire.
 */
import { type FullBody, type HeaderRecord, type Reply, reply } from "./reply.ts";

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
 * The GET's reply without its body, its length kept as the Content-Length (what the GET
 * sends).
 */
export function dropBody(answer: Reply): Reply {
  const { status, headers, body, extra } = answer;
  if (isBodilessStatus(status)) return answer;
  const length = String(byteLength(body));
  if (headers instanceof Headers) {
    const copy = new Headers(headers);
    copy.set("content-length", length);
    return extra === undefined ? { status, headers: copy, body: null } : { status, headers: copy, body: null, extra };
  }
  const record: HeaderRecord = {};
  for (const name in headers) if (name.toLowerCase() !== "content-length") record[name] = headers[name]!;
  record["content-length"] = length;
  const dropped = reply(null, status, record);
  return extra === undefined ? dropped : { ...dropped, extra };
}
