import { connect } from "node:net";

/**
 * Sends raw bytes on a fresh connection and returns everything the server sends back until it
 * closes. A reset after the server closed (it answered before reading all that was sent) ends
 * the exchange like a close: what arrived before it is the answer.
 */
export function rawExchange(port: number, ...parts: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      for (const part of parts) socket.write(part);
    });
    const chunks: Buffer[] = [];
    const received = () => Buffer.concat(chunks).toString("latin1");
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: Error & { code?: string }) => {
      if ((error.code === "ECONNRESET" || error.code === "EPIPE") && chunks.length > 0) resolve(received());
      else reject(error);
    });
    socket.on("close", () => resolve(received()));
  });
}

/** Splits a raw HTTP/1.1 response into status, lower-cased headers and body. */
export function parseRaw(raw: string): { status: number; headers: Map<string, string>; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = raw.slice(0, end).split("\r\n");
  const headers = new Map(lines.map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
  }));
  return { status: Number(statusLine!.split(" ")[1]), headers, body: raw.slice(end + 4) };
}
