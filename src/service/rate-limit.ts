import type { Db } from "mongodb";
import { HANDLER_NAMES, type HandlerName, type Model } from "../model/define.ts";
import { checkKeys, isPlainObject } from "../model/strict.ts";
import { MongoRateLimitStore } from "./rate-limit-mongo.ts";
import { MemoryRateLimitStore, type RateLimitStore, type WindowCount } from "./rate-limit-store.ts";

/** At most `max` requests per client in each fixed window of `windowMs` milliseconds. */
export interface RateLimitRule {
  windowMs: number;
  max: number;
}

/** A model's own limit, optionally with tighter ones for some of its handlers. */
export interface ModelRateLimit extends Partial<RateLimitRule> {
  handlers?: Partial<Record<HandlerName, RateLimitRule>>;
}

/** Who a request is from, as a rate limit's key function sees it. */
export interface RateLimitClient {
  /** The client's address. */
  address: string;
  /** With `auth`: the principal's subject, or undefined for anonymous requests. */
  subject?: string | null;
}

/** `createApp({ rateLimit })`: off unless given. */
export interface RateLimitOptions extends Partial<RateLimitRule> {
  /**
   * The client a request counts for; default: its address (see `trustProxy`). With `auth`,
   * `client.subject` is the principal's subject, to count per user: `(r, c) => c.subject ?? c.address`.
   */
  key?(request: Request, client: RateLimitClient): string;
  /** Where counters live: "memory" (default), "mongodb" (the app's database, shared), or your own. */
  store?: "memory" | "mongodb" | RateLimitStore;
  /** Collection of the "mongodb" store; default "rate_limits". */
  collection?: string;
  /** Limits per model name, counted separately from (and in addition to) the app-wide one. */
  models?: Record<string, ModelRateLimit>;
  /** The clock, in ms since the epoch (tests inject one); default Date.now. */
  now?: () => number;
}

const NONE: ReadonlySet<string> = new Set();

/** The state of the tightest limit a request counted against. */
export interface RateLimitOutcome {
  limited: boolean;
  max: number;
  /** `max` as text, for the RateLimit-Limit header. */
  maxText: string;
  windowMs: number;
  remaining: number;
  /** Seconds until that window ends, at least 1. */
  resetSeconds: number;
}

interface Scope extends RateLimitRule {
  name: string;
  /** `max` as the RateLimit-Limit header's text, made once. */
  maxText: string;
  /** Where this scope counts: its own memory store, or the shared one (keys then carry the scope's name). */
  store: RateLimitStore;
  shared: boolean;
}

type ScopeRule = Pick<Scope, "name" | "windowMs" | "max">;

const RATE_LIMIT_KEYS = ["windowMs", "max", "key", "store", "collection", "models", "now"];
const MODEL_LIMIT_KEYS = ["windowMs", "max", "handlers"];
const RULE_KEYS = ["windowMs", "max"];

/** `value` as an object of options, or one line saying what `where` must be. */
function optionsObject(value: unknown, where: string, keys: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw new TypeError(`${where} must be an object such as { windowMs: 60000, max: 100 }, got ${String(value)}`);
  }
  checkKeys(where, value, keys);
  return value;
}

/** Stops start-up on a mistake in the rateLimit option's shape, with one line (the rules' numbers are checked as they are read). */
export function checkRateLimitOptions(options: RateLimitOptions): void {
  optionsObject(options, "rateLimit", RATE_LIMIT_KEYS);
  for (const name of ["key", "now"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`rateLimit.${name} must be a function, got ${JSON.stringify(options[name])}`);
    }
  }
  const { collection } = options;
  if (collection !== undefined && !(typeof collection === "string" && /^[^$\0]+$/.test(collection))) {
    throw new TypeError(`rateLimit.collection must be a collection name, got ${JSON.stringify(collection)}`);
  }
  if (options.models !== undefined && !isPlainObject(options.models)) {
    throw new TypeError(`rateLimit.models must be an object of limits by model name, got ${String(options.models)}`);
  }
  for (const [name, limit] of Object.entries(options.models ?? {})) {
    const where = `rateLimit.models.${name}`;
    const { windowMs, max, handlers } = optionsObject(limit, where, MODEL_LIMIT_KEYS);
    if (windowMs === undefined && max === undefined && Object.keys(handlers ?? {}).length === 0) {
      throw new TypeError(`${where} sets no limit: give windowMs and max, or limits per handler in handlers`);
    }
    if (handlers === undefined) continue;
    if (!isPlainObject(handlers)) throw new TypeError(`${where}.handlers must be an object, got ${String(handlers)}`);
    for (const [handler, rule] of Object.entries(handlers)) {
      optionsObject(rule, `${where}.handlers.${handler}`, RULE_KEYS);
    }
  }
  const hasModels = Object.keys(options.models ?? {}).length > 0;
  if (options.windowMs === undefined && options.max === undefined && !hasModels) {
    throw new TypeError("rateLimit sets no limit: give windowMs and max, limits per model in models, or leave it out");
  }
}

