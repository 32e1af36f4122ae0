/**
 * The event loop's longest stall while `work` runs: a 1 ms repeating timer notes the gap
 * between its ticks, which is how long any other request (or timer) had to wait. It measures
 * the server's blocking, not how long one request took, so a busy machine that merely delays
 * the work does not inflate it much, while a synchronous stretch of seconds always shows.
 */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let longest = 0;
  const note = () => {
    const now = performance.now();
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
