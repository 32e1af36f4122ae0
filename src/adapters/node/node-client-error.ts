import type { Duplex } from "node:stream";
import type { Message, Translator } from "../../i18n/message.ts";
import { msg } from "../../i18n/message.ts";
import { jsonHeaders } from "../../http/responses.ts";
import type { ServerTimeouts } from "../../http/timeouts.ts";

/** What node:http reports with a `clientError`: its parser's code and, for a parse error, the reason. */
export type ClientError = Error & ClientErrorFields;

/** The fields of a {@link ClientError} its answer depends on. */
export interface ClientErrorFields {
  code?: string;
  reason?: string;
}

/** The status and message for a request node:http refused before any handler saw it. */
export interface ClientRefusal {
  status: number;
  message: Message;
}

/** What the refusal's text needs to say what was allowed. */
export interface ClientErrorLimits {
  /** Largest header section node:http accepts, in bytes. */
  maxHeaderSize: number;
  timeouts: Pick<ServerTimeouts, "headersTimeout" | "requestTimeout">;
}

/**
 * Maps node:http's client errors to the statuses node itself answers them with (431 for a
 * header section over the limit, 413 for chunk extensions over theirs, 408 for a timeout, 400
 * for anything the parser rejects), with a message that says what was wrong.
 * @example refusalFor({ code: "HPE_HEADER_OVERFLOW" }, limits).status // 431
 */
export function refusalFor(error: ClientErrorFields, limits: ClientErrorLimits): ClientRefusal {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: msg("request.headersTooLarge", { limit: limits.maxHeaderSize }) };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, message: msg("request.chunkExtensionsTooLarge") };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: timeoutMessage(limits.timeouts) };
    default:
      return { status: 400, message: msg("request.malformed", { reason: parserReason(error) }) };
  }
}

/** Names the limits that are set (0 is none): node reports both timeouts with the same code. */
function timeoutMessage({ headersTimeout, requestTimeout }: ClientErrorLimits["timeouts"]): Message {
  const allowed = headersTimeout > 0 && requestTimeout > 0
    ? msg("timeout.both", { headers: headersTimeout, request: requestTimeout })
    : headersTimeout > 0
    ? msg("timeout.headers", { ms: headersTimeout })
    : msg("timeout.request", { ms: requestTimeout });
  return msg("request.timedOut", { allowed });
}

/** llhttp's reason ("Invalid method encountered"), else node's code; printable ASCII only. */
function parserReason(error: ClientErrorFields): string {
  const reason = error.reason ?? error.code ?? "unknown error";
  return reason.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
}

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
};

/**
 * The raw HTTP/1.1 response for a refusal: node has no request or response object at this
 * point, so the bytes go to the socket as they are. `{error}` as every other 4xx, in the
 * server's default language (the request's Accept-Language was never parsed), dated `now`,
 * and the connection closes, as node's own answer does.
 */
export function refusalBytes(refusal: ClientRefusal, languages: Translator, now = new Date()): Buffer {
  const language = languages.negotiate(null);
  const body = Buffer.from(JSON.stringify({ error: languages.text(language, refusal.message) }));
  const headers = Object.entries(jsonHeaders(language)).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const head = `HTTP/1.1 ${refusal.status} ${REASON_PHRASES[refusal.status]}\r\n${headers}` +
    `content-length: ${body.length}\r\ndate: ${now.toUTCString()}\r\nconnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

/**
 * Answers a `clientError` as node would, in the spec's shape: only when nothing of another
 * response can be on its way (`responding` false), so the refusal never lands inside one;
 * otherwise, and for a client that reset the connection, the socket is just destroyed.
 */
export function answerClientError(
  error: ClientErrorFields,
  socket: Duplex,
  responding: boolean,
  reply: (error: ClientErrorFields) => Buffer,
): void {
  if (error.code === "ECONNRESET" || !socket.writable || responding) {
    socket.destroy();
    return;
  }
  socket.end(reply(error), () => socket.destroy());
}
