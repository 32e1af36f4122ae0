/** Pieces the HTTP benchmarks share: the bare server they compare against, and one varied measurement. */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { RawResponse } from "./capture.ts";
import { type Contender, cpuTimesOf, listenNode, type Running } from "./processes.ts";
import { measureVaried, type VariedOrder } from "./varied-load.ts";

/** Bare node:http answering a captured response, byte for byte: the floor every app is measured against. */
export function bareServer(captured: RawResponse): Promise<Running> {
  const body = Buffer.from(captured.body, "base64");
  return listenNode(createServer((_req, res) => {
    res.writeHead(captured.status, captured.headers);
    res.end(body);
  }));
}

/** Loads `server` with one varied order and records its rate and its CPU time per response. */
export async function measureVariedOnce(client: ChildProcess, server: Contender, order: VariedOrder): Promise<void> {
  const before = await cpuTimesOf(server);
  const result = await measureVaried(client, order);
  const after = await cpuTimesOf(server);
  if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} failed responses`);
  server.rates.push(result.responses / result.seconds);
  server.costs.push((after.cpu - before.cpu) / result.responses);
}
