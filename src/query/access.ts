/**
 * Access rules, applied: for a principal, a model and an operation, the grant that decides it
 * (the first role listed that the principal has and that grants the operation), with its row
 * filter (principal values filled in), the model as that role may read it (fields it may not
 * read hidden, exactly like the model's own hidden fields) and, for writes, the fields it may
 * write, the values forced on the record and the condition the record must meet. Every read
 * path takes its filters and field views from here through the plan, so no path can forget one.
 */
import type { Document } from "bson";
import { createHash } from "node:crypto";
import { apiError } from "../errors.ts";
import type { FieldKind, Model } from "../model/define.ts";
import {
  accessRoles,
  type AccessRule,
  BUILT_IN_ROLES,
  type Operation,
  placeholderPath,
  type Principal,
  type ResolvedAccess,
} from "../model/access.ts";
import { parseIsoDate } from "../model/dates.ts";
import type { ModelLookup, ModelRegistry } from "../model/registry.ts";
import { filterOf } from "../plan/conditions.ts";
import type { QueryLimits } from "./limits.ts";
import { conditionOf } from "./where.ts";

/** What one principal may do with one model for one operation. */
export interface Grant {
  /** The role whose rule decided it. */
  readonly role: string;
  /** The model as the role may read it. */
  readonly view: Model;
  /** The records it reaches, as a MongoDB filter: `{}` when unrestricted. */
  readonly filter: Document;
  /** Fields it may write, or null for every field. */
  readonly writable: ReadonlySet<string> | null;
  /** Values every write stores, whatever the body says. */
  readonly set: Readonly<Document>;
  /** What a written record must meet (a MongoDB filter tested on it), or null. */
  readonly check: Document | null;
  /** True when a principal value the rule needs is missing or of the wrong kind: it grants nothing. */
  readonly void: boolean;
}

/** Matches no record: what a rule that cannot be filled in reaches. */
const NOTHING: Document = Object.freeze({ _id: { $in: [] } });

/** A rule as compiled at start-up. */
interface CompiledRule {
  readonly role: string;
  readonly rule: true | AccessRule;
  readonly view: Model;
  readonly writable: ReadonlySet<string> | null;
}

/** The field a condition key is about and its operator: `$or.user_id.$in` → `user_id`, `$in` (`id` stays `id`). */
function keyParts(key: string): { field: string; operator: string } {
  const rest = key.replace(/^\$(or|and)\./, "");
  const dot = rest.indexOf(".$");
  return dot < 0 ? { field: rest, operator: "=" } : { field: rest.slice(0, dot), operator: rest.slice(dot + 1) };
}

/** Where a placeholder's value comes from: the request's principal, or a sample at start-up. */
type Resolve = (path: string, field: string | undefined, operator: string) => unknown;

/** A principal's value at `path` (`subject`, `roles`, `claims.a.b`), or undefined. */
function principalValue(principal: Principal, path: string): unknown {
  if (path === "subject") return principal.subject ?? undefined;
  if (path === "roles") return principal.roles;
  let value: unknown = principal.claims;
  for (const part of path.split(".").slice(1)) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** `value` as the kind of field it meets, or undefined when it cannot be one (the rule then grants nothing). */
function asKind(value: unknown, kind: FieldKind | undefined): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => asKind(item, kind));
    return items.includes(undefined) ? undefined : items;
  }
  switch (kind) {
    case "integer":
      if (typeof value === "string" && /^-?[0-9]{1,16}$/.test(value)) value = Number(value);
      return Number.isSafeInteger(value) ? value : undefined;
    case "number":
      if (typeof value === "string" && value.trim() !== "") value = Number(value);
      return typeof value === "number" && Number.isFinite(value) ? value : undefined;
    case "string":
      return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
    case "boolean":
      return typeof value === "boolean" ? value : value === "true" ? true : value === "false" ? false : undefined;
    case "date":
      return typeof value === "string" ? (parseIsoDate(value) ? value : undefined) : undefined;
    default:
      return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : undefined;
  }
}

