import type { Db, MongoClient } from "mongodb";
import { type DocsRoutes, docsRoutes } from "./docs-page/routes.ts";
import { ApiError } from "./errors.ts";
import type { ModelHooks } from "./handlers/context.ts";
import { HOOK_NAMES } from "./handlers/hooks.ts";
import { checkNesting, nestedRoutes } from "./handlers/nested-routes.ts";
import type { AppState, Route } from "./handlers/route.ts";
import { Languages, type MessageOverrides } from "./i18n/languages.ts";
import { msg, type Translator } from "./i18n/message.ts";
import { DEFAULT_BODY_LIMIT } from "./http/messages.ts";
import { type ErrorContext, type ErrorHandler, errorToReply } from "./http/errors.ts";
import { ResponseCache } from "./http/response-cache.ts";
import { dropBody, headAsGet } from "./http/head.ts";
import { type Refusal, type Reply, type ReplyHandler, toResponse } from "./http/reply.ts";
import { empty, errorReply } from "./http/responses.ts";
import { buildRouter, pathnameOf, type PathRouter } from "./http/router.ts";
import { type BoundHandler, type RouteEntry, routeTable } from "./handlers/table.ts";
import type { Model, Serializer } from "./model/define.ts";
import { buildOpenApiDocument, type OpenApiOptions } from "./openapi/document.ts";
import { checkSchemaNames } from "./openapi/names.ts";
import { createRegistry, type ModelRegistry } from "./model/registry.ts";
import { uniqueIndexFilter } from "./model/validate.ts";
import { CursorSealer } from "./query/cursor.ts";
import { checkKeys, isPlainObject } from "./model/strict.ts";
import { type QueryLimits, resolveLimits } from "./query/limits.ts";
import { type Database, type DatabaseOptions, openDatabase } from "./store/connect.ts";
import { ensureIndexes } from "./store/indexes.ts";
import { refuseHiddenRecords } from "./store/former-collections.ts";
import { syncCounter } from "./store/ids.ts";
import { RecordStore } from "./store/records.ts";
import { DataStore } from "./store/data-store.ts";
import { AccessPolicy, RequestAccess } from "./query/access.ts";
import { ANONYMOUS } from "./model/access.ts";
import { Authenticator, type AuthOptions, checkAuthOptions } from "./service/auth.ts";
import type { ConnectionInfo } from "./service/client.ts";
import {
  type CoreFetch,
  type FailedFetch,
  logUnexpected,
  type RequestContext,
  Service,
  type ServiceOptions,
} from "./service/service.ts";
import { checkRateLimitOptions } from "./service/rate-limit.ts";
import type { TargetRoutes } from "./service/target.ts";

/** Everything `createApp` accepts. Only `models` is required. */
export interface AppOptions extends DatabaseOptions, ServiceOptions {
  models: readonly Model[];
  /** Hooks by model name: `{ Post: { onBeforeInsert(ctx) { ... } } }`. */
  hooks?: Record<string, ModelHooks>;
  /** Largest accepted request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** The default language: messages and Content-Language when Accept-Language names none the app speaks (default "en"). */
  language?: string;
  /** Per language, message texts that replace the shipped ones or add a language: `{ es: { "record.notFound": "..." } }`. */
  messages?: MessageOverrides;
  /** Query-language limits; unset ones keep their defaults. */
  limits?: Partial<QueryLimits>;
  /** Path prefix of the generated routes (default "/api/v1"). */
  basePath?: string;
  /**
   * Keep GET responses (SHOW and PAGINATE of models without hooks for them) until the next
   * write. Exact, and only possible on the embedded engine, which sees every write; ignored on
   * MongoDB. Default true.
   */
  responseCache?: boolean;
  /**
   * Key that signs list cursors. Unset: a random one per process, so cursors stop working when
   * the process restarts; set it (the same on every instance) to keep them valid across restarts.
   */
  cursorSecret?: string;
  /** Title, version, description and servers of the OpenAPI document. */
  openapi?: OpenApiOptions;
  /** `false` switches off `<basePath>/openapi.json` and the `/docs` page (default true). */
  docs?: boolean;
  /** Where record timestamps come from (default: the system clock). Tests inject one instead of sleeping. */
  clock?: () => Date;
  /** Shapes every record a response carries, of every model, after the model's own `serialize`. */
  serialize?: Serializer;
  /**
   * Who a request is from: bearer JWTs, API keys or your own `authenticate`. Given, every model
   * is closed but what its `access` rules open. Without it every request is anonymous: models
   * without `access` stay open to all, and those with it apply their `anonymous` rules.
   */
  auth?: AuthOptions;
}

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

