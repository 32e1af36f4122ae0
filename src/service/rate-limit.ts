import type { Db } from "mongodb";
import { HANDLER_NAMES, type HandlerName, type Model } from "../model/define.ts";
import { MongoRateLimitStore } from "./rate-limit-mongo.ts";
import { MemoryRateLimitStore, type RateLimitStore } from "./rate-limit-store.ts";

/** At most `max` requests per client in each fixed window of `windowMs` milliseconds. */
export interface RateLimitRule {
  windowMs: number;
  max: number;
}

/** A model's own limit, optionally with tighter ones for some of its handlers. */
export interface ModelRateLimit extends Partial<RateLimitRule> {
  handlers?: Partial<Record<HandlerName, RateLimitRule>>;
}

/** `createApp({ rateLimit })`: off unless given. */
export interface RateLimitOptions extends Partial<RateLimitRule> {
  /** The client a request counts for; default: its address (see `trustProxy`). */
  key?(request: Request, client: { address: string }): string;
  /** Where counters live: "memory" (default), "mongodb" (the app's database, shared), or your own. */
  store?: "memory" | "mongodb" | RateLimitStore;
  /** Collection of the "mongodb" store; default "rate_limits". */
  collection?: string;
  /** Limits per model name, counted separately from (and in addition to) the app-wide one. */
  models?: Record<string, ModelRateLimit>;
  /** The clock, in ms since the epoch (tests inject one); default Date.now. */
  now?: () => number;
}

/** The state of the tightest limit a request counted against. */
export interface RateLimitOutcome {
  limited: boolean;
  max: number;
  windowMs: number;
  remaining: number;
  /** Seconds until that window ends, at least 1. */
  resetSeconds: number;
}

interface Scope extends RateLimitRule {
  name: string;
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
 * the app with one line.
 */
export class RateLimiter {
  readonly #app: Scope | undefined;
  readonly #models = new Map<string, Scope>();
  readonly #handlers = new Map<string, Scope>();
  readonly #store: RateLimitStore;
  readonly #key: RateLimitOptions["key"];
  readonly #now: () => number;

  constructor(options: RateLimitOptions, models: ReadonlyMap<string, Model>, db: Db) {
    if (options.windowMs !== undefined || options.max !== undefined) {
      checkRule(options, "rateLimit");
      this.#app = { name: "app", windowMs: options.windowMs!, max: options.max! };
    }
    for (const [name, limit] of Object.entries(options.models ?? {})) this.#addModel(name, limit, models);
    this.#store = storeOf(options, db);
    this.#key = options.key;
    this.#now = options.now ?? Date.now;
  }

  #addModel(name: string, limit: ModelRateLimit, models: ReadonlyMap<string, Model>): void {
    if (!models.has(name)) throw new TypeError(`rateLimit.models names an unknown model ${name}; models are ${[...models.keys()].join(", ")}`);
    if (limit.windowMs !== undefined || limit.max !== undefined) {
      checkRule(limit, `rateLimit.models.${name}`);
      this.#models.set(name, { name, windowMs: limit.windowMs!, max: limit.max! });
    }
    for (const [handler, rule] of Object.entries(limit.handlers ?? {})) {
      if (!HANDLER_NAMES.includes(handler as HandlerName)) {
        throw new TypeError(`rateLimit.models.${name}.handlers has an unknown handler ${handler}; handlers are ${HANDLER_NAMES.join(", ")}`);
      }
      checkRule(rule, `rateLimit.models.${name}.handlers.${handler}`);
      this.#handlers.set(`${name} ${handler}`, { name: `${name}.${handler}`, ...rule });
    }
  }

  /** True when some limit is set for this model (so its requests need their target worked out). */
  get perModel(): boolean {
    return this.#models.size > 0 || this.#handlers.size > 0;
  }

  /**
   * Counts the request against every limit that applies to it and returns the tightest:
   * an exceeded one if any (the longest wait), otherwise the one with the fewest requests left.
   */
  async hit(request: Request, address: string, target: { model: string; handler: HandlerName } | undefined): Promise<RateLimitOutcome | undefined> {
    const scopes = this.#scopes(target);
    if (scopes.length === 0) return undefined;
    const key = this.#key ? this.#key(request, { address }) : address;
    const now = this.#now();
    let tightest: RateLimitOutcome | undefined;
    for (const scope of scopes) {
      const { count, resetAt } = await this.#store.hit(`${scope.name}|${key}`, scope.windowMs, now);
      const outcome = {
        limited: count > scope.max,
        max: scope.max,
        windowMs: scope.windowMs,
        remaining: Math.max(0, scope.max - count),
        resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
      };
      if (tightest === undefined || tighter(outcome, tightest)) tightest = outcome;
    }
    return tightest;
  }

  #scopes(target: { model: string; handler: HandlerName } | undefined): Scope[] {
    const scopes: Scope[] = [];
    if (this.#app) scopes.push(this.#app);
    if (target === undefined) return scopes;
    const model = this.#models.get(target.model);
    if (model) scopes.push(model);
    const handler = this.#handlers.get(`${target.model} ${target.handler}`);
    if (handler) scopes.push(handler);
    return scopes;
  }
}

function tighter(a: RateLimitOutcome, b: RateLimitOutcome): boolean {
  if (a.limited !== b.limited) return a.limited;
  return a.limited ? a.resetSeconds > b.resetSeconds : a.remaining < b.remaining;
}

function storeOf(options: RateLimitOptions, db: Db): RateLimitStore {
  const store = options.store ?? "memory";
  if (store === "memory") return new MemoryRateLimitStore();
  if (store === "mongodb") return new MongoRateLimitStore(db, options.collection);
  if (typeof store === "object" && store !== null && typeof store.hit === "function") return store;
  throw new TypeError(`rateLimit.store must be "memory", "mongodb" or an object with a hit() method, got ${JSON.stringify(store)}`);
}

/** The RateLimit-* headers (IETF draft form: limit, requests left, seconds until the window resets). */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(outcome.max),
    "ratelimit-remaining": String(outcome.remaining),
    "ratelimit-reset": String(outcome.resetSeconds),
  };
  if (outcome.limited) headers["retry-after"] = String(outcome.resetSeconds);
  return headers;
}
