import type { NodeInfo } from "../../src/adapters/node/node-adapter.ts";
import type { Reply, ReplyHandler } from "../../src/http/reply.ts";
import { json } from "../../src/http/responses.ts";
import { english } from "../../src/i18n/message.ts";

/**
 * An adapter contract over one function, as an App offers it, for tests of the Node adapter's
 * direct writes: `answer` is the function; a refusal is answered `{error}` in English, with
 * `x-answered-by: app` so that a test can tell it from the adapter's own.
 */
export function replyHandler(answer: (request: Request) => Reply | Promise<Reply>): ReplyHandler<NodeInfo> {
  return {
    answer,
    refuse: (_request, refusal) =>
      json({ error: english(refusal.message) }, refusal.status, "en", { "x-answered-by": "app" }),
  };
}
