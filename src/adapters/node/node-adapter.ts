// First: keeps node's tick records on V8's fast path (see tick-shape.ts).
import "./tick-shape.ts";
import type { AddressInfo } from "node:net";
import { serverUrl } from "../../http/server-url.ts";
import { DEFAULT_BODY_LIMIT } from "../../http/messages.ts";
import { englishOnly, type Translator } from "../../i18n/message.ts";
import {
  answerClientError,
  type ClientError,
  type ClientErrorFields,
  refusalBytes,
  refusalFor,
} from "./node-client-error.ts";
import { isResponding } from "./node-connection.ts";
import { Exchange, type ServerContext } from "./node-exchange.ts";
import {
  createServer,
  type FetchHandler,
  type IncomingMessage,
  maxHeaderSize,
  type NodeInfo,
  type Served,
  type Server,
  type ServerResponse,
} from "./node-http.ts";
import { cutMessage, type ShutdownLog, withinDeadline } from "../../http/shutdown.ts";
import { resolveTimeouts, type ServerTimeouts } from "../../http/timeouts.ts";

export type { FetchHandler, NodeInfo, Served };

/** Where to listen and how much request body to accept. */
export interface ServeOptions {
  /** TCP port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Interface to bind; default all interfaces. */
  host?: string;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** How long close() waits for in-flight requests before cutting them, in ms. Default 10 s. */
  shutdownTimeout?: number;
  /** Time a client has to send a request's headers, in ms (0: none). Default 10 s. */
  headersTimeout?: number;
  /** Time a client has to send a whole request, body included, in ms (0: none). Default 30 s. */
  requestTimeout?: number;
  /** How long an idle keep-alive connection stays open, in ms. Default 5 s. */
  keepAliveTimeout?: number;
  /** Where close() reports what its deadline cut. Default `console.warn`. */
  log?: ShutdownLog;
  /**
   * Answers the errors the adapter raises itself (413, 400, 500) in the client's language, as
   * negotiated from Accept-Language: pass `app.languages`. Without it they are English.
   */
  languages?: Translator;
  /** Content-Language of those errors when `languages` is not given. Default "en". */
  language?: string;
}

/** A running server. */
export interface NodeServer {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Base URL to reach the server, e.g. "http://localhost:3000". */
  url: string;
  /**
   * Stops accepting, lets in-flight requests finish, closes idle keep-alive sockets, then
   * resolves. Once `shutdownTimeout` has passed it logs the requests still unfinished and
   * destroys every connection left.
   */
  close(): Promise<void>;
}

/**
 * Serves an app (`serveNode(app)`), or any fetch handler, over node:http. Requests reach it as
 * lazily built Requests, and an app's replies are written without a Response or a stream, a
 * cache hit in the same turn, so the adapter costs little over bare node:http; bodies larger
 * than `bodyLimit` are refused with 413 (by the app itself, when it is one).
 */
export async function serveNode(served: Served, options: ServeOptions = {}): Promise<NodeServer> {
  const context = serverContext(served, options.bodyLimit, options, "");
  const timeouts = resolveTimeouts(options);
  const log = options.log ?? ((line: string) => console.warn(line));
  const server = createTimedServer(timeouts, (req, res) => new Exchange(context, req, res, false).start());
  // With a listener here node leaves `Expect: 100-continue` to us: the exchange sends
  // 100 Continue only once the handler starts reading the body.
  server.on(
    "checkContinue",
    (req: IncomingMessage, res: ServerResponse) => new Exchange(context, req, res, true).start(),
  );
  // Requests node:http refuses itself (unparsable, headers too large, too slow) get the
  // spec's {error} body instead of node's empty one.
  const limits = { maxHeaderSize, timeouts };
  const reply = (error: ClientErrorFields) => refusalBytes(refusalFor(error, limits), context.languages);
  server.on(
    "clientError",
    (error: ClientError, socket) => answerClientError(error, socket, isResponding(socket), reply),
  );
  await listen(server, options.port ?? 3000, options.host);
  // Past listen, a server error (say, accept() out of file descriptors) must not end the process.
  server.on("error", (error) => console.error(error));
  const port = (server.address() as AddressInfo).port;
  const url = serverUrl(options.host, port);
  context.origin = url;
  return { port, url, close: () => (context.closing ??= shutDown(server, context, timeouts.shutdownTimeout, log)) };
}

/** Options for mounting the app inside a node:http server you create yourself. */
export interface ListenerOptions {
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Origin for requests without a Host header (HTTP/1.0). Default "http://localhost". */
  origin?: string;
  /** Answers the adapter's own errors (413, 400, 500) in the client's language: pass `app.languages`. Default English. */
  languages?: Translator;
  /** Content-Language of those errors when `languages` is not given. Default "en". */
  language?: string;
}

/**
 * A `(req, res)` listener for an existing node:http server (or anything that takes one), with
 * the same lazy Request, direct writes and body limit as {@link serveNode}. Graceful shutdown
 * is then the owning server's job.
 * @example http.createServer(createNodeListener(app)).listen(3000)
 */
export function createNodeListener(
  served: Served,
  options: ListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const context = serverContext(served, options.bodyLimit, options, options.origin ?? "http://localhost");
  return (req, res) => new Exchange(context, req, res, false).start();
}

/** What every exchange of one server shares, for an app or a plain fetch handler. */
function serverContext(
  served: Served,
  bodyLimit: number | undefined,
  { languages, language }: Pick<ServeOptions, "languages" | "language">,
  origin: string,
): ServerContext {
  const plain = typeof served === "function";
  return {
    app: plain ? undefined : served,
    fetch: plain ? served : undefined,
    bodyLimit: bodyLimit ?? DEFAULT_BODY_LIMIT,
    languages: languages ?? englishOnly(language),
    origin,
    inFlight: new Set(),
    closing: undefined,
    onIdle: undefined,
  };
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

/**
 * A node:http server with the given (or default) timeouts. Node checks them every
 * `connectionsCheckingInterval`, 30 s by default: a quarter of the shortest one keeps a cut
 * close to its time.
 */
function createTimedServer(
  timeouts: ServerTimeouts,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout } = timeouts;
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((ms) => ms > 0), 4_000);
  const connectionsCheckingInterval = Math.max(10, Math.floor(shortest / 4));
  const server = createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval }, listener);
  server.keepAliveTimeout = keepAliveTimeout;
  return server;
}

/**
 * Stops accepting, lets in-flight requests finish, then closes every connection. Past the
 * deadline, logs the requests still unfinished and destroys whatever connection is left.
 */
async function shutDown(server: Server, context: ServerContext, deadline: number, log: ShutdownLog): Promise<void> {
  const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  server.closeIdleConnections();
  const drained = context.inFlight.size === 0
    ? Promise.resolve()
    : new Promise<void>((resolve) => (context.onIdle = resolve));
  // Connections that carried the last requests are idle once drained.
  const finished = drained.then(() => server.closeIdleConnections()).then(() => closed);
  if (await withinDeadline(finished, deadline)) return await finished;
  const cut = [...context.inFlight];
  log(cutMessage(deadline, cut.map((exchange) => exchange.describe())));
  for (const exchange of cut) exchange.cut();
  server.closeAllConnections();
  await closed;
}
