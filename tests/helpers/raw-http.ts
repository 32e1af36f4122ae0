import { connect } from "node:net";

/** Sends raw bytes on a fresh connection and returns everything the server sends back until it closes. */
export function rawExchange(port: number, ...parts: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      for (const part of parts) socket.write(part);
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
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
