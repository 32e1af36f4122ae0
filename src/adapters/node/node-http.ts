// The one file of the project that names node:http. The adapter's other files take node's
// types (and the handler types they share) from here rather than from node-adapter.ts, which
// imports them all: shared pieces sit below the files that use them, so the adapter's modules
// form no cycle.
import type { ReplyHandler } from "../../http/reply.ts";

export { createServer, maxHeaderSize } from "node:http";
export type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from "node:http";

/** What the adapter tells a handler about the connection: the client's socket address, as Deno.serve shapes it. */
export interface NodeInfo {
  readonly remoteAddr: { readonly hostname: string; readonly port?: number };
}

/** A fetch-style handler. The second argument names the client's socket address, as Deno.serve's does. */
export type FetchHandler = (request: Request, info?: NodeInfo) => Response | Promise<Response>;

/**
 * What the adapter serves: an `App`, through its adapter contract (`answer` and `refuse`: its
 * replies are written straight to the socket, a cache hit in the turn its request arrived), or
 * any fetch handler, whose Responses are written as any Response is.
 */
export type Served = ReplyHandler<NodeInfo> | FetchHandler;
