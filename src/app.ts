import type { Db, MongoClient } from "mongodb";
import { type DocsRoutes, docsRoutes } from "./docs-page/routes.ts";
import { ApiError } from "./errors.ts";
import type { ModelHooks } from "./handlers/context.ts";
import { nestedRoutes } from "./handlers/nested-routes.ts";
import type { AppState, Route } from "./handlers/route.ts";
import { Languages } from "./i18n/languages.ts";
import { msg, type Translator } from "./i18n/message.ts";
import { DEFAULT_BODY_LIMIT } from "./http/messages.ts";
import { type ErrorContext, type ErrorHandler, errorToReply } from "./http/errors.ts";
import { ResponseCache } from "./http/response-cache.ts";
import { dropBody, headAsGet } from "./http/head.ts";
import { type Refusal, type Reply, type ReplyHandler, toResponse } from "./http/reply.ts";
import { empty, errorReply } from "./http/responses.ts";
import { buildRouter, pathnameOf, type PathRouter } from "./http/router.ts";
import { type BoundHandler, type RouteEntry, routeTable } from "./handlers/table.ts";
import type { Model } from "./model/define.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { type ModelRegistry } from "./model/registry.ts";
import { uniqueIndexFilter } from "./model/validate.ts";
import { type QueryLimits } from "./query/limits.ts";
import { type Database, openDatabase } from "./store/connect.ts";
import { ensureIndexes } from "./store/indexes.ts";
import { refuseHiddenRecords } from "./store/former-collections.ts";
import { syncCounter } from "./store/ids.ts";
import { RecordStore } from "./store/records.ts";
import { DataStore } from "./store/data-store.ts";
import { AccessPolicy, RequestAccess } from "./query/access.ts";
import { ANONYMOUS } from "./model/access.ts";
import { Authenticator } from "./service/auth.ts";
import type { ConnectionInfo } from "./service/client.ts";
import { type CoreFetch, type FailedFetch, logUnexpected, type RequestContext, Service } from "./service/service.ts";
import { checkRateLimitOptions } from "./service/rate-limit.ts";
import type { TargetRoutes } from "./service/target.ts";
import { type AppOptions, type CheckedOptions, checkOptions, cursorSealerOf } from "./app-options.ts";

export type { AppOptions };

/**
 * A running app: a fetch handler for any server, the contract a server adapter may use
 * instead (`answer`, `refuse`: the Node adapter's), plus its database.
 */
export interface App extends ReplyHandler<ConnectionInfo> {
  /**
   * Answers one request with a web Response. Bound, so `Deno.serve(app.fetch)` works; `info`
   * is what Deno.serve (and the Node adapter) pass about the connection, used for the
   * client's address.
   */
  fetch(request: Request, info?: ConnectionInfo): Promise<Response>;
  /**
   * Answers one request as {@link fetch} does, as a plain reply (status, header record, whole
   * body) for an adapter to write to its socket: synchronously when nothing needs an await (a
   * response-cache hit), so such a request is written in the turn it arrived and no Response
   * is ever made. Throws where `fetch` rejects. `fetch` is this, awaited and made a Response.
   */
  answer(request: Request, info?: ConnectionInfo): Reply | Promise<Reply>;
  /**
   * The app's answer to a request its adapter refuses before running it (a declared body
   * over the adapter's `bodyLimit`): `refusal`'s status and message, in the client's language,
   * with the request id, CORS and Vary headers and a log line like every other response.
   * Synchronous, and never reads the request's body.
   */
  refuse(request: Request, refusal: Refusal, info?: ConnectionInfo): Reply;
  /** Registers the handler for unexpected errors (null removes it). */
  onError(handler: ErrorHandler | null): App;
  /** Closes the driver and, if one was started, the embedded engine. */
  close(): Promise<void>;
  readonly client: MongoClient;
  readonly db: Db;
  readonly models: ModelRegistry;
  readonly language: string;
  /** The app's languages, for a server adapter to answer its own errors in the client's language. */
  readonly languages: Translator;
}

