import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";

/** A started server process and what it printed. */
export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  /** Sends a signal to the whole process group: npm does not forward signals to its script. */
  signal(name: NodeJS.Signals): void;
  /** Resolves when the process has exited and every process holding its output has too. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns a server command in its own process group and waits until it prints `ready`. */
export async function startServer(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ServerProcess> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal }))
  );
  const server: ServerProcess = {
    child,
    output: () => output,
    signal: (name) => process.kill(-child.pid!, name),
    closed,
  };
  // Event-driven, no polling: ready once the output says so, failed if the process ends first.
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (ready.test(output)) resolve();
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("close", () => reject(new Error(`${command} ${args.join(" ")} exited before it was ready:\n${output}`)));
  });
  return server;
}

/**
 * The processes of group `pgid` still running, as `pid (name)`. A zombie (exited, not yet reaped
 * by its new parent) counts as gone. Call it once `closed` has resolved: every process of a
 * server's group inherits its output, so by then each has exited, and one look at /proc
 * decides, with no polling and no deadline. Without /proc (not Linux), a signal-0 probe says
 * whether anything of the group is left at all, zombies included.
 */
export async function liveGroupMembers(pgid: number): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return groupProbe(pgid);
  }
  const live: string[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended while we looked
    }
    // "pid (name) state ppid pgrp ...": the name may hold spaces and parentheses.
    const close = stat.lastIndexOf(")");
    const [state, , pgrp] = stat.slice(close + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") {
      live.push(`${entry} ${stat.slice(stat.indexOf("("), close + 1)}`);
    }
  }
  return live;
}

function groupProbe(pgid: number): string[] {
  try {
    process.kill(-pgid, 0);
    return [`group ${pgid}`];
  } catch {
    return [];
  }
}