// A record over AppOptions' keys, so an option added to the interface but not here fails to compile.
const APP_OPTION_KEYS = Object.keys(
  {
    models: 1,
    hooks: 1,
    bodyLimit: 1,
    language: 1,
    limits: 1,
    basePath: 1,
    responseCache: 1,
    uri: 1,
    dataDir: 1,
    engineThread: 1,
    dbName: 1,
    clientOptions: 1,
    earlyEngine: 1,
    engineTools: 1,
    clock: 1,
    cursorSecret: 1,
    openapi: 1,
    docs: 1,
    messages: 1,
    rateLimit: 1,
    cors: 1,
    trustProxy: 1,
    health: 1,
    serialize: 1,
    auth: 1,
  } satisfies Record<keyof AppOptions, 1>,
);

function checkHooks(registry: ModelRegistry, hooks: Record<string, ModelHooks>): void {
  for (const [name, modelHooks] of Object.entries(hooks)) {
    if (!registry.has(name)) {
      throw new TypeError(`Hooks given for unknown model ${name}; models are ${[...registry.keys()].join(", ")}`);
    }
    if (!isPlainObject(modelHooks)) throw new TypeError(`Hooks of model ${name} must be an object of functions`);
    checkKeys(`Hooks of model ${name}`, modelHooks, HOOK_NAMES);
    for (const [hook, fn] of Object.entries(modelHooks)) {
      if (typeof fn !== "function") throw new TypeError(`Hooks of model ${name}: ${hook} must be a function`);
    }
  }
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

/** The cursor signer: keyed by `cursorSecret`, or randomly for this process. */
function cursorSealerOf(secret: string | undefined): CursorSealer {
  if (secret === undefined) return CursorSealer.random();
  if (typeof secret !== "string" || secret.length < 16) {
    throw new TypeError("cursorSecret must be a string of at least 16 characters");
  }
  return new CursorSealer(new TextEncoder().encode(secret));
}

/**
 * `basePath` as routes, the OpenAPI document and the docs page all use it: no trailing `/`
 * (`"/"` is `""`, the root), so `<basePath>/users` and `<basePath>/openapi.json` never hold `//`.
 * A form that cannot be one path prefix stops start-up with one line.
 */
function normaliseBasePath(value: unknown): string {
  if (value === undefined) return "/api/v1";
  const trimmed = typeof value === "string" ? value.replace(/\/+$/, "") : undefined;
  if (trimmed === undefined || !/^(\/[A-Za-z0-9._~!$&'()*+,;=@%-]+)*$/.test(trimmed)) {
    throw new TypeError(
      `basePath must be a path such as "/api/v1" ("/" or "" for none): starting with /, without //, :, ?, # or spaces; got ${
        JSON.stringify(value)
      }`,
    );
  }
  return trimmed;
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

/** The options createApp checks before it opens the database, in the forms the app uses. */
interface CheckedOptions {
  registry: ModelRegistry;
  hooks: Record<string, ModelHooks>;
  limits: QueryLimits;
  basePath: string;
  /** The models' access rules, compiled: with `auth`, or when any model declares `access`. */
  policy: AccessPolicy | undefined;
}

/** Every check that needs no database: a mistake stops start-up before an engine runs. */
function checkOptions(options: AppOptions): CheckedOptions {
  checkKeys("createApp options", options, APP_OPTION_KEYS);
  const registry = createRegistry(options.models);
  const hooks = options.hooks ?? {};
  checkHooks(registry, hooks);
  checkNesting(options.models);
  const limits = resolveLimits(options.limits);
  const basePath = normaliseBasePath(options.basePath);
  if (options.docs !== false) checkSchemaNames(options.models);
  if (options.serialize !== undefined && typeof options.serialize !== "function") {
    throw new TypeError("serialize must be a function");
  }
  if (options.auth !== undefined) checkAuthOptions(options.auth);
  const rules = options.auth !== undefined || options.models.some((model) => model.access !== undefined);
  const closed = options.auth !== undefined;
  const policy = rules ? new AccessPolicy(registry, options.auth?.roles ?? [], limits, closed) : undefined;
  return { registry, hooks, limits, basePath, policy };
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
