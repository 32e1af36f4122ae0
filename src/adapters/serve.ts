// First, on Node: keeps node's tick records on V8's fast path (see node/tick-shape.ts).
import "./node/tick-shape.ts";
import { denoRuntime, serveDeno } from "./deno.ts";
import { StartupError } from "../errors.ts";
import type { ReplyHandler } from "../http/reply.ts";
import type { ShutdownLog } from "../http/shutdown.ts";
import type { Translator } from "../i18n/message.ts";

/** A listening server, whatever runtime runs it. */
export interface RunningServer {
  url: string;
  /**
   * Stops accepting, lets in-flight requests finish, then resolves; past `shutdownTimeout`
   * it logs the requests still unfinished and cuts them.
   */
  close(): Promise<void>;
}

/** Where and how to listen. */
export interface ListenOptions {
  port: number;
  host: string;
  bodyLimit?: number;
  /** Answers the errors the adapter raises itself (413, 400, 500; Deno's shutdown 503) in the client's language: pass `app.languages`. */
  languages?: Translator;
  /** Content-Language of those errors when `languages` is not given (default "en"). */
  language?: string;
  /** How long close() waits for in-flight requests, in ms. Default 10 s. */
  shutdownTimeout?: number;
  /** Node only (Deno.serve has no such settings): see the Node adapter's ServeOptions. */
  headersTimeout?: number;
  /** Node only: see the Node adapter's ServeOptions. */
  requestTimeout?: number;
  /** Node only: see the Node adapter's ServeOptions. */
  keepAliveTimeout?: number;
  /** Where close() reports what its deadline cut. Default `console.warn`. */
  log?: ShutdownLog;
}

/** A fetch-style handler: the framework's `app.fetch`. Deno.serve and the Node adapter both pass the client's address as the second argument. */
export type FetchHandler = (request: Request, info?: ConnectionInfo) => Promise<Response>;

/** The connection a request came on, as Deno.serve describes it. */
export interface ConnectionInfo {
  remoteAddr: { hostname: string; port?: number };
}

/**
 * What {@link listen} serves: an `App` (Deno.serve gets its `fetch`; the Node adapter uses
 * its `answer` and `refuse`), or any fetch handler.
 */
export type Servable = FetchHandler | (ReplyHandler<ConnectionInfo> & { fetch: FetchHandler });

/**
 * Serves an app (or a fetch handler) on the runtime at hand: `Deno.serve` on Deno, the Node
 * adapter on Node. The adapter is imported only on Node, so Deno never loads `node:http`.
 */
export async function listen(served: Servable, options: ListenOptions): Promise<RunningServer> {
  try {
    const deno = denoRuntime();
    if (deno) return serveDeno(deno, typeof served === "function" ? served : served.fetch, options);
    const { serveNode } = await import("./node/node-adapter.ts");
    return await serveNode(served, options);
  } catch (error) {
    const reason = listenFailure(error);
    if (reason === undefined) throw error;
    throw new StartupError(`cannot listen on ${options.host}:${options.port}: ${reason}`, { cause: error });
  }
}

/** Why the system refused the address (Node's error codes, Deno's error names), if it did. */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: "the port is in use; stop what holds it or set PORT",
  AddrInUse: "the port is in use; stop what holds it or set PORT",
  EACCES: "permission denied; ports below 1024 need privileges, so set PORT",
  PermissionDenied: "permission denied; ports below 1024 need privileges, so set PORT",
  EADDRNOTAVAIL: "no interface of this machine has that address; set HOST",
  AddrNotAvailable: "no interface of this machine has that address; set HOST",
  ENOTFOUND: "the host name does not resolve; set HOST",
};

function listenFailure(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return LISTEN_FAILURES[typeof code === "string" ? code : error.name];
}
