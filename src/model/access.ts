/**
 * Access rules, as a model file declares them (`access`), and the principal they are about.
 * Checked once at start-up (`resolveAccess`, then against the app's roles in `checkAccess`), so a
 * rule naming an unknown field, role or operation stops start-up with one line; applied to
 * every request by query/access.ts, which turns the principal's rules into the plan's filters
 * and field views.
 */
import type { Document } from "bson";
import { checkKeys, isPlainObject } from "./strict.ts";

/** Who a request is from: established by `auth` (a token, an API key, your `authenticate`), or anonymous. */
export interface Principal {
  /** The subject: a token's `sub` (or the claim `auth.jwt.subject` names), an API key's name; null when anonymous. */
  readonly subject: string | null;
  /** Its roles, in no order; an anonymous request has `anonymous`, every other one also `authenticated`. */
  readonly roles: readonly string[];
  /** The token's claims (or what `authenticate` returned); `{}` when anonymous. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** How it was established. */
  readonly via: "anonymous" | "jwt" | "apiKey" | "custom";
}

/** The principal of a request without credentials. */
export const ANONYMOUS: Principal = Object.freeze({
  subject: null,
  roles: Object.freeze(["anonymous"]),
  claims: Object.freeze({}),
  via: "anonymous",
});

/** The roles every app has: no credentials, and any credentials. */
export const BUILT_IN_ROLES: readonly string[] = ["anonymous", "authenticated"];

/** What a rule may be about: a handler, or the loads of this model's records through another's `with` and `q`. */
export type Operation = "paginate" | "show" | "insert" | "update" | "patch" | "delete" | "forceDelete" | "relation";

/** Every operation, in the order messages list them. */
export const OPERATIONS: readonly Operation[] = [
  "paginate",
  "show",
  "insert",
  "update",
  "patch",
  "delete",
  "forceDelete",
  "relation",
];

/** Names for several operations at once. */
const GROUPS: Record<string, readonly Operation[]> = {
  read: ["paginate", "show", "relation"],
  write: ["insert", "update", "patch", "delete", "forceDelete"],
  all: OPERATIONS,
};

/** Where a placeholder takes its value from: `subject`, `roles`, or a claim path (`claims.tenant`). */
const PRINCIPAL_PATH = /^(subject|roles|claims(\.[A-Za-z0-9_$:-]+)+)$/;

const PLACEHOLDER: unique symbol = Symbol("mongorest.principal");

/** A value taken from the request's principal when the rule applies: see {@link principal}. */
export interface PrincipalValue {
  readonly [PLACEHOLDER]: string;
}

/**
 * A value of the request's principal, for a rule's `where`, `check` and `set`: `principal("subject")`,
 * `principal("claims.tenant")`. It is converted to the kind of the field it meets (a subject
 * `"7"` meets an integer field as 7); one that cannot be converted matches nothing.
 * @example where: { user_id: principal("subject") } // the caller's own records
 */
export function principal(path: string): PrincipalValue {
  if (typeof path !== "string" || !PRINCIPAL_PATH.test(path)) {
    throw new TypeError(
      `principal() takes "subject", "roles" or a claim path such as "claims.tenant"; got ${JSON.stringify(path)}`,
    );
  }
  return Object.freeze({ [PLACEHOLDER]: path });
}

/** The path of a placeholder, or undefined for any other value. */
export function placeholderPath(value: unknown): string | undefined {
  return value !== null && typeof value === "object" && PLACEHOLDER in value
    ? (value as PrincipalValue)[PLACEHOLDER]
    : undefined;
}

/**
 * One role's rule for an operation. `true` allows it without restriction; an object allows it
 * within what it says.
 */
export interface AccessRule {
  /**
   * The records the role reaches, in the query language of `q` (an object or an array, with
   * {@link principal} placeholders for values), or a function of the principal returning a
   * MongoDB filter (checked only when it runs). Reads return, count and reveal only these;
   * writes change and delete only these.
   */
  where?: Record<string, unknown> | readonly unknown[] | ((principal: Principal) => Document);
  /** Fields the role may read (system fields always); the others behave exactly like hidden ones. Default: every visible field. */
  fields?: readonly string[];
  /** Fields the role may write; sending another is a 400 that names it. Default: every field. */
  writable?: readonly string[];
  /** Values a write stores whatever the body says (the owner's id from the principal, a fixed tenant). */
  set?: Record<string, unknown>;
  /** A condition, in the query language, the written record must meet (after `set`); else a 403. */
  check?: Record<string, unknown> | readonly unknown[];
}

