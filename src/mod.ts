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

// First, on Node: keeps node's tick records on V8's fast path (see adapters/node/tick-shape.ts).
import "./adapters/node/tick-shape.ts";

export { type App, type AppOptions, createApp } from "./app.ts";
export { defineConfig, type ProjectConfig } from "./config.ts";
export type { AuthOptions } from "./service/auth.ts";
export type { JwtOptions } from "./service/tokens.ts";
export type { ApiKeyOptions } from "./service/api-keys.ts";
export {
  defineModel,
  type FieldKind,
  type HandlerName,
  type IndexDefinition,
  type Model,
  type ModelDefinition,
  type OnDelete,
  type Relation,
  type RelationDefinition,
  type RelationType,
  type SerializeContext,
  type Serializer,
} from "./model/define.ts";
export type { ModelRegistry } from "./model/registry.ts";
export {
  type AccessDefinition,
  type AccessRule,
  ANONYMOUS,
  type Operation,
  type Principal,
  principal,
  type RoleRules,
} from "./model/access.ts";
export type { DatabaseOptions } from "./store/connect.ts";
export { email, id } from "./model/types.ts";
export { ApiError, type ApiErrorOptions, type FieldErrors, StartupError, ValidationError } from "./errors.ts";
export { defaultErrorHandler, type ErrorContext, type ErrorHandler } from "./http/errors.ts";
export type { FullBody, HeaderRecord, Refusal, Reply, ReplyHandler } from "./http/reply.ts";
export {
  defineHooks,
  type DeleteContext,
  type HookContext,
  type InsertContext,
  type ListQuery,
  type ModelHooks,
  type PaginateContext,
  type PaginateResult,
  type RelationContext,
  type ShowContext,
  type ShowQuery,
  type StoredRecord,
  type UpdateContext,
} from "./handlers/context.ts";
export type { ApiRecord } from "./model/serialize.ts";
export type { QueryLimits } from "./query/limits.ts";
export type { Condition, RelatedCondition } from "./plan/conditions.ts";
export type { Pagination } from "./query/page.ts";
export type { WithNode } from "./query/with.ts";
export { Languages, type MessageOverrides, SHIPPED_CATALOGS } from "./i18n/languages.ts";
export type { Message, MessageParam, Translator } from "./i18n/message.ts";
export type { Catalog, MessageKey } from "./i18n/catalog-en.ts";
export { configureLogging, loggingFromEnv, type LoggingOptions } from "./service/logging.ts";
export type { ModelRateLimit, RateLimitOptions, RateLimitRule } from "./service/rate-limit.ts";
export { MemoryRateLimitStore, type RateLimitStore, type WindowCount } from "./service/rate-limit-store.ts";
export { MongoRateLimitStore } from "./service/rate-limit-mongo.ts";
export type { CorsOptions } from "./service/cors.ts";
export type { ConnectionInfo, TrustProxy } from "./service/client.ts";
