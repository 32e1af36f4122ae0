import { ApiError, ValidationError } from "../errors.ts";
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
  const field = duplicateField(error);
  if (field !== null && field !== "_id") {
    return errorResponse(`The ${field} has already been taken.`, 409, language);
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
