/**
 * Who a request is from (`createApp({ auth })`): a bearer JWT, an API key, or your own
 * `authenticate(request)`; a request with none of them is the anonymous principal. Credentials
 * that are sent but do not hold are a 401 with `WWW-Authenticate` (RFC 6750's `invalid_token`
 * for a bearer token); what the principal may then do is the models' access rules' business.
 */
import type { Db } from "mongodb";
import { apiError } from "../errors.ts";
import { ANONYMOUS, type Principal } from "../model/access.ts";
import { checkKeys, isPlainObject } from "../model/strict.ts";
import { type ApiKeyOptions, ApiKeys } from "./api-keys.ts";
import { InvalidToken, type JwtOptions, TokenVerifier } from "./tokens.ts";

/** `createApp({ auth })`. Configured at all, it closes every model that does not open itself (`access`). */
export interface AuthOptions {
  /** The roles access rules may name, besides the built-in `anonymous` and `authenticated`. */
  roles?: readonly string[];
  /** Bearer JWTs (`Authorization: Bearer <token>`). */
  jwt?: JwtOptions;
  /** API keys (`x-api-key: <key>`, or `Authorization: ApiKey <key>`). */
  apiKeys?: ApiKeyOptions;
  /**
   * Your own: called when a request carries no token or key the options above take; returns
   * the principal, or null for anonymous (throw an ApiError with 401 to refuse credentials).
   */
  authenticate?: (request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;
  /** The clock for token lifetimes and key caching, in ms since the epoch (tests inject one); default Date.now. */
  now?: () => number;
}

const AUTH_KEYS = ["roles", "jwt", "apiKeys", "authenticate", "now"];
const ROLE = /^[A-Za-z][A-Za-z0-9_.:-]*$/;

/** Stops start-up on an `auth` option of the wrong shape, with one line naming it. */
export function checkAuthOptions(options: AuthOptions): void {
  if (!isPlainObject(options as unknown)) throw new TypeError("auth must be an object such as { jwt: { secret } }");
  checkKeys("auth", options, AUTH_KEYS);
  if (!options.jwt && !options.apiKeys && !options.authenticate) {
    throw new TypeError("auth sets no way in: give jwt, apiKeys or authenticate");
  }
  for (const role of options.roles ?? []) {
    if (typeof role !== "string" || !ROLE.test(role)) {
      throw new TypeError(`auth.roles: ${JSON.stringify(role)} is not a role name`);
    }
  }
  for (const name of ["authenticate", "now"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`auth.${name} must be a function`);
    }
  }
}

/** The 401 for a bearer token that does not hold, saying why (RFC 6750 section 3). */
function invalidToken(reason: string): Error {
  const header = `Bearer realm="api", error="invalid_token", error_description="${reason.replace(/"/g, "'")}"`;
  return apiError("auth.invalidToken", { reason }, 401, { "www-authenticate": header });
}

/** Establishes each request's principal from its credentials. */
export class Authenticator {
  readonly roles: readonly string[];
  readonly #tokens: TokenVerifier | undefined;
  readonly #keys: ApiKeys | undefined;
  readonly #custom: AuthOptions["authenticate"];

  constructor(options: AuthOptions, db: Db) {
    checkAuthOptions(options);
    const now = options.now ?? Date.now;
    this.roles = [...(options.roles ?? [])];
    this.#tokens = options.jwt && new TokenVerifier(options.jwt, now);
    this.#keys = options.apiKeys && new ApiKeys(options.apiKeys, db, now);
    this.#custom = options.authenticate;
  }

  /**
   * The request's principal: anonymous without credentials (at once, without a Promise);
   * credentials that do not hold are a 401.
   */
  principal(request: Request): Principal | Promise<Principal> {
    const authorization = request.headers.get("authorization");
    const [scheme, credentials] = splitAuthorization(authorization);
    if (this.#tokens && scheme === "bearer") return this.#bearer(credentials);
    const key = this.#keys && (scheme === "apikey" ? credentials : request.headers.get(this.#keys.header));
    if (this.#keys && key) return this.#apiKey(key);
    if (this.#custom) return this.#customPrincipal(request);
    if (authorization !== null) throw invalidToken("this server does not take that kind of credentials");
    return ANONYMOUS;
  }

  async #customPrincipal(request: Request): Promise<Principal> {
    return (await this.#custom!(request)) ?? ANONYMOUS;
  }

  async #bearer(token: string): Promise<Principal> {
    try {
      return await this.#tokens!.verify(token);
    } catch (error) {
      if (error instanceof InvalidToken) throw invalidToken(error.message);
      throw error;
    }
  }

  async #apiKey(key: string): Promise<Principal> {
    const principal = await this.#keys!.principal(key);
    if (principal) return principal;
    throw apiError("auth.invalidKey", undefined, 401, { "www-authenticate": 'ApiKey realm="api"' });
  }
}

/** The scheme (lower-cased) and credentials of an Authorization header. */
function splitAuthorization(header: string | null): [string, string] {
  if (header === null) return ["", ""];
  const space = header.indexOf(" ");
  if (space < 0) return [header.toLowerCase(), ""];
  return [header.slice(0, space).toLowerCase(), header.slice(space + 1).trim()];
}