/** Thrown while filling a rule in: a placeholder the principal has no value for. */
class Unfillable extends Error {}

/** The principal's value for a placeholder, converted to the kind of the field it meets. */
function fromPrincipal(principal: Principal, model: Model): Resolve {
  return (path, field) => {
    const filled = asKind(principalValue(principal, path), field === undefined ? undefined : model.kinds.get(field));
    if (filled === undefined) throw new Unfillable(path);
    return filled;
  };
}

const SAMPLES: Record<FieldKind, unknown> = {
  string: "x",
  integer: 1,
  number: 1,
  boolean: true,
  date: "2000-01-01T00:00:00Z",
  other: "x",
};

/** A value of the right kind for every placeholder: what checks a rule's condition at start-up. */
function sampleFor(model: Model): Resolve {
  return (_path, field, operator) => {
    const sample = SAMPLES[(field !== undefined && model.kinds.get(field)) || "other"];
    return operator === "$in" || operator === "$notIn" ? [sample] : sample;
  };
}

/**
 * A rule's condition (or `set`) with every placeholder replaced through `resolve`, which is told
 * the field (and operator) of the key the placeholder is the value of.
 */
function fillIn(value: unknown, resolve: Resolve, key?: { field: string; operator: string }): unknown {
  const path = placeholderPath(value);
  if (path !== undefined) return resolve(path, key?.field, key?.operator ?? "=");
  if (Array.isArray(value)) return value.map((item) => fillIn(item, resolve, key));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) out[name] = fillIn(item, resolve, keyParts(name));
  return out;
}

/** The model with every field visible and filterable: what a server's own rule may name (hidden ones too). */
function serverView(model: Model): Model {
  const kinds = new Map(model.kinds);
  for (const field of model.hidden) kinds.set(field, model.kinds.get(field) ?? "other");
  const visible = [...kinds.keys()];
  return Object.freeze({
    ...model,
    kinds,
    hidden: new Set<string>(),
    visible,
    visibleSet: new Set(visible),
    filterable: null,
  });
}

/** The model as a role that may read only `fields` (system fields always) sees it. */
function restrictedView(model: Model, fields: readonly string[] | undefined): Model {
  if (fields === undefined) return model;
  const readable = new Set(["id", "created_at", "updated_at", "deleted_at", ...fields]);
  const hidden = new Set([...model.hidden, ...Object.keys(model.fields).filter((field) => !readable.has(field))]);
  const visible = model.visible.filter((field) => readable.has(field));
  const visibleSet = new Set(visible);
  const kinds = new Map([...model.kinds].filter(([field]) => visibleSet.has(field)));
  const within = (list: ReadonlySet<string> | null) =>
    list && new Set([...list].filter((field) => visibleSet.has(field)));
  return Object.freeze({
    ...model,
    hidden,
    visible,
    visibleSet,
    kinds,
    sortable: within(model.sortable),
    filterable: within(model.filterable),
  });
}

/** The MongoDB filter of a rule's condition (`{}` for none), its placeholders filled in through `resolve`. */
function ruleFilter(
  condition: AccessRule["where"],
  model: Model,
  resolve: Resolve,
  limits: QueryLimits,
  principal?: Principal,
): Document {
  if (condition === undefined) return {};
  if (typeof condition === "function") return principal === undefined ? {} : condition(principal);
  return filterOf(conditionOf(fillIn(condition, resolve), serverView(model), { limits }));
}

/** Names the model does not have, among those a rule lists. */
function unknownNames(model: Model, names: Iterable<string>, system: boolean): string[] {
  const known = new Set([...Object.keys(model.fields), ...(system ? model.visible : [])]);
  return [...names].filter((name) => !known.has(name));
}

/**
 * The app's access policy: every model's rules compiled at start-up, where a rule naming an
 * unknown field, role or operator stops start-up with one line; then, per request, the grant
 * of a principal for a model and operation.
 */
export class AccessPolicy {
  readonly #rules = new Map<string, Map<Operation, CompiledRule[]>>();
  readonly #public = new Set<string>();
  readonly #limits: QueryLimits;

