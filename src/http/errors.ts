import {
  ApiError,
  CatalogError,
  CatalogValidationError,
  duplicateKeyField,
  type FieldErrors,
  ValidationError,
} from "../errors.ts";
import type { Languages } from "../i18n/languages.ts";
import { english, type Message, msg } from "../i18n/message.ts";
import { INTERNAL_ERROR_BODY } from "./messages.ts";
import { type Reply, replyOf, toResponse } from "./reply.ts";
import { errorReply, json } from "./responses.ts";

/**
 * MongoDB's OutOfDiskSpace code: the server had no room to store a write. The embedded engine
 * reports it when its journal hits a full disk, and guarantees the write was not applied.
 */
const OUT_OF_DISK_SPACE = 14031;

/**
 * MongoDB's QueryExceededMemoryLimitNoDiskUseAllowed: a sort no index serves would hold more
 * than the server's sort memory. The client chose the sort and the depth, so it is a 400.
 */
const SORT_TOO_LARGE = 292;

/**
 * MongoDB's MaxTimeMSExpired: a command ran past the `maxTimeMS` every framework command
 * carries (`limits.queryTimeMs`). The database stopped it; the server is not broken, the query
 * was too expensive for it now: 503 with a Retry-After long enough not to invite a storm of retries.
 */
const MAX_TIME_EXPIRED = 50;
const TIME_LIMIT_RETRY_AFTER = "5";

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function isOutOfDiskSpace(error: unknown): boolean {
  return codeOf(error) === OUT_OF_DISK_SPACE;
}

/** What the app tells an error handler besides the error and the request. */
export interface ErrorContext {
  /** The app's Content-Language, for the response the handler makes. */
  language: string;
  /** True when the app has already logged the error with the request's id (logging is configured): no need to log it again. */
  logged?: boolean;
}

/** Handles an error no route could answer. Return a Response, or throw to let the runtime see it. */
export type ErrorHandler = (error: unknown, request: Request, context: ErrorContext) => Response | Promise<Response>;

/** The text of a framework message in `language`, or its English text when that is what is wanted. */
function say(message: Message, language: string, languages: Languages | undefined): string {
  return languages === undefined || languages.isPlainEnglish(language)
    ? english(message)
    : languages.text(language, message);
}

function fieldErrors(error: ValidationError, language: string, languages: Languages | undefined): FieldErrors {
  if (!(error instanceof CatalogValidationError) || languages === undefined || languages.isPlainEnglish(language)) {
    return error.errors;
  }
  const errors: FieldErrors = Object.create(null);
  for (const [field, messages] of Object.entries(error.details)) {
    errors[field] = messages.map((m) => languages.text(language, m));
  }
  return { ...errors };
}

/**
 * The one place where errors become statuses. Client errors (ApiError, ValidationError and a
 * unique-index conflict) get their 4xx, a full disk its 507; anything else is unexpected and
 * goes to the handler, whose Response becomes a reply. The framework's own messages are sent
 * in `language`; an ApiError thrown by app code keeps its message as written.
 */
export async function errorToReply(
  error: unknown,
  request: Request,
  language: string,
  handler: ErrorHandler | null,
  languages?: Languages,
): Promise<Reply> {
  if (error instanceof ValidationError) return json({ errors: fieldErrors(error, language, languages) }, 400, language);
  if (error instanceof CatalogError) {
    return errorReply(say(error.detail, language, languages), error.status, language, error.headers);
  }
  if (error instanceof ApiError) return errorReply(error.message, error.status, language, error.headers);
  const field = duplicateKeyField(error);
  if (field !== null && field !== "_id" && field !== "") {
    return errorReply(say(msg("record.duplicate", { field }), language, languages), 409, language);
  }
  if (isOutOfDiskSpace(error)) return errorReply(say(msg("storage.full"), language, languages), 507, language);
  if (codeOf(error) === MAX_TIME_EXPIRED) {
    return errorReply(say(msg("query.timeLimit"), language, languages), 503, language, {
      "retry-after": TIME_LIMIT_RETRY_AFTER,
    });
  }
  if (codeOf(error) === SORT_TOO_LARGE) {
    return errorReply(say(msg("query.sortTooLarge"), language, languages), 400, language);
  }
  if (handler === null) throw error;
  return await replyOf(await handler(error, request, { language }));
}

function isProduction(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.NODE_ENV === "production";
}

/**
 * The spec's default handler. In production (NODE_ENV read at the moment of the error) it logs
 * the error (unless the app's configured logger already did, with the request id) and answers
 * 500 with a constant message; elsewhere it rethrows the very error, so
 * `app.fetch` rejects with it and the developer sees the real failure.
 */
export const defaultErrorHandler: ErrorHandler = (error, _request, context) => {
  if (!isProduction()) throw error;
  if (!context?.logged) console.error(error); // once: the app's logger wrote it already, with the request id
  return toResponse(json(INTERNAL_ERROR_BODY, 500, context?.language ?? "en"));
};
