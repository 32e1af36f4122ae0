/**
 * What a server knows about the connection a request came on, in the shape `Deno.serve` hands
 * its handler as the second argument; the Node adapter passes the same.
 */
export interface ConnectionInfo {
  readonly remoteAddr?: { readonly hostname: string; readonly port?: number };
}

/**
 * Which `X-Forwarded-For` entries to believe. `false` (the default): none, the socket address
 * is the client. `true`: all of them, the leftmost entry is the client. A number `n`: the `n`
 * proxies nearest to the server are trusted, so the client is the `n`-th address counted from
 * the socket (`1` with one load balancer in front).
 */
export type TrustProxy = boolean | number;

/** The address a client is known by when the server passed none (app.fetch called directly). */
export const UNKNOWN_CLIENT = "unknown";

/**
 * The client's address: the socket's, or with `trustProxy` the one the trusted proxies name in
 * `X-Forwarded-For`.
 * @example clientAddress(request, { remoteAddr: { hostname: "10.0.0.2" } }, 1) // with X-Forwarded-For: 203.0.113.9 → "203.0.113.9"
 */
export function clientAddress(request: Request, info: ConnectionInfo | undefined, trustProxy: TrustProxy): string {
  const socket = info?.remoteAddr?.hostname || UNKNOWN_CLIENT;
  if (trustProxy === false || trustProxy === 0) return socket;
  const header = request.headers.get("x-forwarded-for");
  if (header === null) return socket;
  // Nearest first: the socket, then each proxy's entry from right to left.
  const hops = [socket, ...header.split(",").map((entry) => entry.trim()).filter(Boolean).reverse()];
  const index = trustProxy === true ? hops.length - 1 : Math.min(trustProxy, hops.length - 1);
  return hops[index]!;
}

/** Checks the `trustProxy` option at start-up. */
export function checkTrustProxy(value: unknown): TrustProxy {
  if (value === undefined) return false;
  if (typeof value === "boolean" || (Number.isSafeInteger(value) && (value as number) >= 0)) return value as TrustProxy;
  throw new TypeError(
    `trustProxy must be true, false or the number of proxies in front of the app, got ${JSON.stringify(value)}`,
  );
}
