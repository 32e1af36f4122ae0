/** `node:http` for the code blocks: `listen(3000)` listens on a free port, and the server is closed after the block. */
import { createServer as create, type RequestListener, type Server } from "node:http";
import { track } from "./registry.ts";

export * from "node:http";

export function createServer(listener?: RequestListener): Server {
  const server = create(listener);
  const listen = server.listen.bind(server) as (...a: unknown[]) => Server;
  (server as { listen: unknown }).listen = (_port: number, ...rest: unknown[]) => listen(0, "127.0.0.1", ...rest);
  track(() => new Promise((resolve) => server.close(resolve)));
  return server;
}
