/**
 * The URL a server listening on `host` and `port` is reached at, as both adapters report it:
 * a wildcard address (none, `0.0.0.0`, `::`) is reached through localhost, and an IPv6
 * address is bracketed, so the URL parses and a client can fetch it.
 * @example serverUrl("::1", 3000)     // "http://[::1]:3000"
 * @example serverUrl("0.0.0.0", 3000) // "http://localhost:3000"
 */
export function serverUrl(host: string | undefined, port: number): string {
  if (host === undefined || host === "" || host === "0.0.0.0" || host === "::") return `http://localhost:${port}`;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
