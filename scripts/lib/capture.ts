/**
 * Captures a response exactly as a server sent it, so another server can be made to answer
 * the same bytes (and be checked to do so).
 */
import { get } from "node:http";

/** Status, headers in the order sent and the body (base64, so it crosses IPC byte-exact). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers node:http adds to every response by itself: not part of what a handler answers. */
const PER_CONNECTION = new Set(["date", "connection", "keep-alive"]);

/** One GET, with the response's raw headers (minus the per-connection ones) and body bytes. */
export function fetchRaw(url: string, origin?: string): Promise<RawResponse> {
  const headers: Record<string, string> = origin === undefined
    ? { accept: "application/json" }
    : { accept: "application/json", origin };
  return new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const headers: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          if (!PER_CONNECTION.has(name.toLowerCase())) headers[name] = res.rawHeaders[i + 1]!;
        }
        resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks).toString("base64") });
      });
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** What differs between two responses (status, header list and values, body), or "" if nothing. */
export function sameResponse(a: RawResponse, b: RawResponse): string {
  if (a.status !== b.status) return `status ${a.status} vs ${b.status}`;
  const headersA = JSON.stringify(comparable(a.headers));
  const headersB = JSON.stringify(comparable(b.headers));
  if (headersA !== headersB) return `headers ${headersA} vs ${headersB}`;
  return a.body === b.body ? "" : "body bytes";
}

/**
 * Cache-Status says how this very answer was made (a cache hit, a miss, no cache at all), which
 * is what the servers being compared differ in, not what they answer: it is left out.
 */
function comparable(headers: Record<string, string>): [string, string][] {
  return Object.entries(headers).filter(([name]) => name.toLowerCase() !== "cache-status").map(perRequest);
}

/**
 * A request id and a rate limit's remaining count and reset time are made anew for every
 * request: only their presence is compared. Links name the
 * server they were fetched from, whose port differs between processes: it is left out.
 */
function perRequest([name, value]: [string, string]): [string, string] {
  const lower = name.toLowerCase();
  if (lower === "x-request-id" || lower === "ratelimit-remaining" || lower === "ratelimit-reset") {
    return [name, "<per request>"];
  }
  return lower === "link" ? [name, value.replace(/<http:\/\/[^/>]+/g, "<http://<server>")] : [name, value];
}
