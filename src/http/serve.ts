import { cutMessage, withinDeadline, type ShutdownLog } from "./shutdown.ts";
import { resolveTimeouts } from "./timeouts.ts";

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

type FetchHandler = (request: Request) => Promise<Response>;

interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}

interface DenoRuntime {
  serve(options: { port: number; hostname: string; onListen?: () => void }, handler: FetchHandler): DenoServer;
}

function denoRuntime(): DenoRuntime | undefined {
  return (globalThis as { Deno?: DenoRuntime }).Deno;
}

const SHUTTING_DOWN = JSON.stringify({ error: "The server is shutting down; retry the request shortly." });

/** The answer for a request the shutdown deadline cut short (Deno cannot drop its connection). */
function cutResponse(): Response {
  return new Response(SHUTTING_DOWN, {
    status: 503,
    headers: { "content-type": "application/json; charset=utf-8", "retry-after": "1", connection: "close" },
  });
}

/**
 * Deno.serve's shutdown() waits for every handler without end, and its abort signal cannot
 * follow a shutdown. So handlers run through a wrapper that knows which requests are
 * unfinished; past the deadline each of them is answered 503 at once, which lets the
 * connections close, and whatever the handler does later goes nowhere.
 */
function serveDeno(deno: DenoRuntime, fetch: FetchHandler, options: ListenOptions): RunningServer {
  const deadline = resolveTimeouts(options).shutdownTimeout;
  const log = options.log ?? ((line: string) => console.warn(line));
  const inFlight = new Map<Request, () => void>();
  const handler: FetchHandler = (request) =>
    new Promise<Response>((resolve, reject) => {
      inFlight.set(request, () => resolve(cutResponse()));
      let answer: Promise<Response>;
      try {
        answer = fetch(request);
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(resolve, reject).finally(() => inFlight.delete(request));
    });
  const server = deno.serve({ port: options.port, hostname: options.host, onListen: () => {} }, handler);
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const finished = server.shutdown();
    if (await withinDeadline(finished, deadline)) return await finished;
    log(cutMessage(deadline, [...inFlight.keys()].map(describe)));
    for (const cut of inFlight.values()) cut();
    finished.catch(() => {});
  };
  return { url: `http://${options.host}:${server.addr.port}`, close: () => (closing ??= close()) };
}

/** Method and request target, as the Node adapter names a request it cut. */
function describe(request: Request): string {
  const url = new URL(request.url);
  return `${request.method} ${url.pathname}${url.search}`;
}

/**
 * Serves a fetch handler on the runtime at hand: `Deno.serve` on Deno, the Node adapter on
 * Node. The adapter is imported only on Node, so Deno never loads `node:http`.
 */
export async function listen(fetch: FetchHandler, options: ListenOptions): Promise<RunningServer> {
  const deno = denoRuntime();
  if (deno) return serveDeno(deno, fetch, options);
  const { serveNode } = await import("./node-adapter.ts");
  return await serveNode(fetch, options);
}