/** One route per model, plus the nested routes of hasMany relations (`/users/:userId/posts`), at every level. */
function buildRoutes(state: AppState, models: readonly Model[], hooks: Record<string, ModelHooks>): Route[] {
  const routeOf = (model: Model): Route => ({
    app: state,
    model,
    store: state.stores.get(model.name)!,
    hooks: hooks[model.name] ?? {},
  });
  return [...models.map(routeOf), ...nestedRoutes({ registry: state.registry, stores: state.stores, routeOf }, models)];
}

async function prepareCollections(db: Db, models: readonly Model[]): Promise<void> {
  for (const model of models) {
    await refuseHiddenRecords(db, model);
    await syncCounter(db, model.collection);
    await ensureIndexes(db, model, (field) => uniqueIndexFilter(model, field));
  }
}

/** The exact response cache, on the embedded engine only (it sees every write) and unless switched off. */
function responseCacheOf(database: Database, options: AppOptions): ResponseCache | undefined {
  const { changeCount, collectionChangeCount } = database;
  if (!changeCount || !collectionChangeCount || options.responseCache === false) return undefined;
  return new ResponseCache({ total: changeCount, of: collectionChangeCount });
}

/** The route's answer: synchronous when the handler answers without an await (a cache hit). */
function dispatch(
  parts: CoreParts,
  request: Request,
  context: RequestContext,
): Reply | Promise<Reply> {
  const { router, docs, languages, policy } = parts;
  const language = context.language;
  const pathname = pathnameOf(request.url);
  const found = router.match(request.method, pathname);
  if (found) {
    const access = policy && new RequestAccess(policy, context.principal ?? ANONYMOUS);
    return found.target.handler(request, found.target.route, found.params, access);
  }
  const page = docs?.(request, pathname);
  if (page instanceof Promise) return page;
  const method = request.method;
  const allowed = page?.allow ?? router.allowedFor(method, pathname);
  if (allowed === null) {
    return errorReply(languages.text(language, msg("request.noRoute", { method, path: pathname })), 404, language);
  }
  const allow = allowed.join(", ");
  if (method === "OPTIONS") return empty(204, language, { allow });
  return errorReply(languages.text(language, msg("request.methodNotAllowed", { method, allow })), 405, language, {
    allow,
  });
}

/** HEAD: the GET's answer without its body (synchronous when the GET's is). */
function answerHead(core: CoreFetch, request: Request, context: RequestContext): Reply | Promise<Reply> {
  const answer = core(headAsGet(request), context);
  return answer instanceof Promise ? answer.then(dropBody) : dropBody(answer);
}

