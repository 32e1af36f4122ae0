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
 * behind a load balancer use {@link MongoRateLimitStore} to share one limit.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, WindowCount>();
  #nextSweep = 0;

  hit(key: string, windowMs: number, now: number): WindowCount {
    if (now >= this.#nextSweep) this.#sweep(now, windowMs);
    const current = this.#windows.get(key);
    if (current !== undefined && now < current.resetAt && current.resetAt - windowMs <= now) {
      current.count++;
      return { count: current.count, resetAt: current.resetAt };
    }
    const { resetAt } = windowOf(windowMs, now);
    this.#windows.set(key, { count: 1, resetAt });
    return { count: 1, resetAt };
  }

  /** Drops ended windows, at most once per window, so idle clients do not pile up. */
  #sweep(now: number, windowMs: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    this.#nextSweep = now + windowMs;
  }
}