/** A role's rules, by operation or group of operations (`read`, `write`, `all`). */
export type RoleRules = Partial<Record<Operation | "read" | "write" | "all", true | AccessRule>>;

/**
 * A model's `access`: for each role, what it may do. The first role listed that the principal
 * has and that grants an operation decides how (its filter, fields, forced values); a principal
 * none of whose roles is listed for an operation may not use it. With `auth` configured, a model
 * without `access` is closed to everyone; `access: "public"` opens it to everyone, explicitly.
 */
export type AccessDefinition = Record<string, RoleRules> | "public";

/** A role's rule for one operation, after start-up. */
export interface ResolvedRule {
  readonly role: string;
  /** What the model file named it by: the operation, or the group (`read`, `write`, `all`) it came through. */
  readonly named: string;
  /** Unrestricted (`true`), or the rule. */
  readonly rule: true | AccessRule;
}

/** A model's rules by operation, in the order their roles were listed; "public" grants everything to everyone. */
export type ResolvedAccess = "public" | ReadonlyMap<Operation, readonly ResolvedRule[]>;

const RULE_KEYS = ["where", "fields", "writable", "set", "check"];
const RULE_NAMES = [...OPERATIONS, ...Object.keys(GROUPS)];

function checkRule(where: string, rule: unknown): true | AccessRule {
  if (rule === true) return true;
  if (!isPlainObject(rule)) throw new TypeError(`${where} must be true or a rule object`);
  checkKeys(where, rule, RULE_KEYS);
  for (const list of ["fields", "writable"] as const) {
    const names = rule[list];
    if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === "string"))) {
      throw new TypeError(`${where}.${list} must be a list of field names`);
    }
  }
  const condition = rule.where;
  if (
    condition !== undefined && typeof condition !== "function" && !isPlainObject(condition) && !Array.isArray(condition)
  ) {
    throw new TypeError(
      `${where}.where must be a condition (an object or array, as in q) or a function of the principal`,
    );
  }
  return rule as AccessRule;
}

/**
 * A model's `access`, checked for its shape and resolved to rules by operation: roles in the
 * order listed, a group standing for its operations, an operation named twice by one role
 * refused. Field names are checked against the model by {@link checkAccessFields}.
 */
export function resolveAccess(model: string, access: unknown): ResolvedAccess | undefined {
  if (access === undefined) return undefined;
  if (access === "public") return "public";
  if (!isPlainObject(access)) {
    throw new TypeError(`Model ${model}: access must be "public" or an object of rules by role`);
  }
  const byOperation = new Map<Operation, ResolvedRule[]>();
  for (const [role, rules] of Object.entries(access)) {
    const where = `Model ${model}: access.${role}`;
    if (!isPlainObject(rules)) throw new TypeError(`${where} must be an object of rules by operation`);
    checkKeys(where, rules, RULE_NAMES);
    const seen = new Set<Operation>();
    for (const [name, rule] of Object.entries(rules)) {
      for (const operation of GROUPS[name] ?? [name as Operation]) {
        if (seen.has(operation)) throw new TypeError(`${where} grants ${operation} twice (through ${name})`);
        seen.add(operation);
        const list = byOperation.get(operation) ?? [];
        list.push({ role, named: name, rule: checkRule(`${where}.${name}`, rule) });
        byOperation.set(operation, list);
      }
    }
  }
  return byOperation;
}

/** The roles a model's access names, for the app to check against its own. */
export function accessRoles(access: ResolvedAccess | undefined): Set<string> {
  const roles = new Set<string>();
  if (access === undefined || access === "public") return roles;
  for (const rules of access.values()) for (const { role } of rules) roles.add(role);
  return roles;
}

/** True when a read rule of some role shows only some fields: then no field but `id` is sure to be in a record. */
export function readsSomeFields(access: ResolvedAccess | undefined): boolean {
  if (access === undefined || access === "public") return false;
  for (const operation of ["paginate", "show", "relation"] as const) {
    for (const { rule } of access.get(operation) ?? []) if (rule !== true && rule.fields !== undefined) return true;
  }
  return false;
}
