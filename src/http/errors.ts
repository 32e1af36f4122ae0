import { ApiError, CatalogError, CatalogValidationError, ValidationError, type FieldErrors } from "../errors.ts";
import type { Languages } from "../i18n/languages.ts";
import { english, msg, type Message } from "../i18n/message.ts";
import { INTERNAL_ERROR_BODY } from "./messages.ts";
import { errorResponse, json } from "./responses.ts";

/** Handles an error no route could answer. Return a Response, or throw to let the runtime see it. */
export type ErrorHandler = (error: unknown, request: Request) => Response | Promise<Response>;

/** MongoDB's duplicate-key code: a unique index refused a write. */
const DUPLICATE_KEY = 11000;

function duplicateField(error: unknown): string | null {
  const candidate = error as { code?: unknown; keyValue?: Record<string, unknown> } | null;
  if (candidate?.code !== DUPLICATE_KEY || !candidate.keyValue) return null;
  return Object.keys(candidate.keyValue)[0] ?? null;
}

/** The text of a framework message in `language`, or its English text when that is what is wanted. */
function say(message: Message, language: string, languages: Languages | undefined): string {
  return languages === undefined || languages.isPlainEnglish(language) ? english(message) : languages.text(language, message);
}

function fieldErrors(error: ValidationError, language: string, languages: Languages | undefined): FieldErrors {
  if (!(error instanceof CatalogValidationError) || languages === undefined || languages.isPlainEnglish(language)) return error.errors;
  const errors: FieldErrors = Object.create(null);
  for (const [field, messages] of Object.entries(error.details)) errors[field] = messages.map((m) => languages.text(language, m));
  return { ...errors };
}

/**
 * The one place where errors become statuses. Client errors (ApiError, ValidationError and a
 * unique-index conflict) get their 4xx; anything else is unexpected and goes to the handler.
 * The framework's own messages are sent in `language`; an ApiError thrown by app code keeps
 * its message as written.
 */
export async function errorToResponse(
  error: unknown,
  request: Request,
  language: string,
  handler: ErrorHandler | null,
  languages?: Languages,
): Promise<Response> {
  if (error instanceof ValidationError) return json({ errors: fieldErrors(error, language, languages) }, 400, language);
  if (error instanceof CatalogError) return errorResponse(say(error.detail, language, languages), error.status, language);
  if (error instanceof ApiError) return errorResponse(error.message, error.status, language);
  const field = duplicateField(error);
  if (field !== null && field !== "_id") {
    return errorResponse(say(msg("record.duplicate", { field }), language, languages), 409, language);
  }
  if (handler === null) throw error;
  return await handler(error, request);
}

function isProduction(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.NODE_ENV === "production";
}

/**
 * The spec's default handler. In production (NODE_ENV read at the moment of the error) it logs
 * the error and answers 500 with a constant message; elsewhere it rethrows the very error, so
 * `app.fetch` rejects with it and the developer sees the real failure.
 */
export const defaultErrorHandler: ErrorHandler = (error) => {
  if (!isProduction()) throw error;
  console.error(error);
  return json(INTERNAL_ERROR_BODY, 500, "en");
};
