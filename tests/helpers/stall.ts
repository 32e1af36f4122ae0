import process from "node:process";

/** CPU time this process has used, in milliseconds (user and system). */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The event loop's longest stall while `work` runs: a 1 ms repeating timer notes the CPU time
 * spent between its ticks, which is how long any other request (or timer) had to wait for
 * synchronous work. CPU time, not wall-clock time, so a loaded machine that merely deschedules
 * the process cannot inflate it, while a synchronous stretch of seconds always shows.
 */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = cpuMs();
  let longest = 0;
  const note = () => {
    const now = cpuMs();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const timer = setInterval(note, 1);
  try {
    const result = await work();
    note();
    return { result, stallMs: longest };
  } finally {
    clearInterval(timer);
  }
}

/**
 * A stall every test input stays far below. The pathological inputs are sized so that the
 * quadratic code they guard against blocks for several seconds; linear code takes milliseconds.
 */
export const STALL_BOUND_MS = 1_000;
