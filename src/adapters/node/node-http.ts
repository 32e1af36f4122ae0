// The one file of the project that names node:http. The adapter's other files take node's
// types from here rather than from node-adapter.ts, which imports them all: shared pieces sit
// below the files that use them, so the adapter's modules form no cycle.
export { createServer, maxHeaderSize } from "node:http";
export type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from "node:http";

/** A fetch-style handler: the framework's `app.fetch`. The second argument names the client's socket address, as Deno.serve's does. */
export type FetchHandler = (
  request: Request,
  info?: { remoteAddr: { hostname: string; port?: number } },
) => Response | Promise<Response>;
