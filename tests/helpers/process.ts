import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

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
  const deadline = Date.now() + 120_000;
  while (!ready.test(output)) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(" ")} exited early:\n${output}`);
    if (Date.now() > deadline) {
      server.signal("SIGKILL");
      throw new Error(`${command} ${args.join(" ")} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}
