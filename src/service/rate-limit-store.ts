/** One fixed window's count for one client, after counting the current request. */
export interface WindowCount {
  /** Requests counted in this window, this one included. */
  count: number;
  /** When the window ends, in ms since the epoch. */
  resetAt: number;
}

/**
 * Where rate-limit counters live. `hit` counts one request for `key` in the fixed window of
 * `windowMs` that contains `now` and returns the new count. Windows start at multiples of
 * `windowMs` since the epoch, so every app instance sharing a store agrees on them.
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number, now: number): WindowCount | Promise<WindowCount>;
}

/** The fixed window containing `now`. */
export function windowOf(windowMs: number, now: number): { start: number; resetAt: number } {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetAt: start + windowMs };
}

/**
 * Counters in this process's memory: the default. Each app instance counts on its own, so
 * behind a load balancer use {@link MongoRateLimitStore} to share one limit. A hit in a window
 * that is already open allocates nothing: it returns the window's own counter, which the next
 * hit for the same key changes, so read it before then.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, WindowCount>();
  #nextSweep = 0;

  hit(key: string, windowMs: number, now: number): WindowCount {
    if (now >= this.#nextSweep) this.#sweep(now, windowMs);
    const current = this.#windows.get(key);
    if (current !== undefined && now < current.resetAt && current.resetAt - windowMs <= now) {
      current.count++;
      return current;
    }
    const { resetAt } = windowOf(windowMs, now);
    const opened = { count: 1, resetAt };
    this.#windows.set(key, opened);
    return opened;
  }

  /** Drops ended windows, at most once per window, so idle clients do not pile up. */
  #sweep(now: number, windowMs: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    this.#nextSweep = now + windowMs;
  }
}
