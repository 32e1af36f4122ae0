import { apiError } from "../errors.ts";

/**
 * Stops work done only for a client that has gone away: called before each further database
 * read of an expensive response (relation levels, related conditions), so an abandoned request
 * costs at most the command already running. The status never reaches the client; the request
 * log shows it as 499, nginx's "client closed request".
 */
export function stopIfGone(request: Request): void {
  if (request.signal?.aborted) throw apiError("request.clientGone", undefined, 499);
}
