/** ApiError's options: Error's own (`cause`), plus the status. */
export interface ApiErrorOptions extends ErrorOptions {
  /** HTTP status, 400 to 599 (default 400). */
  status?: number;
}

/**
 * An error meant for the client: its message is sent as `{ "error": message }` with `status`.
 * Throw it from hooks or anywhere in a request; the default status is 400. Like Error it takes
 * a `cause`, kept for logs and never sent: `new ApiError("Payment refused.", 402, { cause })`
 * or `new ApiError("Payment refused.", { status: 402, cause })`.
 */
export class ApiError extends Error {
  /** HTTP status sent to the client. */
  readonly status: number;

  constructor(message: string, status: number | ApiErrorOptions = 400, options?: ErrorOptions) {
    const settings = typeof status === "number" ? { ...options, status } : status;
    super(message, settings.cause === undefined ? undefined : { cause: settings.cause });
    const code = settings.status ?? 400;
    this.name = "ApiError";
    if (!Number.isInteger(code) || code < 400 || code > 599) {
      throw new TypeError(`ApiError status must be an integer from 400 to 599, got ${code}`);
    }
    this.status = code;
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
  const candidate = error as { code?: unknown; keyValue?: Record<string, unknown>; keyPattern?: Record<string, unknown> } | null;
  if (candidate?.code !== DUPLICATE_KEY) return null;
  return Object.keys(candidate.keyValue ?? candidate.keyPattern ?? {})[0] ?? "";
}

/** The 404 every route uses for a record that does not exist. */
export function notFound(modelName: string): ApiError {
  return new ApiError(`The item is not found on ${modelName}.`, 404);
}
