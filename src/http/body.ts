import { type ApiError, apiError } from "../errors.ts";
import { BodyLimitError, declaredLength } from "./messages.ts";
import { jsonSyntaxProblem } from "./json-syntax.ts";

function tooLarge(limit: number): ApiError {
  return apiError("request.bodyTooLarge", { limit }, 413);
}

/**
 * A read that failed is the client's doing: it stopped sending (disconnect, aborted upload), or
 * an adapter cut the body off at its own limit. Neither is an unexpected server error.
 */
async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  try {
    return await reader.read();
  } catch (error) {
    if (error instanceof BodyLimitError) throw tooLarge(error.limit);
    throw apiError("request.bodyUnreadable");
  }
}

function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** The `charset` parameter of a media type, lower-cased and unquoted, or null when it has none. */
function charsetOf(contentType: string): string | null {
  for (const parameter of contentType.split(";").slice(1)) {
    const equals = parameter.indexOf("=");
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    return parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, "$1").toLowerCase();
  }
  return null;
}

/**
 * Refuses a body the server would read as something other than what was sent: a content coding
 * it does not decode (RFC 9110 8.4.1: 415, with Accept-Encoding saying what it takes) or a
 * charset other than UTF-8, which JSON must be (RFC 8259 8.1). Read as identity UTF-8, such a
 * body would mean one thing to the app and another to a proxy that decodes it.
 */
function refuseForeignEncoding(headers: Headers): void {
  const coding = headers.get("content-encoding")?.trim().toLowerCase();
  if (coding !== undefined && coding !== "" && coding !== "identity") {
    throw apiError("request.unsupportedEncoding", { coding }, 415, { "accept-encoding": "identity" });
  }
  const charset = charsetOf(headers.get("content-type") ?? "");
  if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
    throw apiError("request.unsupportedCharset", { charset }, 415);
  }
}

/** Reads the stream chunk by chunk and stops at the limit, so an oversized body is never held in memory. */
async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await readChunk(reader);
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The body's text; bytes that are not UTF-8 (as JSON must be) are refused, never replaced with U+FFFD. */
function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw apiError("request.bodyInvalidJson");
  }
}

/** The 400 of a body JSON.parse refused: where it breaks, and what stands there. */
function invalidJson(text: string): ApiError {
  const problem = jsonSyntaxProblem(text);
  if (problem === null) return apiError("request.bodyInvalidJson");
  const { found, line, column } = problem;
  if (found === null) return apiError("request.bodyJsonCutShort", { line, column });
  return apiError("request.bodyInvalidJsonAt", { found: JSON.stringify(found), line, column });
}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson(text);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw apiError("request.bodyNotObject");
  }
  return value as Record<string, unknown>;
}

/**
 * Reads a JSON object body. A request with no body (or an empty one) gives `{}` whatever its
 * Content-Type says; a non-empty body must be JSON (415) within the size limit (413).
 */
export async function readJsonBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const declared = declaredLength(request.headers.get("content-length"));
  if (declared !== null && declared > limit) throw tooLarge(limit);
  if (request.body === null || declared === 0) return {};
  refuseForeignEncoding(request.headers);
  const bytes = await readLimited(request.body, limit);
  if (bytes.byteLength === 0) return {};
  if (!isJsonType(request.headers.get("content-type"))) {
    throw apiError("request.unsupportedMediaType", undefined, 415);
  }
  return parseObject(utf8Text(bytes));
}
