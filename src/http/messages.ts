/** Default request-body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The 413 message, the same whether the adapter or the core noticed the oversized body. */
export function bodyTooLargeMessage(limit: number): string {
  return `The request body is larger than the limit of ${limit} bytes.`;
}

/** The spec's constant body for an unexpected error in production. */
export const INTERNAL_ERROR_BODY: Readonly<{ message: string }> = Object.freeze({ message: "An error occurred!" });
