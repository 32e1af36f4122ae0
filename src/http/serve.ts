/** A listening server, whatever runtime runs it. */
export interface RunningServer {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Where and how to listen. */
export interface ListenOptions {
  port: number;
  host: string;
  bodyLimit?: number;
}

/** Deno.serve and the Node adapter both pass the connection's remote address as the second argument. */
type FetchHandler = (request: Request, info?: { remoteAddr: { hostname: string; port?: number } }) => Promise<Response>;

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

function serveDeno(deno: DenoRuntime, fetch: FetchHandler, options: ListenOptions): RunningServer {
  const server = deno.serve({ port: options.port, hostname: options.host, onListen: () => {} }, fetch);
  return { url: `http://${options.host}:${server.addr.port}`, close: () => server.shutdown() };
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
