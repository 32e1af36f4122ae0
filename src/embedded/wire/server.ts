import { createServer, type Server, type Socket } from "node:net";
import type { EngineState } from "../commands/context.ts";
import { serveConnection } from "./connection.ts";
import type { ConnectionLimits } from "./limits.ts";
import { type ScramKeys, ScramSession } from "./scram.ts";

/** A listening wire-protocol server. */
export interface WireServer {
  /** The TCP port; 0 on a Unix socket. */
  readonly port: number;
  /**
   * Stops accepting, destroys every open connection, and resolves once closed and every
   * command already running has finished (so no write is still heading for the store).
   */
  close(): Promise<void>;
}

/** Where to listen: a TCP interface and port (0: a free one), or a Unix socket's path. */
export type ListenAddress = { host: string; port: number } | { path: string };

/**
 * Listens on `address` and serves the engine's commands (after SCRAM-SHA-256 with
 * `credential`, when one is given), within
 * `limits`: a connection past `maxConnections` is closed as soon as it is accepted, so idle
 * clients cannot fill the process's descriptor table.
 */
export function listen(
  engine: EngineState,
  address: ListenAddress,
  limits: ConnectionLimits,
  credential?: ScramKeys,
): Promise<WireServer> {
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
    // With a credential every connection must authenticate first (a tools port).
    serveConnection(socket, nextId++, engine, limits, track, credential && new ScramSession(credential));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      const bound = server.address();
      resolve({
        port: typeof bound === "object" && bound ? bound.port : 0,
        close: async () => {
          const closed = new Promise<void>((done) => server.close(() => done()));
          for (const socket of sockets) socket.destroy();
          await closed;
          await Promise.allSettled([...inflight]);
        },
      });
    };
    if ("path" in address) server.listen(address.path, listening);
    else server.listen(address.port, address.host, listening);
  });
}
