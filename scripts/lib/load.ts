/**
 * The load generator shared by the HTTP benchmarks: raw keep-alive sockets, one request in
 * flight on each, as wrk and autocannon do by default. It runs in a process of its own
 * (see {@link startLoadClient}) so that it never competes with a server for one event loop.
 */
import { type ChildProcess, fork } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

/** One measurement the client is asked for. */
export interface LoadOrder {
  /** Origin of the server, e.g. `http://127.0.0.1:1234`. */
  url: string;
  /** Request target, e.g. `/` or `/api/v1/users?page=2`. */
  path: string;
  seconds: number;
  connections: number;
  /** An Origin header to send (a browser app's cross-origin request), if any. */
  origin?: string;
}

/** What one measurement counted. */
export interface LoadResult {
  /** Complete 200 responses. */
  responses: number;
  /** Other statuses and socket errors. */
  errors: number;
  /** Wall time actually measured. */
  seconds: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const LENGTH_FIELD = /content-length: *(\d+)/i;
const CHUNKED_END = Buffer.from("\r\n0\r\n\r\n");

/**
 * Bytes the response at the start of `pending` takes (head ends at `end`), or -1 if not all
 * there yet. Content-Length framing, or chunked framing for streamed responses (found by its
 * terminating empty chunk: good enough for the JSON bodies measured here).
 */
function responseLength(head: string, pending: Buffer, end: number): number {
  const length = LENGTH_FIELD.exec(head)?.[1];
  if (length !== undefined) return end + 4 + Number(length);
  const last = pending.indexOf(CHUNKED_END, end + 2);
  return last === -1 ? -1 : last + CHUNKED_END.length;
}

/**
 * Keeps one request in flight on each of `connections` keep-alive sockets for `seconds` and
 * counts complete 200 responses. Parses only what framing needs, so it stays well ahead of
 * the server it loads.
 */
export function load({ url, path, seconds, connections, origin }: LoadOrder): Promise<LoadResult> {
  const { hostname, port } = new URL(url);
  const originLine = origin === undefined ? "" : `Origin: ${origin}\r\n`;
  const request = Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: application/json\r\n${originLine}\r\n`,
  );
  let responses = 0;
  let errors = 0;
  let running = true;
  const sockets = Array.from({ length: connections }, () => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let pending: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf(HEADER_END);
        if (end === -1) return;
        const head = pending.toString("latin1", 0, end);
        const total = responseLength(head, pending, end);
        if (total === -1 || pending.length < total) return;
        if (head.startsWith("HTTP/1.1 200")) responses++;
        else errors++;
        pending = pending.subarray(total);
        if (running) socket.write(request);
      }
    });
    socket.on("error", () => errors++);
    return socket;
  });
  const started = performance.now();
  return new Promise((resolve) => {
    setTimeout(() => {
      running = false;
      const elapsed = (performance.now() - started) / 1000;
      for (const socket of sockets) socket.destroy();
      resolve({ responses, errors, seconds: elapsed });
    }, seconds * 1000);
  });
}

/** The client process's side: answers each order with its measurement. */
export function runLoadClient(): void {
  process.on("message", (order: LoadOrder) => {
    void load(order).then((result) => process.send!(result));
  });
}

/** Starts the load generator in a process of its own (scripts/lib/load-client.ts). */
export function startLoadClient(): ChildProcess {
  return fork(fileURLToPath(new URL("./load-client.ts", import.meta.url)), [], { stdio: "inherit" });
}

/** Asks a client process (this file's or varied-load.ts's) for one measurement. */
export function measure<Order extends object = LoadOrder>(client: ChildProcess, order: Order): Promise<LoadResult> {
  return new Promise((resolve) => {
    client.once("message", (result) => resolve(result as LoadResult));
    client.send(order);
  });
}
