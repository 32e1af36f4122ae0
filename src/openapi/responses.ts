import { onDeleteRelations } from "../model/registry.ts";
import { BODY_WRITES, type OperationInfo, type OperationKind, READS, RECORD_WRITES, WRITES } from "./kinds.ts";
import { type JsonSchema, ref } from "./schemas.ts";

/** An OpenAPI Response Object. */
export type ResponseObject = Record<string, unknown>;

const JSON_TYPE = "application/json";

function jsonResponse(description: string, schema: JsonSchema, headers?: Record<string, unknown>): ResponseObject {
  return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema } } };
}

const ETAG_HEADER = {
  ETag: { description: "Strong validator of this body, for If-None-Match and If-Match.", schema: { type: "string" } },
};
const LINK_HEADER = {
  Link: {
    description: 'RFC 8288 links to the next and previous pages by cursor (rel="next", rel="prev").',
    schema: { type: "string" },
  },
};
/** The RateLimit-* headers (IETF draft) of an operation a limit counts; an adapter's own 413 may lack them. */
function rateLimitHeaders(required: boolean): Record<string, unknown> {
  const header = (description: string, minimum: number) => ({
    description,
    ...(required ? { required: true } : {}),
    schema: { type: "integer", minimum },
  });
  return {
    "RateLimit-Limit": header("Requests the tightest limit that applies allows per window.", 1),
    "RateLimit-Remaining": header("Requests left in that window.", 0),
    "RateLimit-Reset": header("Seconds until that window ends.", 1),
  };
}
const RETRY_AFTER_HEADER = {
  "Retry-After": {
    description: "Seconds until the limit's window ends and requests are counted afresh.",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
};
const ALLOW_HEADER = {
  Allow: { description: "The methods this path serves.", required: true, schema: { type: "string" } },
};
const UNAVAILABLE_RETRY = {
  "Retry-After": {
    description: "Seconds to wait before retrying: 5 after a time limit, 1 during shutdown.",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
};

/** One error status: when an operation can answer it, and its body. */
interface ErrorEntry {
  status: string;
  appliesTo(op: OperationInfo): boolean;
  build(op: OperationInfo): ResponseObject;
}

const always = () => true;
const kindIn = (kinds: readonly OperationKind[]) => (op: OperationInfo) => kinds.includes(op.kind);

function badRequest(op: OperationInfo): ResponseObject {
  const single = "A bad query parameter, a malformed body, or an `ApiError` thrown by a hook: `{error}`.";
  if (!BODY_WRITES.includes(op.kind)) return jsonResponse(single, ref("ErrorBody"));
  return jsonResponse(`Validation failed: \`{errors}\` with every invalid field. ${single}`, {
    oneOf: [ref("ValidationErrors"), ref("ErrorBody")],
  });
}

/** A top-level list or create addresses no record and no ancestor: nothing there can be missing. */
function addressesRecords(op: OperationInfo): boolean {
  if (op.kind === "options") return false;
  return op.nested || (op.kind !== "list" && op.kind !== "create");
}

/** Every operation but OPTIONS, which reads no parameter, body or record. */
const routed = (op: OperationInfo) => op.kind !== "options";

function notFound(op: OperationInfo): ResponseObject {
  const record = `No live ${op.model.name} has this id${op.nested ? " under these ancestors" : ""}`;
  const what = op.kind === "list" || op.kind === "create"
    ? "An ancestor record does not exist"
    : op.nested
    ? `${record}, or an ancestor does not exist`
    : record;
  return jsonResponse(`${what}: \`The item is not found on <Model>.\``, ref("ErrorBody"));
}

/** 409: the hidden unique fields count (a duplicate is refused all the same) but are not named. */
function conflict({ model }: OperationInfo): ResponseObject {
  const named = model.unique.filter((field) => !model.hidden.has(field));
  const which = named.length === 0
    ? "A unique field's value is taken."
    : `A unique field's value is taken (${named.join(", ")}${named.length < model.unique.length ? ", …" : ""}).`;
  return jsonResponse(which, ref("ErrorBody"));
}

const DELETES: readonly OperationKind[] = ["delete", "forceDelete"];

/** 409 of a DELETE: a relation with `onDelete: "restrict"` still has live children; they are named. */
function restricted({ model }: OperationInfo): ResponseObject {
  const names = onDeleteRelations(model, "restrict").map((rel) => rel.name).join(", ");
  return jsonResponse(
    `The ${model.name} still has records in a relation that restricts its deletion (${names}): \`<Model> <id> still has <relation>; delete them first.\` (a hasOne: \`… still has its <relation>; delete it first.\`). Nothing was deleted.`,
    ref("ErrorBody"),
  );
}

/** 500: `{message}` from the default error handler, or `{error}` where a hook may throw an `ApiError` with status 500. */
function internalError(op: OperationInfo): ResponseObject {
  const text = "An unexpected error, with the default error handler in production";
  if (!op.hooked) return jsonResponse(`${text}.`, ref("InternalErrorBody"));
  return jsonResponse(`${text}; or an \`ApiError\` with status 500 thrown by a hook: \`{error}\`.`, {
    oneOf: [ref("InternalErrorBody"), ref("ErrorBody")],
  });
}

/** 413: the limit is checked on the declared length before any route runs, so even a GET with a body gets it. */
function tooLarge(op: OperationInfo): ResponseObject {
  if (BODY_WRITES.includes(op.kind)) return jsonResponse("The body is larger than the limit.", ref("ErrorBody"));
  return jsonResponse(
    "The request carries a body (which this operation does not read) larger than the limit; refused before the route runs.",
    ref("ErrorBody"),
  );
}

/** 503: a database command ran past its time limit, or (on Deno) the shutdown deadline cut the request. */
function unavailable(op: OperationInfo): ResponseObject {
  const timeLimit = op.kind === "options"
    ? ""
    : "A database command ran past its time limit (`limits.queryTimeMs`, the model's `queryTimeMs`): `Retry-After: 5`. ";
  return jsonResponse(
    `${timeLimit}On Deno, the server's shutdown deadline cut the request: \`Retry-After: 1\`.`,
    ref("ErrorBody"),
    UNAVAILABLE_RETRY,
  );
}

/** An `ApiError` a hook of the operation may throw, with a status in `range` (e.g. 403). */
function hookErrors(range: "4XX" | "5XX", example: string): ErrorEntry {
  return {
    status: range,
    appliesTo: (op) => op.hooked,
    build: ({ model }) =>
      jsonResponse(
        `An \`ApiError\` thrown by one of ${model.name}'s hooks, with the status it chose (${example}, …).`,
        ref("ErrorBody"),
      ),
  };
}

/** True when a request without credentials may call the operation. */
function anonymousMay(op: OperationInfo): boolean {
  const roles = op.access?.roles;
  return roles === "everyone" || (roles !== undefined && roles.includes("anonymous"));
}

/**
 * True when some principal may be refused the operation with a 403: one with credentials but
 * without a role that may (every credentialed principal has `authenticated`), or, for a write,
 * one whose rule's check fails or cannot be filled in.
 */
function forbiddenPossible(op: OperationInfo): boolean {
  const roles = op.access?.roles;
  if (roles === undefined || roles === "everyone") return false;
  return !roles.includes("authenticated") || WRITES.includes(op.kind);
}

function rolesText(op: OperationInfo): string {
  const roles = op.access?.roles;
  return Array.isArray(roles) && roles.length > 0 ? roles.join(", ") : "none";
}

/**
 * The error responses of the generated routes, by status. A new status is one more entry here.
 */
export const ERROR_RESPONSES: readonly ErrorEntry[] = [
  { status: "400", appliesTo: routed, build: badRequest },
  // No 405: it answers only methods a path does not serve, which the document does not list.
  { status: "404", appliesTo: addressesRecords, build: notFound },
  {
    status: "409",
    appliesTo: (op) => BODY_WRITES.includes(op.kind) && op.model.unique.length > 0,
    build: conflict,
  },
  {
    status: "409",
    appliesTo: (op) => DELETES.includes(op.kind) && onDeleteRelations(op.model, "restrict").length > 0,
    build: restricted,
  },
  {
    status: "412",
    appliesTo: kindIn(RECORD_WRITES),
    build: () =>
      jsonResponse(
        "If-Match does not match the record's current ETag, or If-None-Match does (or is `*`); nothing was written.",
        ref("ErrorBody"),
      ),
  },
  {
    status: "412",
    appliesTo: kindIn(READS),
    build: () => jsonResponse("If-Match names neither `*` nor the current ETag.", ref("ErrorBody")),
  },
  { status: "413", appliesTo: always, build: tooLarge },
  {
    status: "415",
    appliesTo: kindIn(BODY_WRITES),
    build: () =>
      jsonResponse(
        "A non-empty body that is not application/json, is not UTF-8 (a `charset` other than utf-8), or has a `Content-Encoding` the server does not decode.",
        ref("ErrorBody"),
      ),
  },
  {
    status: "507",
    appliesTo: kindIn(WRITES),
    build: () =>
      jsonResponse(
        "The embedded engine's disk is full: the write was not saved (now or after a restart); retry once space is freed.",
        ref("ErrorBody"),
      ),
  },
  {
    status: "429",
    appliesTo: (op) => op.rateLimited,
    build: () =>
      jsonResponse("Too many requests from this client in the limit's window.", ref("ErrorBody"), {
        ...RETRY_AFTER_HEADER,
        ...rateLimitHeaders(true),
      }),
  },
  {
    status: "408",
    appliesTo: always,
    build: () =>
      jsonResponse(
        "(Node adapter) The request's headers or the whole request were not received in time (`HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`).",
        ref("ErrorBody"),
      ),
  },
  {
    status: "431",
    appliesTo: always,
    build: () =>
      jsonResponse(
        "(Node adapter) The request's header section is larger than node's limit (16 KiB).",
        ref("ErrorBody"),
      ),
  },
  { status: "503", appliesTo: always, build: unavailable },
  {
    status: "401",
    appliesTo: (op) => op.access !== undefined && (op.access.credentials || !anonymousMay(op)),
    build: (op) =>
      jsonResponse(
        anonymousMay(op)
          ? "The credentials sent do not hold (a bad, expired or not yet valid token; an unknown key): `WWW-Authenticate` says why."
          : "Credentials are needed (none were sent), or those sent do not hold: `WWW-Authenticate` says why.",
        ref("ErrorBody"),
        {
          "WWW-Authenticate": {
            description: "The scheme, and for a bad token RFC 6750's `error`.",
            schema: { type: "string" },
          },
        },
      ),
  },
  {
    status: "403",
    appliesTo: forbiddenPossible,
    build: (op) =>
      jsonResponse(
        `The principal's roles may not do this (allowed: ${
          rolesText(op)
        }), or a written record fails the rule's check.`,
        ref("ErrorBody"),
      ),
  },
  hookErrors("4XX", "403"),
  hookErrors("5XX", "503"),
  { status: "500", appliesTo: always, build: internalError },
];

/** The success responses of an operation. */
function successResponses(op: OperationInfo): Record<string, ResponseObject> {
  const name = op.model.name;
  // Writes take no `fields`, so they answer every field, unless a serializer reshapes the record.
  const written = op.serialized ? ref(name) : ref(`${name}Full`);
  switch (op.kind) {
    case "list":
      return {
        "200": jsonResponse(`One page of ${name} records and the paging metadata.`, ref(`${name}Page`), {
          ...ETAG_HEADER,
          ...LINK_HEADER,
        }),
      };
    case "show":
      return { "200": jsonResponse(`The ${name}.`, ref(name), ETAG_HEADER) };
    case "create":
      return { "201": jsonResponse(`The stored ${name}, as a plain GET returns it.`, written, ETAG_HEADER) };
    case "replace":
    case "patch":
      return { "200": jsonResponse(`The stored ${name}.`, written, ETAG_HEADER) };
    case "delete":
    case "forceDelete":
      return {
        "204": {
          description: op.kind === "delete" && op.model.softDelete ? "Soft-deleted (deleted_at is set)." : "Deleted.",
        },
      };
    case "options":
      return { "204": { description: "The methods this path serves, in `Allow`; no body.", headers: ALLOW_HEADER } };
  }
}

/** A HEAD's responses: its GET's, without their bodies (HEAD does exactly what GET does). */
export function headResponses(get: Record<string, ResponseObject>): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.entries(get).map(([status, { content: _content, ...rest }]) => [status, { ...rest }]),
  );
}

/** Every response of an operation: its successes, 304 for reads, then the table's errors that apply. */
export function responsesOf(op: OperationInfo): Record<string, ResponseObject> {
  const responses = successResponses(op);
  if (READS.includes(op.kind)) {
    responses["304"] = { description: "If-None-Match names the current ETag; no body.", headers: ETAG_HEADER };
  }
  for (const entry of ERROR_RESPONSES) {
    if (entry.appliesTo(op)) responses[entry.status] = entry.build(op);
  }
  if (op.rateLimited) {
    // Counted before the route runs, so every answer carries the limit's state.
    for (const [status, response] of Object.entries(responses)) {
      const headers = { ...rateLimitHeaders(status !== "413"), ...(response.headers as object | undefined) };
      responses[status] = { ...response, headers };
    }
  }
  return responses;
}
