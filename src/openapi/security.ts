/**
 * What the OpenAPI document says about `auth`: a security scheme per way in (bearer JWTs, API
 * keys), and per operation the roles that may call it, as `security` (optional when anonymous
 * requests may) and `x-roles`. The 401 and 403 responses are in responses.ts.
 */
import type { Operation } from "../model/access.ts";
import type { AccessPolicy } from "../query/access.ts";
import type { AuthOptions } from "../service/auth.ts";
import type { OperationInfo, OperationKind } from "./kinds.ts";

/** The access rules and the ways in, as the document shows them. */
export interface DocumentAccess {
  policy: AccessPolicy;
  /** The app's `auth`; undefined when models declare `access` but every request is anonymous. */
  auth?: AuthOptions;
}

const OPERATION_OF: Partial<Record<OperationKind, Operation>> = {
  list: "paginate",
  show: "show",
  create: "insert",
  replace: "update",
  patch: "patch",
  delete: "delete",
  forceDelete: "forceDelete",
};

/** `components.securitySchemes` for the configured ways in. */
export function securitySchemes(auth: AuthOptions | undefined): Record<string, Record<string, unknown>> {
  const schemes: Record<string, Record<string, unknown>> = {};
  if (auth?.jwt) {
    schemes.bearerAuth = {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "A JWT: `Authorization: Bearer <token>`.",
    };
  }
  if (auth?.apiKeys) {
    schemes.apiKeyAuth = { type: "apiKey", in: "header", name: auth.apiKeys.header ?? "x-api-key" };
  }
  return schemes;
}

/** The roles that may call the operation, "everyone" for a public model, or undefined for OPTIONS. */
export function rolesOf(access: DocumentAccess, op: OperationInfo): readonly string[] | "everyone" | undefined {
  const operation = OPERATION_OF[op.kind];
  return operation === undefined ? undefined : access.policy.rolesFor(op.model, operation);
}

/** The operation's `security` and `x-roles`: who may call it, and with which credentials. */
export function operationSecurity(access: DocumentAccess | undefined, op: OperationInfo): Record<string, unknown> {
  if (access === undefined) return {};
  const roles = rolesOf(access, op);
  if (roles === undefined) return {};
  const schemes = Object.keys(securitySchemes(access.auth)).map((name) => ({ [name]: [] }));
  // `{}` in the list: the operation may be called without credentials.
  const anonymous = roles === "everyone" || roles.includes("anonymous");
  return {
    "x-roles": roles,
    ...(schemes.length > 0 || !anonymous ? { security: anonymous ? [{}, ...schemes] : schemes } : {}),
  };
}
