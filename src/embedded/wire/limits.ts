/** What the engine's port allows each client, so no client can exhaust memory or descriptors. */
export interface ConnectionLimits {
  /** Open connections at most; one more is closed as soon as it is accepted. */
  maxConnections: number;
  /** A connection with no traffic (and no command running) for this long is closed, in ms. */
  idleTimeoutMS: number;
  /** A message must arrive whole within this long of its first bytes, in ms. */
  frameTimeoutMS: number;
  /**
   * Unsent reply bytes above which the connection is not read (a client that sends but does
   * not read gets no further answers until it catches up).
   */
  maxUnsentReplyBytes: number;
}

/**
 * 256 connections (the driver's pool of 100 plus monitors leaves room for a few clients),
 * 10 minutes idle, 30 s per message, 1 MiB of unsent replies.
 */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  maxConnections: 256,
  idleTimeoutMS: 600_000,
  frameTimeoutMS: 30_000,
  maxUnsentReplyBytes: 1024 * 1024,
});

/** The limits with defaults filled in; throws a RangeError naming an option that is not a positive number. */
export function resolveConnectionLimits(options: Partial<ConnectionLimits>): ConnectionLimits {
  const limits = { ...DEFAULT_CONNECTION_LIMITS };
  for (const name of Object.keys(limits) as (keyof ConnectionLimits)[]) {
    const value = options[name] ?? limits[name];
    if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
      throw new RangeError(`The engine option ${name} must be a positive number; got ${String(value)}`);
    }
    limits[name] = value;
  }
  return limits;
}
