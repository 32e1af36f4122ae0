import { serverUrl } from "../http/server-url.ts";
import { cutMessage, type ShutdownLog, withinDeadline } from "../http/shutdown.ts";
import { resolveTimeouts } from "../http/timeouts.ts";
import { englishOnly, msg, type Translator } from "../i18n/message.ts";

/** A fetch-style handler: the framework's `app.fetch`, given the client's address as Deno.serve passes it. */
type FetchHandler = (request: Request, info?: { remoteAddr: { hostname: string; port?: number } }) => Promise<Response>;

interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}

/** The part of the `Deno` global this adapter uses; typed here so Node's type check needs no Deno types. */
export interface DenoRuntime {
  serve(options: { port: number; hostname: string; onListen?: () => void }, handler: FetchHandler): DenoServer;
}

/** The `Deno` global, or undefined on any other runtime. */
export function denoRuntime(): DenoRuntime | undefined {
  return (globalThis as { Deno?: DenoRuntime }).Deno;
}

/** What {@link serveDeno} needs: where to listen and how long shutdown may wait. */
export interface DenoServeOptions {
  port: number;
  host: string;
  /** How long close() waits for in-flight requests, in ms. Default 10 s. */
  shutdownTimeout?: number;
  /** Where close() reports what its deadline cut. Default `console.warn`. */
  log?: ShutdownLog;
  /** Answers the shutdown 503 in the client's language: pass `app.languages`. Without it, English. */
  languages?: Translator;
  /** Content-Language of that 503 when `languages` is not given. Default "en". */
  language?: string;
}

/**
 * The answer for a request the shutdown deadline cut short (Deno cannot drop its connection),
 * in the language its client asked for.
 */
export function cutResponse(request: Request, languages: Translator): Response {
  const language = languages.negotiate(request.headers.get("accept-language"));
  return new Response(JSON.stringify({ error: languages.text(language, msg("server.shuttingDown")) }), {
    status: 503,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-language": language,
      "retry-after": "1",
      connection: "close",
    },
  });
}

/**
 * Deno.serve's shutdown() waits for every handler without end, and its abort signal cannot
 * follow a shutdown. So handlers run through a wrapper that knows which requests are
 * unfinished; past the deadline each of them is answered 503 at once, which lets the
 * connections close, and whatever the handler does later goes nowhere.
 */
export function serveDeno(
  deno: DenoRuntime,
  fetch: FetchHandler,
  options: DenoServeOptions,
): { url: string; close(): Promise<void> } {
  const deadline = resolveTimeouts({ shutdownTimeout: options.shutdownTimeout }).shutdownTimeout;
  const log = options.log ?? ((line: string) => console.warn(line));
  const languages = options.languages ?? englishOnly(options.language);
  const inFlight = new Map<Request, () => void>();
  const handler: FetchHandler = (request, info) =>
    new Promise<Response>((resolve, reject) => {
      inFlight.set(request, () => resolve(cutResponse(request, languages)));
      let answer: Promise<Response>;
      try {
        answer = fetch(request, info);
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(resolve, reject).finally(() => inFlight.delete(request));
    });
  const server = deno.serve({ port: options.port, hostname: options.host, onListen: () => {} }, handler);
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const finished = server.shutdown();
    if (await withinDeadline(finished, deadline)) return await finished;
    log(cutMessage(deadline, [...inFlight.keys()].map(describe)));
    for (const cut of inFlight.values()) cut();
    finished.catch(() => {});
  };
  return { url: serverUrl(options.host, server.addr.port), close: () => (closing ??= close()) };
}

/** Method and request target, as the Node adapter names a request it cut. */
function describe(request: Request): string {
  const url = new URL(request.url);
  return `${request.method} ${url.pathname}${url.search}`;
}