  /**
   * `closed` (with `auth`): a model without `access` grants nothing. Without `auth` every
   * request is anonymous, and such a model stays open as it was.
   */
  constructor(registry: ModelRegistry, roles: readonly string[], limits: QueryLimits, closed = true) {
    this.#limits = limits;
    // Without auth no request has a role but `anonymous`: the others' rules are inert, and
    // their names are checked once auth declares the roles.
    const known = closed ? new Set([...BUILT_IN_ROLES, ...roles]) : undefined;
    for (const model of registry.values()) this.#compile(model, model.access ?? (closed ? undefined : "public"), known);
  }

  #compile(model: Model, access: ResolvedAccess | undefined, known: ReadonlySet<string> | undefined): void {
    if (access === "public") return void this.#public.add(model.name);
    if (access === undefined) return;
    for (const role of accessRoles(access)) {
      if (known !== undefined && !known.has(role)) {
        throw new TypeError(
          `Model ${model.name}: access names role "${role}"; the roles are ${
            [...known].join(", ")
          } (auth.roles declares more)`,
        );
      }
    }
    const byOperation = new Map<Operation, CompiledRule[]>();
    for (const [operation, rules] of access) {
      byOperation.set(
        operation,
        rules.map(({ role, named, rule }) => this.#compileRule(model, `access.${role}.${named}`, role, rule)),
      );
    }
    this.#rules.set(model.name, byOperation);
  }

  #compileRule(model: Model, where: string, role: string, rule: true | AccessRule): CompiledRule {
    if (rule === true) return { role, rule, view: model, writable: null };
    const unknown = [
      ...unknownNames(model, rule.fields ?? [], true),
      ...unknownNames(model, rule.writable ?? [], false),
      ...unknownNames(model, Object.keys(rule.set ?? {}), false),
    ];
    if (unknown.length > 0) {
      throw new TypeError(`Model ${model.name}: ${where} names unknown fields: ${unknown.join(", ")}`);
    }
    // Filled in with samples of each field's kind, so the query language's own checks run now.
    for (const [name, condition] of [["where", rule.where], ["check", rule.check]] as const) {
      if (condition === undefined || typeof condition === "function") continue;
      try {
        ruleFilter(condition, model, sampleFor(model), this.#limits);
      } catch (error) {
        throw new TypeError(`Model ${model.name}: ${where}.${name}: ${(error as Error).message}`);
      }
    }
    const writable = rule.writable === undefined ? null : new Set(rule.writable);
    return { role, rule, view: restrictedView(model, rule.fields), writable };
  }

  /** True when the model is open to everyone (`access: "public"`). */
  isPublic(model: Model): boolean {
    return this.#public.has(model.name);
  }

