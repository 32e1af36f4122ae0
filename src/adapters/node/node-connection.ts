import type { Socket } from "node:net";

/** What a connection needs of the exchanges open on it (see node-exchange.ts). */
export interface OpenExchange {
  /** Whether the response's headers have gone out (or are queued to). */
  readonly headersSent: boolean;
  /** Its connection closed: the response is done with, sent or not. */
  socketClosed(): void;
}

/**
 * Whether part of a response may already be on its way on this socket: an exchange open on it
 * has sent its headers (node's own test before it answers a client error). One answered in the
 * turn its request arrived is written whole by then, so it does not count.
 */
export function isResponding(socket: object): boolean {
  const connection = (socket as { [CONNECTION]?: Connection })[CONNECTION];
  if (connection === undefined) return false;
  for (const exchange of connection.open) if (exchange.headersSent) return true;
  return false;
}

/** Where a socket keeps its {@link Connection}. */
const CONNECTION: unique symbol = Symbol("mongorest.connection");

/**
 * What the exchanges of one keep-alive connection share, made at its first request: the
 * address handed to the handler (one frozen object, not two new ones per request) and the
 * exchanges still open on it, which its close ends. One close listener per connection rather
 * than one added and removed per request, which cost more than the set.
 */
export class Connection {
  /** The handler's second argument, as Deno.serve shapes it. */
  readonly info: { readonly remoteAddr: { readonly hostname: string; readonly port?: number } };
  readonly open = new Set<OpenExchange>();

  private constructor(socket: Socket) {
    this.info = Object.freeze({
      remoteAddr: Object.freeze({ hostname: socket.remoteAddress ?? "", port: socket.remotePort }),
    });
    socket.once("close", Connection.#closer(this));
  }

  /** The socket's connection, made on its first request. */
  static of(socket: Socket & { [CONNECTION]?: Connection }): Connection {
    return (socket[CONNECTION] ??= new Connection(socket));
  }

  /** The close listener (made by a function, not as a named closure: see Exchange.#closer). */
  static #closer(connection: Connection): () => void {
    return () => {
      for (const exchange of connection.open) exchange.socketClosed();
    };
  }
}
