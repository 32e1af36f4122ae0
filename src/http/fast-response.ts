/** Headers as a plain object: cheap to build and to hand to node:http unchanged. */
export type HeaderRecord = Record<string, string>;

/**
 * Builds a Response for a body the framework already holds in full. Adapters may recognise
 * responses made here and write the body directly instead of reading it as a stream.
 */
export function createResponse(body: string | Uint8Array | null, status: number, headers: HeaderRecord): Response {
  return new Response(body, { status, headers });
}
