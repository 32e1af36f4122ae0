/**
 * Runtime-free pieces of a server's graceful shutdown: the deadline, the line that says what
 * it cut, and the signal handling `main.ts` installs. Both runtime adapters use them.
 */

/** Where shutdown reports what it cut; `console.warn` unless a server is given another. */
export type ShutdownLog = (line: string) => void;

/**
 * Resolves `true` once `work` has settled, or `false` once `ms` milliseconds have passed
 * first. The timer is cleared as soon as the work settles, so it never holds the process.
 */
export function withinDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(settled, settled);
  });
}

/** The most requests a shutdown log names one by one; the rest are counted. */
const NAMED_REQUESTS = 10;

/** The log line for requests still unfinished when the shutdown deadline passed. */
export function cutMessage(ms: number, requests: readonly string[]): string {
  const named = requests.slice(0, NAMED_REQUESTS).join(", ");
  const more = requests.length > NAMED_REQUESTS ? ` and ${requests.length - NAMED_REQUESTS} more` : "";
  const what = requests.length === 0 ? "open connections" : `${requests.length} unfinished request(s): ${named}${more}`;
  return `Shutdown deadline of ${ms} ms passed: cutting ${what}`;
}

/** What {@link handleShutdownSignals} needs from the process; injected, so tests can drive it. */
export interface SignalHost {
  /** Registers a handler for a signal (`process.on`). */
  on(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  /** Ends the process at once (`process.exit`). */
  exit(code: number): void;
  /** Progress lines; `console.log` in main.ts. */
  log(line: string): void;
  /** Milliseconds of a monotonic clock; `performance.now` unless a test injects one. */
  now?(): number;
}

/**
 * A repeat of the signal within this window is the same signal, not a second one: a terminal's
 * Ctrl-C and systemd's stop reach the whole process group, and a wrapper such as `deno task`
 * forwards what its child already received, so one stop arrives twice within milliseconds.
 */
export const SAME_SIGNAL_WINDOW_MS = 1000;

/**
 * The first SIGINT or SIGTERM runs `shutdown` (close the HTTP side, which has its own
 * deadline, then the database) and exits 0; a second signal while it runs exits 1 at once.
 * Every acknowledged write is already on disk, so cutting short loses nothing acknowledged.
 */
export function handleShutdownSignals(host: SignalHost, shutdown: () => Promise<void>): void {
  const now = host.now ?? (() => performance.now());
  let firstAt: number | undefined;
  const onSignal = (signal: string): void => {
    if (firstAt !== undefined) {
      if (now() - firstAt < SAME_SIGNAL_WINDOW_MS) return;
      host.log(`${signal} again: exiting now without waiting for in-flight requests`);
      host.exit(1);
      return;
    }
    firstAt = now();
    host.log(`${signal}: finishing in-flight requests, then closing the database (a second signal exits at once)`);
    shutdown().then(
      () => {
        host.log("Closed.");
        host.exit(0);
      },
      (error: unknown) => {
        host.log(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        host.exit(1);
      },
    );
  };
  host.on("SIGINT", () => onSignal("SIGINT"));
  host.on("SIGTERM", () => onSignal("SIGTERM"));
}
