/**
 * An error meant for the client: its message is sent as `{ "error": message }` with `status`.
 * Throw it from hooks or anywhere in a request; the default status is 400.
 */
export class ApiError extends Error {
  /** HTTP status sent to the client. */
  readonly status: number;

  constructor(message: string, status = 400) {
    super(message);
    this.name = "ApiError";
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`ApiError status must be an integer from 400 to 599, got ${status}`);
    }
    this.status = status;
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

/** The 404 every route uses for a record that does not exist. */
export function notFound(modelName: string): ApiError {
  return new ApiError(`The item is not found on ${modelName}.`, 404);
}
