/**
 * The public API (`mongorest`): everything a user needs to define models and hooks and to run
 * an app. Runtime adapters are separate entry points: `mongorest/node` (node:http),
 * `mongorest/serve` (whatever runtime runs it), `mongorest/embedded` (the engine on its own),
 * `mongorest/cli` (serving a project folder, as `npx mongorest` does).
 *
 * ```ts
 * const app = await createApp({ models: [User], hooks: { User: userHooks } });
 * app.onError(defaultErrorHandler);
 * ```
 */
export { createApp, type App, type AppOptions } from "./app.ts";
export {
  defineModel,
  type Model,
  type ModelDefinition,
  type RelationDefinition,
  type RelationType,
  type Relation,
  type IndexDefinition,
  type HandlerName,
  type FieldKind,
  type Serializer,
  type SerializeContext,
} from "./model/define.ts";
export type { ModelRegistry } from "./model/registry.ts";
export type { DatabaseOptions } from "./store/connect.ts";
export { email, id } from "./model/types.ts";
export { ApiError, ValidationError, type ApiErrorOptions, type FieldErrors } from "./errors.ts";
export { defaultErrorHandler, type ErrorContext, type ErrorHandler } from "./http/errors.ts";
export {
  defineHooks,
  type ModelHooks,
  type HookContext,
  type PaginateContext,
  type ShowContext,
  type InsertContext,
  type UpdateContext,
  type DeleteContext,
  type RelationContext,
  type StoredRecord,
  type ListQuery,
  type PaginateResult,
} from "./handlers/context.ts";
export type { ApiRecord } from "./model/serialize.ts";
export type { QueryLimits } from "./query/limits.ts";
export type { ShowQuery } from "./query/plan.ts";
export type { Pagination } from "./query/page.ts";
export type { WithNode } from "./query/with.ts";
export { Languages, SHIPPED_CATALOGS, type MessageOverrides } from "./i18n/languages.ts";
export type { Translator } from "./i18n/message.ts";
export type { Catalog, MessageKey } from "./i18n/catalog-en.ts";
export { configureLogging, loggingFromEnv, type LoggingOptions } from "./service/logging.ts";
export type { RateLimitOptions, RateLimitRule, ModelRateLimit } from "./service/rate-limit.ts";
export { MemoryRateLimitStore, type RateLimitStore, type WindowCount } from "./service/rate-limit-store.ts";
export { MongoRateLimitStore } from "./service/rate-limit-mongo.ts";
export type { CorsOptions } from "./service/cors.ts";
export type { ConnectionInfo, TrustProxy } from "./service/client.ts";
