/**
 * `createApp`'s options: their type, and every check that needs no database, so a mistake
 * stops start-up with one line before an engine runs. The checked forms are what app.ts wires.
 */
import type { ModelHooks } from "./handlers/context.ts";
import { HOOK_NAMES } from "./handlers/hooks.ts";
import { checkNesting } from "./handlers/nested-routes.ts";
import type { MessageOverrides } from "./i18n/languages.ts";
import type { Model, Serializer } from "./model/define.ts";
import { createRegistry, type ModelRegistry } from "./model/registry.ts";
import { checkKeys, isPlainObject } from "./model/strict.ts";
import type { OpenApiOptions } from "./openapi/document.ts";
import { checkSchemaNames } from "./openapi/names.ts";
import { AccessPolicy } from "./query/access.ts";
import { CursorSealer } from "./query/cursor.ts";
import { type QueryLimits, resolveLimits } from "./query/limits.ts";
import { type AuthOptions, checkAuthOptions } from "./service/auth.ts";
import type { ServiceOptions } from "./service/service.ts";
import type { DatabaseOptions } from "./store/connect.ts";

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

/** The cursor signer: keyed by `cursorSecret`, or randomly for this process. */
export function cursorSealerOf(secret: string | undefined): CursorSealer {
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

/** The options createApp checks before it opens the database, in the forms the app uses. */
export interface CheckedOptions {
  registry: ModelRegistry;
  hooks: Record<string, ModelHooks>;
  limits: QueryLimits;
  basePath: string;
  /** The models' access rules, compiled: with `auth`, or when any model declares `access`. */
  policy: AccessPolicy | undefined;
}

/** Every check that needs no database: a mistake stops start-up before an engine runs. */
export function checkOptions(options: AppOptions): CheckedOptions {
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
