/** A fetch-style handler: the framework's `app.fetch`. */
type FetchHandler = (request: Request) => Promise<Response>;

interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}

/** The part of the `Deno` global this adapter uses; typed here so Node's type check needs no Deno types. */
export interface DenoRuntime {
  serve(options: { port: number; hostname: string; onListen?: () => void }, handler: FetchHandler): DenoServer;
}

/** The `Deno` global, or undefined on any other runtime. */
export function denoRuntime(): DenoRuntime | undefined {
  return (globalThis as { Deno?: DenoRuntime }).Deno;
}

/** Serves a fetch handler with `Deno.serve`; `close()` finishes in-flight requests first. */
export function serveDeno(
  deno: DenoRuntime,
  fetch: FetchHandler,
  options: { port: number; host: string },
): { url: string; close(): Promise<void> } {
  const server = deno.serve({ port: options.port, hostname: options.host, onListen: () => {} }, fetch);
  return { url: `http://${options.host}:${server.addr.port}`, close: () => server.shutdown() };
}
