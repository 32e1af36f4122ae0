import type { Db, MongoClient } from "mongodb";
import { ApiError } from "./errors.ts";
import { HOOK_NAMES, type ModelHooks } from "./handlers/context.ts";
import { parentParam } from "./handlers/nested.ts";
import type { AppState, Route } from "./handlers/route.ts";
import { Languages, type MessageOverrides } from "./i18n/languages.ts";
import { msg } from "./i18n/message.ts";
import { DEFAULT_BODY_LIMIT } from "./http/messages.ts";
import { errorToResponse, type ErrorHandler } from "./http/errors.ts";
import { ResponseCache } from "./http/response-cache.ts";
import { empty, errorResponse } from "./http/responses.ts";
import { buildRouter, pathnameOf, type GeneratedRoutes } from "./http/router.ts";
import type { Model } from "./model/define.ts";
import { createRegistry, type ModelRegistry } from "./model/registry.ts";
import { resolveLimits, type QueryLimits } from "./query/limits.ts";
import { openDatabase, type DatabaseOptions } from "./store/connect.ts";
import { ensureIndexes } from "./store/indexes.ts";
import { syncCounter } from "./store/ids.ts";
import { RecordStore } from "./store/records.ts";
import type { ConnectionInfo } from "./service/client.ts";
import { Service, type RequestContext, type ServiceOptions } from "./service/service.ts";

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
}

/** A running app: a fetch handler for any server, plus its database. */
export interface App {
  /**
   * Answers one request. Bound, so `Deno.serve(app.fetch)` works; `info` is what Deno.serve
   * (and the Node adapter) pass about the connection, used for the client's address.
   */
  fetch(request: Request, info?: ConnectionInfo): Promise<Response>;
  /** Registers the handler for unexpected errors (null removes it). */
  onError(handler: ErrorHandler | null): App;
  /** Closes the driver and, if one was started, the embedded engine. */
  close(): Promise<void>;
  readonly client: MongoClient;
  readonly db: Db;
  readonly models: ModelRegistry;
  readonly language: string;
}

function checkHooks(registry: ModelRegistry, hooks: Record<string, ModelHooks>): void {
  for (const [name, modelHooks] of Object.entries(hooks)) {
    if (!registry.has(name)) throw new TypeError(`Hooks given for unknown model ${name}`);
    for (const hook of Object.keys(modelHooks)) {
      if (!HOOK_NAMES.includes(hook as keyof ModelHooks)) {
        throw new TypeError(`Model ${name}: unknown hook ${hook}; hooks are ${HOOK_NAMES.join(", ")}`);
      }
    }
  }
}

/** One route per model, plus one nested route per hasMany relation (`/users/:userId/posts`). */
function buildRoutes(state: AppState, models: readonly Model[], hooks: Record<string, ModelHooks>): Route[] {
  const routeOf = (model: Model): Route => ({ app: state, model, store: state.stores.get(model.name)!, hooks: hooks[model.name] ?? {} });
  const routes = models.map(routeOf);
  for (const parent of models) {
    for (const rel of parent.relations.values()) {
      if (rel.type !== "hasMany") continue;
      const link = { model: parent, store: state.stores.get(parent.name)!, foreignKey: rel.foreignKey, param: parentParam(parent) };
      routes.push({ ...routeOf(state.registry.get(rel.model)!), parent: link });
    }
  }
  return routes;
}

async function prepareCollections(db: Db, models: readonly Model[]): Promise<void> {
  for (const model of models) {
    await syncCounter(db, model.collection);
    await ensureIndexes(db, model);
  }
}

/** HEAD is answered as GET with the body dropped, so headers (ETag, length) stay identical. */
function withoutBody(response: Response): Response {
  return new Response(null, { status: response.status, headers: response.headers });
}

async function dispatch(router: GeneratedRoutes, request: Request, language: string, languages: Languages): Promise<Response> {
  const response = router.fetch(request);
  if (response) return await response;
  const pathname = pathnameOf(request.url);
  const method = request.method;
  const allowed = router.allowedFor(method, pathname);
  if (allowed === null) return errorResponse(languages.text(language, msg("request.noRoute", { method, path: pathname })), 404, language);
  const allow = allowed.join(", ");
  if (method === "OPTIONS") return empty(204, language, { allow });
  return errorResponse(languages.text(language, msg("request.methodNotAllowed", { method, allow })), 405, language, { allow });
}

/**
 * Builds the app: checks the models and hooks, connects the database (starting the embedded
 * engine when no URI is given), prepares counters and indexes, and registers every route.
 */
export async function createApp(options: AppOptions): Promise<App> {
  const registry = createRegistry(options.models);
  const hooks = options.hooks ?? {};
  checkHooks(registry, hooks);
  const limits = resolveLimits(options.limits);
  const languages = new Languages(options.language, options.messages);
  const database = await openDatabase(options);
  try {
    await prepareCollections(database.db, options.models);
  } catch (error) {
    await database.close();
    throw error;
  }
  const language = options.language ?? "en";
  const stores = new Map(options.models.map((model) => [model.name, new RecordStore(database.db, model)]));
  const state: AppState = {
    db: database.db,
    registry,
    stores,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    language,
    limits,
    cache: database.changeCount && options.responseCache !== false ? new ResponseCache(database.changeCount) : undefined,
  };
  const routes = buildRoutes(state, options.models, hooks);
  const basePath = options.basePath ?? "/api/v1";
  const router = buildRouter(basePath, routes);
  let errorHandler: ErrorHandler | null = null;
  const core = async (request: Request, context: RequestContext): Promise<Response> => {
    if (request.method === "HEAD") return withoutBody(await core(new Request(request.url, { headers: request.headers }), context));
    try {
      return await dispatch(router, request, context.language, languages);
    } catch (error) {
      const handler = errorHandler && ((e: unknown, r: Request) => (service.logUnexpected(e, r, context), errorHandler!(e, r)));
      return await errorToResponse(error, request, context.language, handler, languages);
    }
  };
  let service: Service;
  try {
    service = new Service(options, { db: database.db, languages, models: options.models, basePath }, core);
  } catch (error) {
    await database.close();
    throw error;
  }
  const app: App = {
    fetch: (request, info) => service.fetch(request, info),
    onError(handler) {
      errorHandler = handler;
      return app;
    },
    close: () => database.close(),
    client: database.client,
    db: database.db,
    models: registry,
    language,
  };
  return app;
}

export { ApiError };
