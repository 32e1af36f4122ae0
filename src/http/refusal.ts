import type { Message } from "../i18n/message.ts";

/**
 * Refusals an adapter makes before the app sees a request (a declared body over the limit),
 * answered by the app all the same when it offers to: the answer then carries what every
 * other response of the app carries (request id, CORS, Content-Language) and gets its log
 * line. `app.fetch` carries the app's answer under {@link ANSWER_REFUSAL}; a fetch handler
 * without one leaves the adapter to answer on its own.
 */

/** What the adapter refuses, and the message it would answer with. */
export interface Refusal {
  status: number;
  message: Message;
}

/** The app's answer to a refusal: synchronous, and never reading the request's body. */
export type RefusalAnswer<Info> = (request: Request, refusal: Refusal, info?: Info) => Response;

/** Where a fetch function keeps its refusal answer. */
export const ANSWER_REFUSAL: unique symbol = Symbol.for("mongorest.answerRefusal");

/** `fetch` with `answer` attached as its refusal answer; returns `fetch`. */
export function withRefusalAnswer<Info, F extends (request: Request, info?: Info) => unknown>(
  fetch: F,
  answer: RefusalAnswer<Info>,
): F {
  Object.defineProperty(fetch, ANSWER_REFUSAL, { value: answer });
  return fetch;
}

/** The refusal answer `fetch` carries, if any. */
export function refusalAnswerOf<Info>(
  fetch: (request: Request, info?: Info) => unknown,
): RefusalAnswer<Info> | undefined {
  return (fetch as { [ANSWER_REFUSAL]?: RefusalAnswer<Info> })[ANSWER_REFUSAL];
}
