import type { MessageKey } from "./i18n/catalog-en.ts";
import { english, type Message, type MessageParam } from "./i18n/message.ts";

/** ApiError's options: Error's own (`cause`), plus the status and headers. */
export interface ApiErrorOptions extends ErrorOptions {
  /** HTTP status, 400 to 599 (default 400). */
  status?: number;
  /**
   * Headers the error response carries: `WWW-Authenticate` for a 401 (HTTP requires it),
   * `Retry-After` for a 503, `Allow` for a 405. The body stays `{ "error": message }`, so
   * Content-Type, Content-Length and Transfer-Encoding are the framework's and refused here.
   */
  headers?: Record<string, string> | [string, string][] | Headers;
}

/** Headers an ApiError may not set: they describe the body, which the framework writes. */
const BODY_HEADERS = new Set(["content-type", "content-length", "transfer-encoding"]);

/** An ApiError's headers as lower-cased names and values, checked once, when it is thrown. */
function errorHeaders(init: ApiErrorOptions["headers"]): Readonly<Record<string, string>> | undefined {
  if (init === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init)) {
    if (BODY_HEADERS.has(name)) {
      throw new TypeError(`ApiError headers cannot set ${name}: the error body is the framework's JSON`);
    }
    headers[name] = value;
  }
  return Object.freeze(headers);
}

/**
 * An error meant for the client: its message is sent as `{ "error": message }` with `status`.
 * Throw it from hooks or anywhere in a request; the default status is 400. Like Error it takes
 * a `cause`, kept for logs and never sent: `new ApiError("Payment refused.", 402, { cause })`
 * or `new ApiError("Payment refused.", { status: 402, cause })`. Headers go with it:
 * `new ApiError("Sign in first.", { status: 401, headers: { "WWW-Authenticate": "Bearer" } })`.
 */
export class ApiError extends Error {
  /** HTTP status sent to the client. */
  readonly status: number;
  /** Headers sent with the error response (lower-cased names), if any. */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(message: string, status: number | ApiErrorOptions = 400, options?: ErrorOptions) {
    const settings = typeof status === "number" ? { ...options, status } : status;
    super(message, settings.cause === undefined ? undefined : { cause: settings.cause });
    const code = settings.status ?? 400;
    this.name = "ApiError";
    if (!Number.isInteger(code) || code < 400 || code > 599) {
      throw new TypeError(`ApiError status must be an integer from 400 to 599, got ${code}`);
    }
    this.status = code;
    const headers = errorHeaders(settings.headers);
    if (headers !== undefined) this.headers = headers;
  }
}

/** Field name → messages, as sent in `{ "errors": ... }`. */
export type FieldErrors = Record<string, string[]>;

/** A rejected body: every invalid field at once, sent as 400 `{ "errors": { field: [messages] } }`. */
export class ValidationError extends Error {
  /** Per-field messages. */
  readonly errors: FieldErrors;
  /** Always 400. */
  readonly status = 400;

  constructor(errors: FieldErrors) {
    super("The given data was invalid.");
    this.name = "ValidationError";
    this.errors = errors;
  }
}

/** MongoDB's duplicate-key code: a unique index refused a write. */
const DUPLICATE_KEY = 11000;

/**
 * Decodes the driver's duplicate-key error, the one place that does: the field whose unique
 * index refused the write (`_id` for an id clash), or null for any other error.
 */
export function duplicateKeyField(error: unknown): string | null {
  const candidate = error as {
    code?: unknown;
    keyValue?: Record<string, unknown>;
    keyPattern?: Record<string, unknown>;
  } | null;
  if (candidate?.code !== DUPLICATE_KEY) return null;
  return Object.keys(candidate.keyValue ?? candidate.keyPattern ?? {})[0] ?? "";
}

/** The 404 every route uses for a record that does not exist. */
export function notFound(modelName: string): ApiError {
  return apiError("record.notFound", { model: modelName }, 404);
}

/**
 * An ApiError raised by the framework itself: its message comes from the catalog, so it can be
 * sent in the client's language. Its `message` is the English text. An ApiError thrown by app
 * code is not one of these and is always sent as written.
 */
export class CatalogError extends ApiError {
  /** The untranslated message. */
  readonly detail: Message;

  constructor(detail: Message, status = 400, headers?: Record<string, string>) {
    super(english(detail), { status, headers });
    this.detail = detail;
  }
}

/**
 * Shorthand for throwing a framework message.
 * @example throw apiError("query.undefinedColumns", { names: "nope" }) // 400 Undefined column names: nope
 */
export function apiError(
  key: MessageKey,
  params?: Record<string, MessageParam>,
  status = 400,
  headers?: Record<string, string>,
): CatalogError {
  return new CatalogError(params === undefined ? { key } : { key, params }, status, headers);
}

/** Field name → untranslated messages, the catalog form of {@link FieldErrors}. */
export type FieldMessages = Record<string, Message[]>;

/** A ValidationError whose messages come from the catalog, so they can be translated. */
export class CatalogValidationError extends ValidationError {
  /** The untranslated messages, field by field. */
  readonly details: FieldMessages;

  constructor(details: FieldMessages) {
    const errors: FieldErrors = Object.create(null);
    for (const [field, messages] of Object.entries(details)) errors[field] = messages.map(english);
    super({ ...errors });
    this.details = details;
  }
}

/**
 * The environment keeps the server from starting: a busy port, a data folder another engine
 * holds, a MongoDB URI that is malformed or unreachable. Its message says what to change;
 * the CLI prints it as one line, as it does configuration mistakes, instead of a stack.
 */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StartupError";
  }
}
