import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_BODY_LIMIT } from "./messages.ts";
import { Exchange, type ServerContext } from "./node-exchange.ts";

// The adapter's helper files (node-*.ts) take node:http's types from here, so this stays the
// one file of the project that names node:http.
export type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** A fetch-style handler: the framework's `app.fetch`. The second argument names the client's socket address, as Deno.serve's does. */
export type FetchHandler = (request: Request, info?: { remoteAddr: { hostname: string; port?: number } }) => Response | Promise<Response>;

/** Where to listen and how much request body to accept. */
export interface ServeOptions {
  /** TCP port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Interface to bind; default all interfaces. */
  host?: string;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
}

/** A running server. */
export interface NodeServer {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Base URL to reach the server, e.g. "http://localhost:3000". */
  url: string;
  /** stop accepting, finish in-flight requests, close idle keep-alive sockets, then resolve */
  close(): Promise<void>;
}


/**
 * Serves a fetch handler over node:http. Requests reach the handler as lazily built Requests
 * and responses made by createResponse are written without a stream, so the adapter costs
 * little over bare node:http; bodies larger than `bodyLimit` are refused with 413.
 */
export async function serveNode(fetch: FetchHandler, options: ServeOptions = {}): Promise<NodeServer> {
  const context: ServerContext = {
    fetch,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    origin: "",
    inFlight: 0,
    closing: undefined,
    onIdle: undefined,
  };
  const server = createServer((req, res) => new Exchange(context, req, res, false).start());
  // With a listener here node leaves `Expect: 100-continue` to us: the exchange sends
  // 100 Continue only once the handler starts reading the body.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => new Exchange(context, req, res, true).start());
  await listen(server, options.port ?? 3000, options.host);
  // Past listen, a server error (say, accept() out of file descriptors) must not end the process.
  server.on("error", (error) => console.error(error));
  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(options.host)}:${port}`;
  context.origin = url;
  return { port, url, close: () => (context.closing ??= shutDown(server, context)) };
}

/** Options for mounting the app inside a node:http server you create yourself. */
export interface ListenerOptions {
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Origin for requests without a Host header (HTTP/1.0). Default "http://localhost". */
  origin?: string;
}

/**
 * A `(req, res)` listener for an existing node:http server (or anything that takes one), with
 * the same lazy Request, direct writes and body limit as {@link serveNode}. Graceful shutdown
 * is then the owning server's job.
 * @example http.createServer(createNodeListener(app.fetch)).listen(3000)
 */
export function createNodeListener(fetch: FetchHandler, options: ListenerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const context: ServerContext = {
    fetch,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    origin: options.origin ?? "http://localhost",
    inFlight: 0,
    closing: undefined,
    onIdle: undefined,
  };
  return (req, res) => new Exchange(context, req, res, false).start();
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The host part of the server's URL: wildcard addresses are reached through localhost. */
function urlHost(host: string | undefined): string {
  if (host === undefined || host === "" || host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}

/** Stops accepting, lets in-flight requests finish, then closes every connection. */
async function shutDown(server: Server, context: ServerContext): Promise<void> {
  const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  server.closeIdleConnections();
  if (context.inFlight > 0) await new Promise<void>((resolve) => (context.onIdle = resolve));
  // Connections that carried the last requests are idle now.
  server.closeIdleConnections();
  await closed;
}