  /** The roles that may use an operation on a model (any role, for a public model), for the OpenAPI document. */
  rolesFor(model: Model, operation: Operation): readonly string[] | "everyone" {
    if (this.isPublic(model)) return "everyone";
    return (this.#rules.get(model.name)?.get(operation) ?? []).map((rule) => rule.role);
  }

  /**
   * What `principal` may do with `model` for `operation`: the grant of the first listed role it
   * has, or null when none of its roles may (then the request is a 401 when anonymous, else a 403).
   */
  grant(principal: Principal, model: Model, operation: Operation): Grant | null {
    if (this.isPublic(model)) {
      return { role: "*", view: model, filter: {}, writable: null, set: {}, check: null, void: false };
    }
    const rules = this.#rules.get(model.name)?.get(operation) ?? [];
    const chosen = rules.find((rule) => principal.roles.includes(rule.role));
    return chosen === undefined ? null : this.#filled(chosen, model, principal);
  }

  #filled(compiled: CompiledRule, model: Model, principal: Principal): Grant {
    const { role, rule, view, writable } = compiled;
    const open = { role, view, filter: {}, writable, set: {}, check: null, void: false };
    if (rule === true) return open;
    const resolve = fromPrincipal(principal, model);
    try {
      return {
        ...open,
        filter: ruleFilter(rule.where, model, resolve, this.#limits, principal),
        set: fillIn(rule.set ?? {}, resolve) as Document,
        check: rule.check === undefined ? null : ruleFilter(rule.check, model, resolve, this.#limits, principal),
      };
    } catch (error) {
      if (!(error instanceof Unfillable)) throw error;
      return { ...open, filter: NOTHING, void: true };
    }
  }
}

/** The refusal of an operation a principal may not use: 401 without credentials, 403 with them. */
export function refused(principal: Principal, model: Model, operation: Operation): Error {
  if (principal.via === "anonymous") {
    return apiError("auth.required", { operation, model: model.name }, 401, {
      "www-authenticate": 'Bearer realm="api"',
    });
  }
  return apiError("auth.forbidden", { operation, model: model.name }, 403);
}

/** Claims that change with every token of the same principal: left out of its fingerprint. */
const TOKEN_CLAIMS = new Set(["iat", "exp", "nbf", "jti", "auth_time"]);

const fingerprints = new WeakMap<Principal, string>();

/**
 * What tells one principal's reads from another's: its subject, roles and claims (but those of
 * the token itself), as text. The response cache, count reuse and cursors are keyed by it, so
 * one principal's page, count or cursor never serves another.
 */
export function fingerprintOf(principal: Principal): string {
  let fingerprint = fingerprints.get(principal);
  if (fingerprint === undefined) {
    const claims = Object.entries(principal.claims).filter(([name]) => !TOKEN_CLAIMS.has(name));
    fingerprint = JSON.stringify([principal.subject, [...principal.roles].sort(), claims]);
    fingerprints.set(principal, fingerprint);
  }
  return fingerprint;
}

const digests = new WeakMap<Principal, string>();

/** A short digest of a principal's fingerprint, which cursors carry to be refused to anyone else. */
export function principalDigest(principal: Principal): string {
  let digest = digests.get(principal);
  if (digest === undefined) {
    digest = createHash("sha256").update(fingerprintOf(principal)).digest("base64url").slice(0, 16);
    digests.set(principal, digest);
  }
  return digest;
}

/**
 * One request's access: its principal and the policy, with each grant worked out once. Reads
 * take from it the model views and row filters of every model they touch (the route's, its
 * ancestors', those of `with` and of related conditions), writes their fields and forced values.
 */
export class RequestAccess {
  readonly principal: Principal;
  readonly #policy: AccessPolicy;
  readonly #grants = new Map<string, Grant | null>();

  constructor(policy: AccessPolicy, principal: Principal) {
    this.#policy = policy;
    this.principal = principal;
  }

  /** The grant for `operation` on `model`, or null when the principal may not. */
  grant(model: Model, operation: Operation): Grant | null {
    const key = `${model.name} ${operation}`;
    if (!this.#grants.has(key)) this.#grants.set(key, this.#policy.grant(this.principal, model, operation));
    return this.#grants.get(key)!;
  }

  /** The grant for `operation` on `model`; a 401 (anonymous) or 403 when the principal may not. */
  require(model: Model, operation: Operation): Grant {
    const grant = this.grant(model, operation);
    if (grant === null) throw refused(this.principal, model, operation);
    return grant;
  }

  /**
   * The app's models as loading them through `with` or `q` shows them to this principal: each
   * its `relation` grant's view. A model the principal may not load that way is a 401/403 as
   * soon as a request names it.
   */
  relationRegistry(registry: ModelRegistry): ModelLookup {
    const views = new Map<string, Model>();
    return {
      get: (name: string) => {
        const model = registry.get(name);
        if (model === undefined) return undefined;
        if (!views.has(name)) views.set(name, this.require(model, "relation").view);
        return views.get(name);
      },
    };
  }

  /** The row filter of the `relation` grant of a related model (a view from {@link relationRegistry}). */
  relationFilter(model: Model): Document {
    return this.require(model, "relation").filter;
  }
}
