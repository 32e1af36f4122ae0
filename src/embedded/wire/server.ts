import { createServer, type Server, type Socket } from "node:net";
import type { EngineState } from "../commands/context.ts";
import { serveConnection } from "./connection.ts";

/** A listening wire-protocol server. */
export interface WireServer {
  readonly port: number;
  /** Stops accepting, destroys every open connection, and resolves once closed. */
  close(): Promise<void>;
}

/** Listens on `host:port` (port 0: a free one) and serves the engine's commands. */
export function listen(engine: EngineState, host: string, port: number): Promise<WireServer> {
  const sockets = new Set<Socket>();
  let nextId = 1;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serveConnection(socket, nextId++, engine);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : port;
      resolve({
        port: bound,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}
