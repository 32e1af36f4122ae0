/**
 * Child-process plumbing for the HTTP benchmarks. Each server under test runs in a process of
 * its own, as it would in production (sharing one V8 heap and its inline caches would tax
 * whichever runs second): the benchmark script forks itself with `--server NAME`, sends the
 * server its setup, and can then ask it for its CPU time around each measurement.
 */
import { type ChildProcess, fork } from "node:child_process";
import type { Server } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";

/** A server under test, listening on loopback. */
export interface Running {
  url: string;
  close(): Promise<void>;
}

/** A server process and what was measured of it, one entry per round. */
export interface Contender {
  name: string;
  process: ChildProcess;
  url: string;
  /** Responses per second. */
  rates: number[];
  /** Server CPU time per response, in µs. */
  costs: number[];
}

/** What the orchestrator sends a server process: first its setup, then CPU-time queries. */
type ServerOrder = { setup: unknown } | "cpu";
/** What a server process answers. */
type ServerReport = { url: string } | CpuTimes;

/** A server process's CPU time so far, in µs: all its threads, and its main thread alone where the OS tells. */
export interface CpuTimes {
  cpu: number;
  /** The main thread's share (Linux, from /proc; undefined elsewhere). */
  mainThread?: number;
}

/**
 * The main thread's user + system time in µs, from /proc/self/task/<pid>/stat (Linux; fields 14
 * and 15, in clock ticks of 10 ms), or undefined where that file cannot be read.
 */
function mainThreadCpu(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** Listens on a free loopback port. */
export async function listenNode(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The NAME of `--server NAME` when this process was started as a server, else undefined. */
export function serverRole(): string | undefined {
  const at = process.argv.indexOf("--server");
  return at === -1 ? undefined : process.argv[at + 1];
}

/**
 * The server process's side: waits for its setup, starts the server, reports its URL, then
 * answers each CPU query with the process's user + system time so far (µs).
 */
export function runServerProcess<S>(start: (setup: S) => Promise<Running>): void {
  process.once("message", (order: ServerOrder) => {
    void start((order as { setup: S }).setup).then((server) => {
      process.on("message", () => {
        const { user, system } = process.cpuUsage();
        process.send!({ cpu: user + system, mainThread: mainThreadCpu() } satisfies ServerReport);
      });
      process.send!({ url: server.url } satisfies ServerReport);
    });
  });
}

/** Sends one order to a child process and waits for its answer; rejects if the child exits first. */
export function ask<T>(child: ChildProcess, order?: ServerOrder): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null): void => reject(new Error(`child process exited (${code}) before answering`));
    child.once("exit", exited);
    child.once("message", (answer) => {
      child.off("exit", exited);
      resolve(answer as T);
    });
    if (order !== undefined) child.send(order);
  });
}

/** A program node runs under (valgrind, say): its executable, and its arguments up to and including node's own. */
export interface Wrapper {
  execPath: string;
  args: string[];
}

/**
 * Forks `script --server NAME`, hands it `setup`, and waits until it listens. `wrapper` runs
 * node under another program (bench-paginate's `--instructions` runs it under valgrind).
 */
export async function startServerProcess(
  script: string,
  name: string,
  setup: unknown = null,
  wrapper?: Wrapper,
): Promise<Contender> {
  const options = wrapper === undefined
    ? {}
    : { execPath: wrapper.execPath, execArgv: [...wrapper.args, ...process.execArgv] };
  const child = fork(script, ["--server", name], { stdio: "inherit", ...options });
  const { url } = await ask<{ url: string }>(child, { setup });
  return { name, process: child, url, rates: [], costs: [] };
}

/** The CPU time a server process has used so far, in µs. */
export async function cpuOf(server: Contender): Promise<number> {
  return (await cpuTimesOf(server)).cpu;
}

/** The CPU time a server process has used so far, in µs, in all and in its main thread. */
export function cpuTimesOf(server: Contender): Promise<CpuTimes> {
  return ask<CpuTimes>(server.process, "cpu");
}
