/**
 * HEAD, in one place: every path that answers GET answers HEAD, as that GET with the body
 * dropped, so its headers (ETag, Content-Length) are exactly the GET's.
 */

/** The methods a path answers, with HEAD added wherever GET is served. */
export function withHead(methods: Set<string>): Set<string> {
  if (methods.has("GET")) methods.add("HEAD");
  return methods;
}

/** The GET a HEAD request stands for: same URL and headers, no body. */
export function headAsGet(request: Request): Request {
  return new Request(request.url, { headers: request.headers });
}

/** The GET's response without its body. */
export function dropBody(response: Response): Response {
  return new Response(null, { status: response.status, headers: response.headers });
}
