import { ApiError, duplicateKeyField, ValidationError } from "../errors.ts";
import { INTERNAL_ERROR_BODY } from "./messages.ts";
import { errorResponse, json } from "./responses.ts";

/** What the app tells an error handler besides the error and the request. */
export interface ErrorContext {
  /** The app's Content-Language, for the response the handler makes. */
  language: string;
}

/** Handles an error no route could answer. Return a Response, or throw to let the runtime see it. */
export type ErrorHandler = (error: unknown, request: Request, context: ErrorContext) => Response | Promise<Response>;

/**
 * The one place where errors become statuses. Client errors (ApiError, ValidationError and a
 * unique-index conflict) get their 4xx; anything else is unexpected and goes to the handler.
 */
export async function errorToResponse(
  error: unknown,
  request: Request,
  language: string,
  handler: ErrorHandler | null,
): Promise<Response> {
  if (error instanceof ValidationError) return json({ errors: error.errors }, 400, language);
  if (error instanceof ApiError) return errorResponse(error.message, error.status, language);
  const field = duplicateKeyField(error);
  if (field !== null && field !== "_id" && field !== "") {
    return errorResponse(`The ${field} has already been taken.`, 409, language);
  }
  if (handler === null) throw error;
  return await handler(error, request, { language });
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
export const defaultErrorHandler: ErrorHandler = (error, _request, context) => {
  if (!isProduction()) throw error;
  console.error(error);
  return json(INTERNAL_ERROR_BODY, 500, context?.language ?? "en");
};
