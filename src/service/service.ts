import type { Db } from "mongodb";
import type { Languages } from "../i18n/languages.ts";
import { msg } from "../i18n/message.ts";
import { type HeaderRecord, type Refusal, type Reply, withHeaders } from "../http/reply.ts";
import { empty, errorReply } from "../http/responses.ts";
import { dropBody } from "../http/head.ts";
import { pathnameOf } from "../http/router.ts";
import type { Model } from "../model/define.ts";
import { checkTrustProxy, clientAddress, type ConnectionInfo, type TrustProxy } from "./client.ts";
import { Cors, type CorsOptions, isPreflight } from "./cors.ts";
import { healthReply, isHealthPath } from "./health.ts";
import { requestLogger } from "./logging.ts";
import { requestLog } from "./request-log.ts";
import { RateLimiter, type RateLimitOptions, type RateLimitOutcome, setRateLimitHeaders } from "./rate-limit.ts";
import { type RequestTarget, targetResolver, type TargetRoutes } from "./target.ts";
import { requestIdOf } from "./request-id.ts";
import { relatedReads } from "./related-reads.ts";
import type { Principal } from "../model/access.ts";
import type { Authenticator } from "./auth.ts";

/** A refusal answered before the routes (a 429): for HEAD without its body, as every HEAD answer is. */
function headless(request: Request, reply: Reply): Reply {
  return request.method === "HEAD" ? dropBody(reply) : reply;
}

/** The methods the health probes answer. */
const PROBE_METHODS = "GET, HEAD, OPTIONS";

/** The service options of `createApp`: all off unless given, except the health probes. */
export interface ServiceOptions {
  rateLimit?: RateLimitOptions;
  cors?: CorsOptions;
  /** Which X-Forwarded-For entries name the client (see {@link TrustProxy}); default none. */
  trustProxy?: TrustProxy;
  /** Serve `/healthz` and `/readyz` (default true). */
  health?: boolean;
}

/** What the service layer tells the core about a request. */
export interface RequestContext {
  /** The negotiated language. */
  language: string;
  /** The request's id, echoed in X-Request-Id and logged. */
  requestId: string;
  /** Set once an unexpected error of this request was logged, so it is logged once. */
  errorLogged?: boolean;
  /** With `auth`: who the request is from, established before rate limits and routes. */
  principal?: Principal;
}

/** The app's own answer to a request: routing, handlers and the error boundary (synchronous on a cache hit). */
export type CoreFetch = (request: Request, context: RequestContext) => Reply | Promise<Reply>;

/**
 * The app's error boundary: turns an unexpected error into the error handler's reply
 * (logging it once, with the request's id), or rejects as the handler does.
 */
export type FailedFetch = (error: unknown, request: Request, context: RequestContext) => Promise<Reply>;

/**
 * Logs an error the app's error handler is about to turn into a response, with the request's
 * id. False when logging is not set up for errors (nothing was written), so the handler's own
 * fallback (the default handler's console.error) still shows it.
 */
export function logUnexpected(error: unknown, request: Request, context: RequestContext): boolean {
  context.errorLogged = true;
  if (!requestLogger.isEnabledFor("error")) return false;
  requestLogger.error("Unexpected error in {method} {path} (request {requestId}): {error}", {
    method: request.method,
    path: pathnameOf(request.url),
    requestId: context.requestId,
    error,
  });
  return true;
}

/** What the service layer needs of the app. */
export interface ServiceDeps {
  db: Db;
  languages: Languages;
  models: Iterable<Model>;
  /** The app's routes, for per-model limits to know which model a request is for. */
  routes: TargetRoutes;
  /** Where the service's own failures go (a rate-limit store that is down, a key function that throws). */
  failed: FailedFetch;
  /** The time limit of the service's own database commands (the rate-limit store's), in ms. */
  queryTimeMs: number;
  /** With `auth`: establishes each request's principal. */
  authenticator?: Authenticator;
}

