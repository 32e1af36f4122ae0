/**
 * Bearer tokens: JWTs verified with `jose` (on Node and Deno alike) against a shared secret,
 * public keys (PEM or JWK), an inline JWK set or a JWKS URL fetched, cached and fetched again
 * when a token names a key id it does not know (key rotation without a restart). Never `none`,
 * never an HMAC verified with a public key: each algorithm family has its own keys.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  importSPKI,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import type { Principal } from "../model/access.ts";
import { checkKeys, isPlainObject } from "../model/strict.ts";

/** `auth.jwt`: how bearer tokens are verified and read. */
export interface JwtOptions {
  /** A shared secret (HS256, HS384, HS512), at least 32 characters. */
  secret?: string;
  /** Public keys: PEM (SPKI) text or public JWKs. */
  publicKeys?: readonly (string | JWK)[];
  /** A JWK set, inline. */
  jwks?: JSONWebKeySet;
  /** Where the identity provider publishes its JWK set (fetched, cached, refreshed on an unknown `kid`). */
  jwksUrl?: string;
  /** How long after a fetch an unknown `kid` may fetch the set again, in ms (default 30,000). */
  jwksCooldownMs?: number;
  /** The `iss` a token must carry (one of them). */
  issuer?: string | readonly string[];
  /** The `aud` a token must carry (one of them). */
  audience?: string | readonly string[];
  /** Algorithms accepted; default: those of the keys given (HS* for a secret, RS*, PS*, ES*, EdDSA for public keys). */
  algorithms?: readonly string[];
  /** Seconds of clock skew allowed on `exp` and `nbf` (default 5). */
  clockToleranceSeconds?: number;
  /** Claim path of the subject (default `sub`). */
  subject?: string;
  /** Claim path of the roles: a list of strings, or one string of space-separated roles (default `roles`). */
  roles?: string;
}

const JWT_KEYS = [
  "secret",
  "publicKeys",
  "jwks",
  "jwksUrl",
  "jwksCooldownMs",
  "issuer",
  "audience",
  "algorithms",
  "clockToleranceSeconds",
  "subject",
  "roles",
];
const HMAC = ["HS256", "HS384", "HS512"];
const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** A token that was refused, and why (for `WWW-Authenticate`'s error_description). */
export class InvalidToken extends Error {}

/** The value at a dotted claim path (`realm_access.roles`). */
function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function rolesOf(value: unknown): string[] {
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === "string") : [];
}

/** Why jose refused a token, said plainly. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "it has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "it is not valid yet";
    return `its ${error.claim} claim is not accepted`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "its algorithm is not accepted";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "its signature does not match";
  if (error instanceof errors.JWKSNoMatchingKey) return "no key matches its key id";
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return "it is malformed";
  if (error instanceof errors.JOSENotSupported) return "its algorithm is not supported";
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return "the key set cannot be fetched";
  }
  return "it cannot be verified";
}

/** PEM public keys, imported for each algorithm a token names (jose binds a key to one). */
function pemKeys(pems: readonly string[]): (alg: string) => Promise<CryptoKey[]> {
  const imported = new Map<string, Promise<CryptoKey[]>>();
  const load = async (alg: string): Promise<CryptoKey[]> => {
    const keys: CryptoKey[] = [];
    for (const pem of pems) {
      // A key of another type than the algorithm's does not import: it cannot verify such tokens.
      const key = await importSPKI(pem, alg).catch(() => undefined);
      if (key) keys.push(key as CryptoKey);
    }
    return keys;
  };
  return (alg) => {
    let keys = imported.get(alg);
    if (keys === undefined) imported.set(alg, keys = load(alg));
    return keys;
  };
}

/** The key for a token: the secret for HMAC, else the key set, the JWKS URL's set, or the PEM keys. */
function keyResolver(options: JwtOptions): JWTVerifyGetKey {
  const secret = options.secret === undefined ? undefined : new TextEncoder().encode(options.secret);
  const jwks = [...(options.publicKeys ?? [])].filter((key): key is JWK => typeof key !== "string");
  const local = options.jwks || jwks.length > 0
    ? createLocalJWKSet({ keys: [...(options.jwks?.keys ?? []), ...jwks] })
    : undefined;
  const remote = options.jwksUrl === undefined ? undefined : createRemoteJWKSet(new URL(options.jwksUrl), {
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
  });
  const pems = pemKeys([...(options.publicKeys ?? [])].filter((key): key is string => typeof key === "string"));
  return async (header, token) => {
    const alg = header.alg ?? "";
    if (HMAC.includes(alg)) {
      if (secret === undefined) throw new errors.JOSEAlgNotAllowed("no secret for HMAC");
      return secret;
    }
    if (local) {
      try {
        return await local(header, token);
      } catch (error) {
        if (!remote && (await pems(alg)).length === 0) throw error;
      }
    }
    if (remote) return await remote(header, token);
    const [key] = await pems(alg);
    if (!key) throw new errors.JWKSNoMatchingKey();
    return key;
  };
}