function checkRule(rule: Partial<RateLimitRule>, where: string): void {
  for (const name of ["windowMs", "max"] as const) {
    const value = rule[name];
    if (!Number.isSafeInteger(value) || value! < 1) {
      throw new TypeError(`${where}.${name} must be a positive integer, got ${JSON.stringify(value)}`);
    }
  }
}

/**
 * Counts requests against the configured limits: app-wide, per model and per handler, each
 * in its own fixed window. Built once at start-up, where every mistake in the options stops
 * the app with one line. With the memory store a hit is synchronous and allocates only its
 * outcome.
 */
export class RateLimiter {
  readonly #app: Scope | undefined;
  /** `[app]` (or none): the scopes of a request no per-model limit applies to, made once. */
  readonly #appOnly: readonly Scope[];
  readonly #models = new Map<string, Scope>();
  readonly #handlers = new Map<string, Scope>();
  readonly #store: RateLimitStore | undefined;
  readonly #key: RateLimitOptions["key"];
  readonly #now: () => number;

  constructor(options: RateLimitOptions, models: ReadonlyMap<string, Model>, db: Db, timeMs: number) {
    checkRateLimitOptions(options);
    this.#store = sharedStoreOf(options, db, timeMs);
    if (options.windowMs !== undefined || options.max !== undefined) {
      checkRule(options, "rateLimit");
      this.#app = this.#scope({ name: "app", windowMs: options.windowMs!, max: options.max! });
    }
    this.#appOnly = this.#app ? [this.#app] : [];
    for (const [name, limit] of Object.entries(options.models ?? {})) this.#addModel(name, limit, models);
    this.#key = options.key;
    this.#now = options.now ?? Date.now;
  }

  #scope(rule: ScopeRule): Scope {
    const shared = this.#store !== undefined;
    return { ...rule, maxText: String(rule.max), store: this.#store ?? new MemoryRateLimitStore(), shared };
  }

  #addModel(name: string, limit: ModelRateLimit, models: ReadonlyMap<string, Model>): void {
    if (!models.has(name)) {
      throw new TypeError(
        `rateLimit.models names an unknown model ${name}; models are ${[...models.keys()].join(", ")}`,
      );
    }
    if (limit.windowMs !== undefined || limit.max !== undefined) {
      checkRule(limit, `rateLimit.models.${name}`);
      this.#models.set(name, this.#scope({ name, windowMs: limit.windowMs!, max: limit.max! }));
    }
    for (const [handler, rule] of Object.entries(limit.handlers ?? {})) {
      if (!HANDLER_NAMES.includes(handler as HandlerName)) {
        throw new TypeError(
          `rateLimit.models.${name}.handlers has an unknown handler ${handler}; handlers are ${
            HANDLER_NAMES.join(", ")
          }`,
        );
      }
      checkRule(rule, `rateLimit.models.${name}.handlers.${handler}`);
      this.#handlers.set(
        `${name} ${handler}`,
        this.#scope({ name: `${name}.${handler}`, windowMs: rule.windowMs, max: rule.max }),
      );
    }
  }

  /** True when some limit is set for this model (so its requests need their target worked out). */
  get perModel(): boolean {
    return this.#models.size > 0 || this.#handlers.size > 0;
  }

  /**
   * Counts the request against every limit that applies to it and returns the tightest:
   * an exceeded one if any (the longest wait), otherwise the one with the fewest requests left.
   * Synchronous with the memory store; a promise with any other.
   */
  hit(
    request: Request,
    client: RateLimitClient,
    target: { model: string; handler: HandlerName } | undefined,
    related: ReadonlySet<string> = NONE,
  ): RateLimitOutcome | Promise<RateLimitOutcome> | undefined {
    const scopes = related.size === 0 ? this.#scopes(target) : this.#withRelated(target, related);
    if (scopes.length === 0) return undefined;
    const key = this.#key ? this.#key(request, client) : client.address;
    const now = this.#now();
    if (this.#store !== undefined) return this.#hitShared(scopes, key, now);
    let tightest: RateLimitOutcome | undefined;
    for (const scope of scopes) {
      const outcome = outcomeOf(scope, scope.store.hit(key, scope.windowMs, now) as WindowCount, now);
      if (tightest === undefined || tighter(outcome, tightest)) tightest = outcome;
    }
    return tightest;
  }

  async #hitShared(scopes: readonly Scope[], key: string, now: number): Promise<RateLimitOutcome> {
    let tightest: RateLimitOutcome | undefined;
    for (const scope of scopes) {
      const outcome = outcomeOf(scope, await scope.store.hit(`${scope.name}|${key}`, scope.windowMs, now), now);
      if (tightest === undefined || tighter(outcome, tightest)) tightest = outcome;
    }
    return tightest!;
  }

  /**
   * The scopes of a request that also reads other models' records (through `with` or related
   * conditions in `q`): each such model's own limit and its `paginate` limit, since a relation
   * reads a list of them, each counted once.
   */
  #withRelated(target: { model: string; handler: HandlerName } | undefined, related: ReadonlySet<string>): Scope[] {
    const scopes = new Set(this.#scopes(target));
    for (const model of related) {
      for (const scope of this.#scopes({ model, handler: "paginate" })) scopes.add(scope);
    }
    return [...scopes];
  }

  /** True when `model` has a limit of its own or of its `paginate`: then reads of it through relations count. */
  limits(model: string): boolean {
    return this.#models.has(model) || this.#handlers.has(`${model} paginate`);
  }

  #scopes(target: { model: string; handler: HandlerName } | undefined): readonly Scope[] {
    if (target === undefined) return this.#appOnly;
    const model = this.#models.get(target.model);
    const handler = this.#handlers.get(`${target.model} ${target.handler}`);
    if (model === undefined && handler === undefined) return this.#appOnly;
    const scopes = [...this.#appOnly];
    if (model) scopes.push(model);
    if (handler) scopes.push(handler);
    return scopes;
  }
}