/**
 * Wraps the app's core with what a service needs around it: language negotiation, request
 * ids, one log line per request, health probes, CORS and rate limits.
 */
export class Service {
  readonly #core: CoreFetch;
  readonly #deps: ServiceDeps;
  readonly #cors: Cors | undefined;
  readonly #limiter: RateLimiter | undefined;
  readonly #target: (method: string, pathname: string) => RequestTarget | undefined;
  readonly #trustProxy: TrustProxy;
  readonly #health: boolean;
  readonly #models: ReadonlyMap<string, Model>;

  constructor(options: ServiceOptions, deps: ServiceDeps, core: CoreFetch) {
    const models = new Map([...deps.models].map((model) => [model.name, model]));
    this.#core = core;
    this.#deps = deps;
    this.#cors = options.cors === undefined ? undefined : new Cors(options.cors);
    this.#limiter = options.rateLimit === undefined
      ? undefined
      : new RateLimiter(options.rateLimit, models, deps.db, deps.queryTimeMs);
    this.#target = targetResolver(deps.routes);
    this.#trustProxy = checkTrustProxy(options.trustProxy);
    this.#health = options.health !== false;
    this.#models = models;
  }

  /**
   * Answers one request and logs it; without a Promise when the answer needs no await (a
   * response-cache hit). Throws where `app.fetch` rejects (see `App.answer`).
   */
  answer(request: Request, info?: ConnectionInfo): Reply | Promise<Reply> {
    const started = performance.now();
    const pathname = pathnameOf(request.url);
    const context = this.#contextOf(request);
    let answer: Reply | Promise<Reply>;
    try {
      answer = this.#answer(request, info, pathname, context);
    } catch (error) {
      // The service's own stages failed (a rate-limit key function that threw): the app's
      // error boundary answers, as for any unexpected error. Kept out of #answer, where a
      // try/catch cost the rate-limited path ~700 instructions a request (bench-instructions).
      answer = this.#decorate(
        this.#deps.failed(error, request, context),
        this.#baseHeaders(context),
        this.#corsOrigin(request),
      );
    }
    if (!(answer instanceof Promise)) return this.#logged(answer, request, pathname, context, started);
    return answer.then(
      (reply) => this.#logged(reply, request, pathname, context, started),
      (error: unknown) => {
        // The runtime answers 500 for a rejected fetch (the Node adapter and Deno.serve alike).
        this.#log(500, request, pathname, context, started);
        return Promise.reject(this.#failed(error, request, context));
      },
    );
  }

