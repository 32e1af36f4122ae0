/**
 * API keys for services: each stored as the SHA-256 of the key (hex), never the key itself,
 * with the roles it grants, in the configuration or in a collection of the app's database
 * (`{ _id: <sha256 hex>, name, roles, revoked? }`), where keys can be added and revoked while
 * the app runs. A key read from the collection is kept for `cacheMs` (default 5 s), so a
 * revoked key stops working within that.
 */
import { createHash } from "node:crypto";
import type { Collection, Db } from "mongodb";
import type { Principal } from "../model/access.ts";
import { checkKeys, isPlainObject } from "../model/strict.ts";

/** One configured key. */
export interface ApiKey {
  /** What the key is for: the principal's subject. */
  name: string;
  /** SHA-256 of the key, in hex (`printf %s "$KEY" | sha256sum`). */
  sha256: string;
  roles: readonly string[];
}

/** `auth.apiKeys`: where keys are, and which header carries one. */
export interface ApiKeyOptions {
  keys?: readonly ApiKey[];
  /** A collection of keys (`{ _id: <sha256 hex>, name, roles, revoked? }`). */
  collection?: string;
  /** The request header holding the key (default `x-api-key`); `Authorization: ApiKey <key>` works too. */
  header?: string;
  /** How long a key read from the collection is kept, in ms (default 5,000). */
  cacheMs?: number;
}

interface StoredKey {
  _id: string;
  name?: string;
  roles?: unknown;
  revoked?: unknown;
}

const OPTION_KEYS = ["keys", "collection", "header", "cacheMs"];
const SHA256 = /^[0-9a-f]{64}$/;

/** The hex SHA-256 of a key, as keys are stored. */
export function keyHash(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

function principalOf(name: string, roles: readonly string[]): Principal {
  return Object.freeze({
    subject: name,
    roles: Object.freeze([...new Set([...roles, "authenticated"])]),
    claims: Object.freeze({ apiKey: name }),
    via: "apiKey",
  });
}

function checkOptions(options: ApiKeyOptions): void {
  if (!isPlainObject(options as unknown)) throw new TypeError("auth.apiKeys must be an object");
  checkKeys("auth.apiKeys", options, OPTION_KEYS);
  if (!options.keys?.length && options.collection === undefined) {
    throw new TypeError("auth.apiKeys needs keys or a collection");
  }
  options.keys?.forEach((key, i) => {
    if (!isPlainObject(key) || typeof key.name !== "string" || !SHA256.test(String(key.sha256))) {
      throw new TypeError(`auth.apiKeys.keys[${i}] must be { name, sha256 (64 hex digits), roles }`);
    }
    if (!Array.isArray(key.roles) || !key.roles.every((role) => typeof role === "string")) {
      throw new TypeError(`auth.apiKeys.keys[${i}].roles must be a list of role names`);
    }
  });
}

/** Checks API keys against the configured ones and the key collection. */
export class ApiKeys {
  readonly header: string;
  readonly #configured: ReadonlyMap<string, Principal>;
  readonly #collection: Collection<StoredKey> | undefined;
  readonly #cacheMs: number;
  readonly #now: () => number;
  readonly #kept = new Map<string, { principal: Principal | null; until: number }>();

  constructor(options: ApiKeyOptions, db: Db, now: () => number = Date.now) {
    checkOptions(options);
    this.header = (options.header ?? "x-api-key").toLowerCase();
    this.#configured = new Map((options.keys ?? []).map((key) => [key.sha256, principalOf(key.name, key.roles)]));
    this.#collection = options.collection === undefined ? undefined : db.collection<StoredKey>(options.collection);
    this.#cacheMs = options.cacheMs ?? 5_000;
    this.#now = now;
  }

  /** The key's principal, or null for a key that is unknown or revoked. */
  async principal(key: string): Promise<Principal | null> {
    const hash = keyHash(key);
    const configured = this.#configured.get(hash);
    if (configured || !this.#collection) return configured ?? null;
    const now = this.#now();
    const kept = this.#kept.get(hash);
    if (kept && kept.until > now) return kept.principal;
    const stored = await this.#collection.findOne({ _id: hash }, { maxTimeMS: 5_000 });
    const principal = stored && stored.revoked !== true
      ? principalOf(String(stored.name ?? hash.slice(0, 8)), rolesOf(stored))
      : null;
    if (this.#kept.size >= 10_000) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(hash, { principal, until: now + this.#cacheMs });
    return principal;
  }
}

function rolesOf(stored: StoredKey): string[] {
  return Array.isArray(stored.roles) ? stored.roles.filter((role): role is string => typeof role === "string") : [];
}
