/**
 * Alternating measurement rounds: servers are loaded in turn (A, B, A, B...) so that drift on
 * a shared machine hits all alike, and each measurement records throughput and the server
 * process's CPU time per response, which stolen time distorts less.
 */
import type { ChildProcess } from "node:child_process";
import { measure } from "./load.ts";
import { type Contender, cpuOf } from "./processes.ts";

/** How long and how hard to load each server. */
export interface RoundSetup {
  /** Request target every connection asks for. */
  path: string;
  seconds: number;
  rounds: number;
  connections: number;
  /** An Origin header every request carries, if any. */
  origin?: string;
  /** Width the server name is padded to in the per-round lines. */
  nameWidth?: number;
}

/** One measurement of one server; the per-round line goes to stdout. */
async function measureOne(client: ChildProcess, server: Contender, round: number, setup: RoundSetup): Promise<void> {
  const before = await cpuOf(server);
  const result = await measure(client, {
    url: server.url,
    path: setup.path,
    seconds: setup.seconds,
    connections: setup.connections,
    origin: setup.origin,
  });
  const after = await cpuOf(server);
  if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} failed responses`);
  const rate = result.responses / result.seconds;
  const cost = (after - before) / result.responses;
  server.rates.push(rate);
  server.costs.push(cost);
  const name = server.name.padEnd(setup.nameWidth ?? 28);
  console.log(
    `round ${round}  ${name} ${Math.round(rate).toLocaleString("en-US").padStart(7)} req/s  ${
      cost.toFixed(1)
    } µs CPU/req`,
  );
}

/** A 1 s JIT warm-up per server, then `rounds` rounds over every server in the given order. */
export async function runRounds(client: ChildProcess, servers: readonly Contender[], setup: RoundSetup): Promise<void> {
  for (const server of servers) {
    await measure(client, {
      url: server.url,
      path: setup.path,
      seconds: 1,
      connections: setup.connections,
      origin: setup.origin,
    });
  }
  for (let round = 1; round <= setup.rounds; round++) {
    for (const server of servers) await measureOne(client, server, round, setup);
  }
}
