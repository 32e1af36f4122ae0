/** `mongorest/node` for the code blocks: port 3000 becomes a free port, and servers are closed after the block. */
import { type NodeServer, serveNode as serve } from "../../../src/adapters/node/node-adapter.ts";
import { track } from "./registry.ts";

export * from "../../../src/adapters/node/node-adapter.ts";

export async function serveNode(...[fetch, options]: Parameters<typeof serve>): Promise<NodeServer> {
  const server = await serve(fetch, { ...options, port: 0 });
  track(() => server.close());
  return server;
}
