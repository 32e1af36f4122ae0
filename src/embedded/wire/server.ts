import { createServer, type Server, type Socket } from "node:net";
import type { EngineState } from "../commands/context.ts";
import { serveConnection } from "./connection.ts";
import type { ConnectionLimits } from "./limits.ts";

/** A listening wire-protocol server. */
export interface WireServer {
  readonly port: number;
  /**
   * Stops accepting, destroys every open connection, and resolves once closed and every
   * command already running has finished (so no write is still heading for the store).
   */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (port 0: a free one) and serves the engine's commands, within
 * `limits`: a connection past `maxConnections` is closed as soon as it is accepted, so idle
 * clients cannot fill the process's descriptor table.
 */
export function listen(engine: EngineState, host: string, port: number, limits: ConnectionLimits): Promise<WireServer> {
  const sockets = new Set<Socket>();
  const inflight = new Set<Promise<void>>();
  const track = (done: Promise<void>): void => {
    inflight.add(done);
    done.finally(() => inflight.delete(done));
  };
  let nextId = 1;
  const { connections } = engine.counters;
  const server: Server = createServer((socket) => {
    if (sockets.size >= limits.maxConnections) {
      connections.rejected++;
      socket.destroy();
      return;
    }
    sockets.add(socket);
    connections.current++;
    connections.totalCreated++;
    socket.on("close", () => {
      sockets.delete(socket);
      connections.current--;
    });
    serveConnection(socket, nextId++, engine, limits, track);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : port;
      resolve({
        port: bound,
        close: async () => {
          const closed = new Promise<void>((done) => server.close(() => done()));
          for (const socket of sockets) socket.destroy();
          await closed;
          await Promise.allSettled([...inflight]);
        },
      });
    });
  });
}