function algorithmsOf(options: JwtOptions): string[] {
  if (options.algorithms) {
    const refused = options.algorithms.filter((alg) => !HMAC.includes(alg) && !ASYMMETRIC.includes(alg));
    if (refused.length > 0) {
      throw new TypeError(`auth.jwt.algorithms: ${refused.join(", ")} is not accepted (never none)`);
    }
    return [...options.algorithms];
  }
  const asymmetric = options.publicKeys?.length || options.jwks || options.jwksUrl;
  return [...(options.secret ? HMAC : []), ...(asymmetric ? ASYMMETRIC : [])];
}

/** Stops start-up on a mistake in `auth.jwt`, with one line. */
function checkJwtOptions(options: JwtOptions): void {
  if (!isPlainObject(options as unknown)) throw new TypeError("auth.jwt must be an object");
  checkKeys("auth.jwt", options, JWT_KEYS);
  if (!options.secret && !options.publicKeys?.length && !options.jwks && !options.jwksUrl) {
    throw new TypeError("auth.jwt needs a secret, publicKeys, jwks or jwksUrl to verify tokens with");
  }
  if (options.secret !== undefined && (typeof options.secret !== "string" || options.secret.length < 32)) {
    throw new TypeError("auth.jwt.secret must be a string of at least 32 characters");
  }
  if (options.jwksUrl !== undefined && !URL.canParse(options.jwksUrl)) {
    throw new TypeError(`auth.jwt.jwksUrl must be a URL, got ${JSON.stringify(options.jwksUrl)}`);
  }
}

/** Verified tokens kept until they expire, so a token is verified once, not on every request. */
const MAX_KEPT = 10_000;

/**
 * Verifies bearer tokens and reads their principal. A verified token is kept (at most
 * {@link MAX_KEPT}) until its `exp`, so repeated requests with it cost a map lookup.
 */
export class TokenVerifier {
  readonly #options: JwtOptions;
  readonly #key: JWTVerifyGetKey;
  readonly #algorithms: string[];
  readonly #now: () => number;
  readonly #kept = new Map<string, { principal: Principal; until: number }>();

  constructor(options: JwtOptions, now: () => number = Date.now) {
    checkJwtOptions(options);
    this.#options = options;
    this.#algorithms = algorithmsOf(options);
    this.#key = keyResolver(options);
    this.#now = now;
  }

  /** The token's principal; throws {@link InvalidToken} saying why it is refused. */
  async verify(token: string): Promise<Principal> {
    const now = this.#now();
    const kept = this.#kept.get(token);
    if (kept && kept.until > now) return kept.principal;
    const { payload } = await this.#checked(token, now);
    const principal = this.#principalOf(payload);
    const until = typeof payload.exp === "number" ? payload.exp * 1000 : now + 60_000;
    if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(token, { principal, until });
    return principal;
  }

  async #checked(token: string, now: number) {
    const { issuer, audience, clockToleranceSeconds } = this.#options;
    try {
      return await jwtVerify(token, this.#key, {
        algorithms: this.#algorithms,
        issuer: issuer as string | string[] | undefined,
        audience: audience as string | string[] | undefined,
        clockTolerance: clockToleranceSeconds ?? 5,
        currentDate: new Date(now),
      });
    } catch (error) {
      throw new InvalidToken(reasonOf(error), { cause: error });
    }
  }

  #principalOf(payload: JWTPayload): Principal {
    const subject = claimAt(payload, this.#options.subject ?? "sub");
    const roles = rolesOf(claimAt(payload, this.#options.roles ?? "roles"));
    return Object.freeze({
      subject: typeof subject === "string" || typeof subject === "number" ? String(subject) : null,
      roles: Object.freeze([...new Set([...roles, "authenticated"])]),
      claims: Object.freeze({ ...payload }),
      via: "jwt",
    });
  }
}
