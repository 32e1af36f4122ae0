import type { Db } from "mongodb";
import { msg } from "../i18n/message.ts";
import type { Languages } from "../i18n/languages.ts";
import type { Reply } from "../http/reply.ts";
import { errorReply, json } from "../http/responses.ts";

/**
 * True for the probes' paths, `/healthz` and `/readyz`, outside the API base path. Compared
 * as strings, not looked up in a set: every request asks, and a set would hash its path.
 */
export function isHealthPath(pathname: string): boolean {
  return pathname === "/healthz" || pathname === "/readyz";
}

/** How long /readyz waits for the database's answer to a ping. */
const READY_TIMEOUT_MS = 2000;

/**
 * `/healthz` answers 200 while the process serves requests at all (liveness); `/readyz` pings
 * the database and answers 503 `{error}` when it cannot be reached (readiness).
 */
export async function healthReply(
  pathname: string,
  db: Db,
  languages: Languages,
  language: string,
): Promise<Reply> {
  if (pathname === "/healthz") return json({ status: "ok" }, 200, language);
  try {
    await db.command({ ping: 1 }, { timeoutMS: READY_TIMEOUT_MS });
    return json({ status: "ready" }, 200, language);
  } catch {
    return errorReply(languages.text(language, msg("request.notReady")), 503, language);
  }
}
