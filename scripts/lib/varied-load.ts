/**
 * A load generator for varied traffic: like ./load.ts (raw keep-alive sockets, one request in
 * flight on each, in a process of its own), but every GET asks for a page of a list that this
 * client has not asked that server for before (random page, page size and sort), and a share
 * of the requests can be writes (POST with a fresh body each).
 */
import { type ChildProcess, fork } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import type { LoadResult } from "./load.ts";
export { measure as measureVaried } from "./load.ts";
import { mulberry32 } from "../../tests/helpers/random.ts";

/** What varied GETs look like: a random page of a random size in a random sort, never twice. */
export interface ListMix {
  /** The list, e.g. `/api/v1/users`. */
  list: string;
  /** Records in it, to pick pages that exist. */
  records: number;
  sorts: string[];
  minPerPage: number;
  maxPerPage: number;
}

/** One measurement of varied traffic. */
export interface VariedOrder {
  url: string;
  /** GETs of distinct pages; or, without it, `path` every time. */
  mix?: ListMix;
  path?: string;
  /** Every `writeEvery`-th request is a write instead (0: none). */
  writeEvery: number;
  /** Where writes go, e.g. `/api/v1/users`; each body is a new user. */
  writePath: string;
  seconds: number;
  connections: number;
  /** Header lines every GET carries (an Authorization, say), each `Name: value`. */
  headers?: readonly string[];
}

const HEADER_END = Buffer.from("\r\n\r\n");
const LENGTH_FIELD = /content-length: *(\d+)/i;
let written = 0;

/** A user no other write of this process has made (the email is unique). */
function writeBody(): string {
  written++;
  return JSON.stringify({
    email: `load${process.pid}x${written}@example.com`,
    name: `Load${written}`,
    surname: "Writer",
    password: "secret",
  });
}

const random = mulberry32(Number(process.env.BENCH_SEED ?? 8));
/** Pages already requested, per server: a page is never asked for twice, so no response cache can answer it. */
const asked = new Map<string, Set<string>>();

function distinctPage(url: string, mix: ListMix): string {
  const seen = asked.get(url) ?? asked.set(url, new Set()).get(url)!;
  for (;;) {
    const perPage = mix.minPerPage + Math.floor(random() * (mix.maxPerPage - mix.minPerPage + 1));
    const page = 1 + Math.floor(random() * Math.ceil(mix.records / perPage));
    const sort = mix.sorts[Math.floor(random() * mix.sorts.length)];
    const path = `${mix.list}?page=${page}&per_page=${perPage}${sort === "id" ? "" : `&sort=${sort}`}`;
    if (!seen.has(path)) return seen.add(path), path;
  }
}

function request(host: string, order: VariedOrder, n: number): Buffer {
  if (order.writeEvery > 0 && n % order.writeEvery === order.writeEvery - 1) {
    const body = writeBody();
    return Buffer.from(
      `POST ${order.writePath} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${
        Buffer.byteLength(body)
      }\r\n\r\n${body}`,
    );
  }
  const path = order.mix ? distinctPage(order.url, order.mix) : order.path!;
  const extra = (order.headers ?? []).map((line) => `${line}\r\n`).join("");
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n${extra}\r\n`);
}

/** Loads the server for `seconds` and counts complete 2xx responses (Content-Length framing). */
export function loadVaried(order: VariedOrder): Promise<LoadResult> {
  const { hostname, port } = new URL(order.url);
  const host = `${hostname}:${port}`;
  let responses = 0;
  let errors = 0;
  let running = true;
  const sockets = Array.from({ length: order.connections }, (_, c) => {
    let n = c;
    const socket = connect(Number(port), hostname, () => socket.write(request(host, order, n++)));
    let pending: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf(HEADER_END);
        if (end === -1) return;
        const head = pending.toString("latin1", 0, end);
        const length = LENGTH_FIELD.exec(head)?.[1];
        if (length === undefined) throw new Error(`no content-length in ${head}`);
        const total = end + 4 + Number(length);
        if (pending.length < total) return;
        if (/^HTTP\/1\.1 2\d\d/.test(head)) responses++;
        else errors++;
        pending = pending.subarray(total);
        if (running) socket.write(request(host, order, n++));
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
    }, order.seconds * 1000);
  });
}

/** The client process's side: answers each order with its measurement. */
export function runVariedClient(): void {
  process.on("message", (order: VariedOrder) => {
    void loadVaried(order).then((result) => process.send!(result));
  });
}

/** Starts the varied load generator in a process of its own (./varied-load-client.ts). */
export function startVariedClient(): ChildProcess {
  return fork(fileURLToPath(new URL("./varied-load-client.ts", import.meta.url)), [], { stdio: "inherit" });
}
