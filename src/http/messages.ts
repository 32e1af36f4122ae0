/** Default request-body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The 413 message, the same whether the adapter or the core noticed the oversized body. */
export function bodyTooLargeMessage(limit: number): string {
  return `The request body is larger than the limit of ${limit} bytes.`;
}

/**
 * Raised into a request body stream once more bytes arrived than an adapter accepts. It lives
 * here, not in the Node adapter, so the runtime-free core can recognise it and answer 413.
 */
export class BodyLimitError extends Error {
  /** The limit that was passed, in bytes. */
  readonly limit: number;

  constructor(limit: number) {
    super(bodyTooLargeMessage(limit));
    this.name = "BodyLimitError";
    this.limit = limit;
  }
}

/**
 * The body length a request declares in Content-Length, or null when it declares none (or
 * nothing readable). The adapters and the core both refuse a body over the limit by it,
 * before reading a byte, so they read the header the same way.
 */
export function declaredLength(contentLength: string | null | undefined): number | null {
  return contentLength == null || !/^\d+$/.test(contentLength) ? null : Number(contentLength);
}

/** The spec's constant body for an unexpected error in production. */
export const INTERNAL_ERROR_BODY: Readonly<{ message: string }> = Object.freeze({ message: "An error occurred!" });
