/**
 * The HTTP server's timeouts: defaults, checks, and reading them from the environment.
 * Runtime-free, so `main.ts` can check its configuration before anything starts.
 */

/** Every server timeout, in milliseconds. */
export interface ServerTimeouts {
  /** How long close() waits for in-flight requests before cutting them. */
  shutdownTimeout: number;
  /** Time a client has to send a request's headers (0: none). Node only. */
  headersTimeout: number;
  /** Time a client has to send a whole request, body included (0: none). Node only. */
  requestTimeout: number;
  /** How long an idle keep-alive connection stays open. Node only. */
  keepAliveTimeout: number;
}

/** The defaults: 10 s to shut down, 10 s for headers, 30 s for a request, 5 s keep-alive. */
export const DEFAULT_SERVER_TIMEOUTS: Readonly<ServerTimeouts> = Object.freeze({
  shutdownTimeout: 10_000,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
});

/**
 * Fills in the defaults and checks the result: each a finite number of milliseconds, 0 or
 * more, and headers no slower than the whole request. Throws a RangeError naming the option.
 */
export function resolveTimeouts(options: Partial<ServerTimeouts>): ServerTimeouts {
  const resolved = { ...DEFAULT_SERVER_TIMEOUTS };
  for (const name of Object.keys(resolved) as (keyof ServerTimeouts)[]) {
    const value = options[name] ?? resolved[name];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`${name} must be a number of milliseconds, 0 or more; got ${String(value)}`);
    }
    resolved[name] = value;
  }
  const { headersTimeout, requestTimeout } = resolved;
  if (requestTimeout > 0 && headersTimeout > requestTimeout) {
    throw new RangeError(`headersTimeout (${headersTimeout} ms) must not exceed requestTimeout (${requestTimeout} ms)`);
  }
  return resolved;
}

/** The environment variables {@link timeoutsFromEnv} reads, and the option each one sets. */
const TIMEOUT_VARIABLES = {
  SHUTDOWN_TIMEOUT_MS: "shutdownTimeout",
  HEADERS_TIMEOUT_MS: "headersTimeout",
  REQUEST_TIMEOUT_MS: "requestTimeout",
  KEEP_ALIVE_TIMEOUT_MS: "keepAliveTimeout",
} as const;

/**
 * The server timeouts set in the environment, defaults filled in. Throws a RangeError naming
 * the variable when a value is not a whole number of milliseconds, or the set is inconsistent.
 */
export function timeoutsFromEnv(env: Record<string, string | undefined>): ServerTimeouts {
  const options: Partial<ServerTimeouts> = {};
  for (const [variable, option] of Object.entries(TIMEOUT_VARIABLES)) {
    const raw = env[variable];
    if (raw === undefined || raw === "") continue;
    if (!/^\d{1,10}$/.test(raw)) {
      throw new RangeError(`${variable} must be a whole number of milliseconds, 0 or more; got "${raw}"`);
    }
    options[option] = Number(raw);
  }
  return resolveTimeouts(options);
}
