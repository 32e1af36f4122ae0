import { spawn, type ChildProcess } from "node:child_process";

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
export async function startServer(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ServerProcess> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
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