  /** Logs an error no handler turned into a response (once), and hands it back to be rethrown. */
  #failed(error: unknown, request: Request, context: RequestContext): unknown {
    if (!context.errorLogged) logUnexpected(error, request, context);
    return error;
  }

  /** Writes the request's log line, if the log takes it, and hands the reply back. */
  #logged(reply: Reply, request: Request, pathname: string, context: RequestContext, started: number): Reply {
    this.#log(reply.status, request, pathname, context, started);
    return reply;
  }

  /** Writes the request's log line, if the log takes it. */
  #log(status: number, request: Request, pathname: string, context: RequestContext, started: number): void {
    const level = isHealthPath(pathname) ? "debug" : "info";
    if (!requestLog.enabled(level)) return;
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const fields = { method: request.method, path: pathname, status, durationMs, requestId: context.requestId };
    // The subject, never the credentials: who asked, for the log's reader.
    const subject = context.principal?.subject;
    requestLog.log(level, subject ? { ...fields, subject } : fields);
  }

  /** Writes the request lines still waiting for their batch (the app calls it as it closes). */
  flushLogs(): void {
    requestLog.flush();
  }

  /**
   * Answers a request the adapter refuses before the app runs it (see `App.refuse`) as the
   * app answers its own errors: in the client's language, with the request id, CORS and Vary
   * headers, and logged.
   */
  refuse(request: Request, refusal: Refusal): Reply {
    const started = performance.now();
    const pathname = pathnameOf(request.url);
    const context = this.#contextOf(request);
    const extra = this.#baseHeaders(context);
    const text = this.#deps.languages.text(context.language, refusal.message);
    const refused = errorReply(text, refusal.status, context.language);
    const decorated = this.#decorate(refused, extra, this.#corsOrigin(request)) as Reply;
    return this.#logged(decorated, request, pathname, context, started);
  }

  #contextOf(request: Request): RequestContext {
    return {
      language: this.#deps.languages.negotiate(request.headers.get("accept-language")),
      requestId: requestIdOf(request),
    };
  }

  /** The headers every response carries: the request id, and the language when it is not the default. */
  #baseHeaders(context: RequestContext): HeaderRecord {
    const extra: HeaderRecord = { "x-request-id": context.requestId };
    if (context.language !== this.#deps.languages.defaultLanguage) extra["content-language"] = context.language;
    return extra;
  }

  /** The request's Origin when CORS is configured and allows it, else null. */
  #corsOrigin(request: Request): string | null {
    const cors = this.#cors;
    const origin = cors === undefined ? null : request.headers.get("origin");
    return cors !== undefined && cors.allows(origin) ? origin : null;
  }

  #answer(
    request: Request,
    info: ConnectionInfo | undefined,
    pathname: string,
    context: RequestContext,
  ): Reply | Promise<Reply> {
    const extra = this.#baseHeaders(context);
    if (this.#health && isHealthPath(pathname)) return this.#probe(request, pathname, context, extra);
    const cors = this.#cors;
    const corsOrigin = this.#corsOrigin(request);
    const preflight = isPreflight(request);
    if (corsOrigin !== null && preflight) {
      return empty(204, context.language, { ...extra, ...cors!.preflightHeaders(request, corsOrigin) });
    }
    const authenticator = this.#deps.authenticator;
    if (authenticator === undefined || preflight) return this.#admit(request, info, pathname, context, extra);
    // Credentials are checked before rate limits, which may count by subject; a bad one is a 401.
    let principal: Principal | Promise<Principal>;
    try {
      principal = authenticator.principal(request);
    } catch (error) {
      principal = Promise.reject(error);
    }
    if (!(principal instanceof Promise)) {
      context.principal = principal;
      return this.#admit(request, info, pathname, context, extra);
    }
    return principal.then(
      (who) => {
        context.principal = who;
        return this.#admit(request, info, pathname, context, extra);
      },
      (error: unknown) => this.#refuseCredentials(error, request, info, pathname, context, extra),
    );
  }

  /**
   * Credentials that do not hold: still counted against the rate limits, by address, so a
   * flood of made-up tokens or keys (each a verification, a key a lookup) meets the limit's
   * 429 like any other; else the 401.
   */
  async #refuseCredentials(
    error: unknown,
    request: Request,
    info: ConnectionInfo | undefined,
    pathname: string,
    context: RequestContext,
    extra: HeaderRecord,
  ): Promise<Reply> {
    const corsOrigin = this.#corsOrigin(request);
    const limited = this.#limiter === undefined
      ? undefined
      : await this.#limit(request, info, pathname, context, extra);
    const answer = limited ? headless(request, limited) : this.#deps.failed(error, request, context);
    return await this.#decorate(answer, extra, corsOrigin);
  }

  /** A request past CORS and authentication: counted against the rate limits, then the core's. */
  #admit(
    request: Request,
    info: ConnectionInfo | undefined,
    pathname: string,
    context: RequestContext,
    extra: HeaderRecord,
  ): Reply | Promise<Reply> {
    const corsOrigin = this.#corsOrigin(request);
    const preflight = isPreflight(request);
    // Preflights are not counted, whoever sends them: a browser sends one before its request.
    if (this.#limiter !== undefined && !preflight) {
      // A count that throws at once is caught by respond(); one that rejects, here.
      const counted = this.#limit(request, info, pathname, context, extra);
      if (counted instanceof Promise) {
        return counted.then(
          (refused) =>
            this.#decorate(refused ? headless(request, refused) : this.#core(request, context), extra, corsOrigin),
          (error: unknown) => this.#decorate(this.#deps.failed(error, request, context), extra, corsOrigin),
        );
      }
      if (counted !== undefined) return this.#decorate(headless(request, counted), extra, corsOrigin);
    }
    return this.#decorate(this.#core(request, context), extra, corsOrigin);
  }

  /** A health probe: GET and HEAD answer; OPTIONS lists them, and any other method is a 405. */
  async #probe(request: Request, pathname: string, context: RequestContext, extra: HeaderRecord): Promise<Reply> {
    const { method } = request;
    if (method === "OPTIONS") return empty(204, context.language, { ...extra, allow: PROBE_METHODS });
    if (method !== "GET" && method !== "HEAD") {
      const text = this.#deps.languages.text(
        context.language,
        msg("request.methodNotAllowed", { method, allow: PROBE_METHODS }),
      );
      return errorReply(text, 405, context.language, { ...extra, allow: PROBE_METHODS });
    }
    const probed = await healthReply(pathname, this.#deps.db, this.#deps.languages, context.language);
    return withHeaders(request.method === "HEAD" ? dropBody(probed) : probed, extra);
  }

  /** The reply with the service's headers added: request id, language, CORS, RateLimit-*, Vary. */
  #decorate(
    answer: Reply | Promise<Reply>,
    extra: HeaderRecord,
    corsOrigin: string | null,
  ): Reply | Promise<Reply> {
    if (answer instanceof Promise) return answer.then((reply) => this.#decorate(reply, extra, corsOrigin));
    const cors = this.#cors;
    if (corsOrigin !== null) cors!.addResponseHeaders(extra, corsOrigin);
    if (answer.status >= 400) extra.vary = cors === undefined ? "Accept-Language" : "Origin, Accept-Language";
    else if (cors !== undefined) extra.vary = "Origin";
    return withHeaders(answer, extra);
  }

  /** Counts the request; adds the RateLimit headers to `extra`, and answers 429 when over the limit. Synchronous with the memory store. */
  #limit(
    request: Request,
    info: ConnectionInfo | undefined,
    pathname: string,
    context: RequestContext,
    extra: HeaderRecord,
  ): Reply | undefined | Promise<Reply | undefined> {
    const limiter = this.#limiter!;
    const target = limiter.perModel ? this.#target(request.method, pathname) : undefined;
    const related = target === undefined ? undefined : this.#relatedLimited(target, request.url);
    const client = { address: clientAddress(request, info, this.#trustProxy), subject: context.principal?.subject };
    const counted = limiter.hit(request, client, target, related);
    if (counted instanceof Promise) return counted.then((outcome) => this.#limited(outcome, context, extra));
    return this.#limited(counted, context, extra);
  }

  /** The other models a GET of `target` reads through `with` or `q` that have limits of their own. */
  #relatedLimited(target: RequestTarget, url: string): ReadonlySet<string> | undefined {
    if (target.handler !== "paginate" && target.handler !== "show") return undefined;
    if (!url.includes("with=") && !url.includes("q=")) return undefined;
    const related = relatedReads(this.#models.get(target.model)!, url, this.#models);
    for (const name of related) if (!this.#limiter!.limits(name)) related.delete(name);
    return related;
  }

  #limited(outcome: RateLimitOutcome | undefined, context: RequestContext, extra: HeaderRecord): Reply | undefined {
    if (outcome === undefined) return undefined;
    setRateLimitHeaders(extra, outcome);
    if (!outcome.limited) return undefined;
    const text = this.#deps.languages.text(
      context.language,
      msg("request.tooManyRequests", {
        max: outcome.max,
        window: outcome.windowMs / 1000,
        retryAfter: outcome.resetSeconds,
      }),
    );
    return errorReply(text, 429, context.language);
  }
}