/** The database, connected, with every model's counter and indexes in place; closed again if that fails. */
async function openPrepared(options: AppOptions): Promise<Database> {
  const database = await openDatabase(options);
  try {
    await prepareCollections(database.db, options.models);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** One record store per model, each with its time limit and, on the embedded engine, its change count. */
function recordStores(database: Database, options: AppOptions, limits: QueryLimits): Map<string, RecordStore> {
  const changeCount = database.collectionChangeCount;
  return new Map(options.models.map((model) => {
    const count = changeCount && (() => changeCount(model.collection));
    const store = new RecordStore(database.db, model.collection, {
      bounds: model,
      timeMs: model.queryTimeMs ?? limits.queryTimeMs,
      clock: options.clock,
      changeCount: count,
    });
    return [model.name, store];
  }));
}

/** What every handler reads of the app. */
function appState(options: AppOptions, checked: CheckedOptions, database: Database): AppState {
  const stores = recordStores(database, options, checked.limits);
  return {
    data: new DataStore(database.db, stores),
    registry: checked.registry,
    stores,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    language: options.language ?? "en",
    limits: checked.limits,
    cache: responseCacheOf(database, options),
    cursors: cursorSealerOf(options.cursorSecret),
    hooks: checked.hooks,
    serialize: options.serialize,
    access: checked.policy,
  };
}

/**
 * The app's error boundary: an unexpected error goes to the registered handler (`app.onError`),
 * logged first with the request's id, once: the handler is told, so the default one does not
 * log it again.
 */
class ErrorBoundary {
  handler: ErrorHandler | null = null;
  readonly languages: Languages;

  constructor(languages: Languages) {
    this.languages = languages;
  }

  readonly failed: FailedFetch = async (error, request, context) => {
    const registered = this.handler;
    const handler = registered &&
      ((e: unknown, r: Request, c: ErrorContext) => registered(e, r, { ...c, logged: logUnexpected(e, r, context) }));
    return await errorToReply(error, request, context.language, handler, this.languages);
  };
}

/** What the core answers with: the routes, the docs pages, the app's languages and its error boundary. */
interface CoreParts {
  router: PathRouter<BoundHandler>;
  docs: DocsRoutes | null;
  languages: Languages;
  failed: FailedFetch;
  /** The access rules every handler applies to the request's principal, if any. */
  policy: AccessPolicy | undefined;
}

/** The app's own answer to a request inside the service: HEAD as GET, the route's answer, errors through the boundary. */
function coreFetch(parts: CoreParts): CoreFetch {
  const { failed } = parts;
  const core: CoreFetch = (request, context) => {
    if (request.method === "HEAD") return answerHead(core, request, context);
    let answer: Reply | Promise<Reply>;
    try {
      answer = dispatch(parts, request, context);
    } catch (error) {
      return failed(error, request, context);
    }
    return answer instanceof Promise ? answer.catch((error: unknown) => failed(error, request, context)) : answer;
  };
  return core;
}

/** `<basePath>/openapi.json` and `/docs`, unless switched off. */
function docsOf(options: AppOptions, checked: CheckedOptions, table: readonly RouteEntry[]): DocsRoutes | null {
  if (options.docs === false) return null;
  // The document reads rateLimit: its shape is checked first, as the rate limiter will check it.
  if (options.rateLimit !== undefined) checkRateLimitOptions(options.rateLimit);
  const { basePath, registry, limits } = checked;
  return docsRoutes({
    basePath,
    document: buildOpenApiDocument({
      table,
      basePath,
      registry,
      limits,
      options: options.openapi,
      rateLimit: options.rateLimit,
      serialize: options.serialize !== undefined,
      access: checked.policy && { policy: checked.policy, auth: options.auth },
    }),
    language: options.language ?? "en",
  });
}

/** The routes as the service's per-model limits name them: method, path, model and handler. */
function serviceRoutes(table: readonly RouteEntry[]): TargetRoutes {
  return table.map(({ method, path, enabled, name, target }) => ({
    method,
    path,
    enabled,
    target: { model: target.route.model.name, handler: name },
  }));
}

/** Routes, core and service for an open database: everything that can still refuse an option. */
function serviceOf(options: AppOptions, checked: CheckedOptions, database: Database, boundary: ErrorBoundary): Service {
  const table = routeTable(
    checked.basePath,
    buildRoutes(appState(options, checked, database), options.models, checked.hooks),
  );
  const languages = boundary.languages;
  const docs = docsOf(options, checked, table);
  const { policy } = checked;
  const core = coreFetch({ router: buildRouter(table), docs, languages, failed: boundary.failed, policy });
  return new Service(options, {
    authenticator: options.auth === undefined ? undefined : new Authenticator(options.auth, database.db),
    db: database.db,
    languages,
    models: options.models,
    routes: serviceRoutes(table),
    failed: boundary.failed,
    queryTimeMs: checked.limits.queryTimeMs,
  }, core);
}

/** The running app over its service and database. */
function appOf(
  service: Service,
  database: Database,
  boundary: ErrorBoundary,
  registry: ModelRegistry,
  language: string,
): App {
  const app: App = {
    fetch: async (request, info) => toResponse(await service.answer(request, info)),
    answer: (request, info) => service.answer(request, info),
    refuse: (request, refusal) => service.refuse(request, refusal),
    onError(handler) {
      boundary.handler = handler;
      return app;
    },
    close: () => (service.flushLogs(), database.close()),
    client: database.client,
    db: database.db,
    models: registry,
    language,
    languages: boundary.languages,
  };
  return app;
}

/**
 * Builds the app: checks the models and hooks, connects the database (starting the embedded
 * engine when no URI is given), prepares counters and indexes, and registers every route.
 */
export async function createApp(options: AppOptions): Promise<App> {
  const checked = checkOptions(options);
  const boundary = new ErrorBoundary(new Languages(options.language, options.messages));
  const database = await openPrepared(options);
  try {
    const service = serviceOf(options, checked, database, boundary);
    return appOf(service, database, boundary, checked.registry, options.language ?? "en");
  } catch (error) {
    await database.close(); // a mistake found now must not leave the engine running
    throw error;
  }
}

export { ApiError };