function outcomeOf(scope: Scope, { count, resetAt }: WindowCount, now: number): RateLimitOutcome {
  return {
    limited: count > scope.max,
    max: scope.max,
    maxText: scope.maxText,
    windowMs: scope.windowMs,
    remaining: Math.max(0, scope.max - count),
    resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
  };
}

function tighter(a: RateLimitOutcome, b: RateLimitOutcome): boolean {
  if (a.limited !== b.limited) return a.limited;
  return a.limited ? a.resetSeconds > b.resetSeconds : a.remaining < b.remaining;
}

/** The store every scope shares, or undefined for the default: a memory store per scope. */
function sharedStoreOf(options: RateLimitOptions, db: Db, timeMs: number): RateLimitStore | undefined {
  const store = options.store ?? "memory";
  if (store === "memory") return undefined;
  if (store === "mongodb") return new MongoRateLimitStore(db, options.collection, timeMs);
  if (typeof store === "object" && store !== null && typeof store.hit === "function") return store;
  throw new TypeError(
    `rateLimit.store must be "memory", "mongodb" or an object with a hit() method, got ${JSON.stringify(store)}`,
  );
}

/** Sets the RateLimit-* headers on `headers` (IETF draft form: limit, requests left, seconds until the window resets), and Retry-After when limited. */
export function setRateLimitHeaders(headers: Record<string, string>, outcome: RateLimitOutcome): void {
  headers["ratelimit-limit"] = outcome.maxText;
  headers["ratelimit-remaining"] = countText(outcome.remaining);
  const reset = secondsText(outcome.resetSeconds);
  headers["ratelimit-reset"] = reset;
  if (outcome.limited) headers["retry-after"] = reset;
}

/** "000" to "999": the last three digits of a count. */
const LAST_DIGITS = Array.from({ length: 1000 }, (_, digits) => String(digits).padStart(3, "0"));

/**
 * `String(count)` for a count that is new on almost every request. `String` keeps the text of
 * each number it converts in V8's number-to-string cache; fed a new number per request, that
 * cache kept thousands of young strings alive through every scavenge, which doubled the
 * scavenges' cost. Here only the thousands are converted (a new number once per 1000 requests)
 * and the last three digits come from a table.
 * @example countText(999_999_012) // "999999012"
 */
export function countText(count: number): string {
  if (count < 1000 || !Number.isSafeInteger(count)) return String(count);
  return String(Math.floor(count / 1000)) + LAST_DIGITS[count % 1000]!;
}

let lastSeconds = -1;
let lastSecondsText = "";

/** `String(seconds)`, made once while consecutive requests share a reset time (for a second, at most). */
function secondsText(seconds: number): string {
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastSecondsText = String(seconds);
  }
  return lastSecondsText;
}
