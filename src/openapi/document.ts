import type { Route } from "../handlers/route.ts";
import type { RouteEntry } from "../handlers/table.ts";
import { ancestorsOf, linkRelation, type ParentLink } from "../query/nesting.ts";
import { relationSegment } from "../model/naming.ts";
import type { Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { QueryLimits } from "../query/limits.ts";
import type { RateLimitOptions } from "../service/rate-limit.ts";
import { countsEveryRequest, isHooked, isRateLimited } from "./applies.ts";
import type { OperationInfo, OperationKind } from "./kinds.ts";
import { checkSchemaNames, operationIds, uniqueOperationIds } from "./names.ts";
import { parametersOf } from "./parameters.ts";
import { headResponses, responsesOf } from "./responses.ts";
import { recordExample, withExamples } from "./examples.ts";
import { type DocumentAccess, operationSecurity, rolesOf, securitySchemes } from "./security.ts";
import { COMMON_SCHEMAS, inputSchema, type JsonSchema, recordSchema, ref } from "./schemas.ts";

/** What an app may say about itself in its OpenAPI document (`createApp({ openapi: … })`). */
export interface OpenApiOptions {
  /** `info.title`; default "mongorest API". */
  title?: string;
  /** `info.version`, the version of your API (not of OpenAPI); default "1.0.0". */
  version?: string;
  /** `info.description`, Markdown. */
  description?: string;
  /** Where the API is served; default `[{ url: "/" }]`: the server the document came from. */
  servers?: readonly { url: string; description?: string }[];
}

/** What the generator reads from the app. */
export interface DocumentSource {
  /** The route table the router serves. */
  table: readonly RouteEntry[];
  basePath: string;
  registry: ModelRegistry;
  limits: QueryLimits;
  options?: OpenApiOptions;
  /** The app's `rateLimit`: the operations it counts answer 429 and carry RateLimit-* headers. */
  rateLimit?: RateLimitOptions;
  /** True when the app has a `serialize` of its own, which may add fields to every record. */
  serialize?: boolean;
  /** The access rules and `auth`, when the app has them. */
  access?: DocumentAccess;
}

type Operation = Record<string, unknown>;

function kindOf(endpoint: RouteEntry): OperationKind {
  if (endpoint.force) return "forceDelete";
  const kinds: Record<string, OperationKind> = {
    paginate: "list",
    insert: "create",
    show: "show",
    update: "replace",
    patch: "patch",
    delete: "delete",
  };
  return kinds[endpoint.name];
}

function summaryOf(kind: OperationKind, route: Route): string {
  const { model, parent } = route;
  const under = parent ? ` of a ${parent.model.name} (relation ${parent.relation})` : "";
  const summaries: Record<OperationKind, string> = {
    list: `List ${model.route}${under}`,
    create: `Create a ${model.name}${parent ? ` for a ${parent.model.name} (relation ${parent.relation})` : ""}`,
    show: `Show a ${model.name}${under}`,
    replace: `Replace a ${model.name}${under}`,
    patch: `Change some fields of a ${model.name}${under}`,
    delete: `${model.softDelete ? "Soft-delete" : "Delete"} a ${model.name}${under}`,
    forceDelete: `Delete a ${model.name}${under} for good`,
    options: "The methods this path serves",
  };
  return summaries[kind];
}

/** The old child-route URL of a relation: still served, documented as deprecated. */
function legacyNote(link: ParentLink): Operation {
  const segment = relationSegment(link.relation);
  return {
    deprecated: true,
    description: `The old URL of relation \`${link.relation}\`: use \`…/${segment}\` instead.`,
  };
}

function requestBody(kind: OperationKind, route: Route): Operation | undefined {
  const name = route.model.name;
  if (!["create", "replace", "patch"].includes(kind)) return undefined;
  const partial = kind === "patch";
  if (!route.parent) {
    return {
      required: true,
      content: { "application/json": { schema: ref(`${name}${partial ? "Patch" : "Input"}`) } },
    };
  }
  const schema = inputSchema(route.model, partial, route.parent.foreignKey);
  return {
    required: true,
    description: `\`${route.parent.foreignKey}\` comes from the path.`,
    content: { "application/json": { schema } },
  };
}

function operationInfo(source: DocumentSource, route: Route, endpoint: RouteEntry, kind: OperationKind): OperationInfo {
  const op: OperationInfo = {
    kind,
    model: route.model,
    registry: source.registry,
    limits: source.limits,
    nested: route.parent !== undefined,
    hooked: isHooked(route, endpoint, source.limits.maxRelationDepth),
    rateLimited: isRateLimited(source.rateLimit, route.model.name, endpoint.name),
    serialized: source.serialize === true || route.model.serialize !== undefined,
  };
  if (route.parent) op.relation = linkRelation(route.parent);
  const roles = source.access && rolesOf(source.access, op);
  if (roles !== undefined) op.access = { roles, credentials: source.access!.auth !== undefined };
  return op;
}

function operation(source: DocumentSource, route: Route, endpoint: RouteEntry, path: string): Operation {
  const kind = kindOf(endpoint);
  const op = operationInfo(source, route, endpoint, kind);
  const body = requestBody(kind, route);
  const parameters = parametersOf(path, op, ancestorsOf(route.parent));
  return {
    summary: summaryOf(kind, route),
    ...(route.parent?.legacy ? legacyNote(route.parent) : {}),
    tags: [route.model.name],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    ...operationSecurity(source.access, op),
    responses: withExamples(responsesOf(op), route.model),
  };
}

/**
 * OPTIONS, which every path answers (204 with `Allow`, before any handler), counted only by an
 * app-wide rate limit; the route of `endpoint` (any of the path's) names its model.
 */
function optionsOperation(source: DocumentSource, endpoint: RouteEntry): Operation {
  const route = endpoint.target.route;
  const op = operationInfo(source, route, endpoint, "options");
  op.rateLimited = countsEveryRequest(source.rateLimit);
  return { summary: summaryOf("options", route), tags: [route.model.name], responses: responsesOf(op) };
}

/** HEAD, served wherever GET is: the same parameters and statuses, no bodies. */
function headOperation(get: Operation, getId: string): Operation {
  const responses = headResponses(get.responses as Record<string, Record<string, unknown>>);
  return {
    ...get,
    operationId: `head${getId[0].toUpperCase()}${getId.slice(1)}`,
    summary: `${get.summary} (headers only)`,
    responses,
  };
}

function modelSchemas(registry: ModelRegistry, model: Model, appSerializer: boolean): Record<string, JsonSchema> {
  // A serializer runs on records loaded through `with` too, so the Related variant is open as well.
  const serialized = appSerializer || model.serialize !== undefined;
  return {
    [model.name]: { ...recordSchema(registry, model, false, serialized), ...recordExample(model) },
    [`${model.name}Full`]: recordSchema(registry, model, false, serialized, true),
    [`${model.name}Related`]: recordSchema(registry, model, true, serialized),
    [`${model.name}Page`]: {
      type: "object",
      properties: { data: { type: "array", items: ref(model.name) }, pagination: ref("Pagination") },
      required: ["data", "pagination"],
      additionalProperties: false,
    },
    [`${model.name}Input`]: inputSchema(model, false),
    [`${model.name}Patch`]: inputSchema(model, true),
  };
}

function info(options: OpenApiOptions): Record<string, unknown> {
  return {
    title: options.title ?? "mongorest API",
    version: options.version ?? "1.0.0",
    ...(options.description ? { description: options.description } : {}),
  };
}

/**
 * The OpenAPI 3.1 document of an app, built once at start-up from the same routes the router
 * registers: every enabled operation, nested ones included, with its parameters and their
 * real limits, its request body, and every response it can give. Hidden fields never appear.
 */
export function buildOpenApiDocument(source: DocumentSource): Record<string, unknown> {
  const options = source.options ?? {};
  const models = [...source.registry.values()];
  checkSchemaNames(models);
  const schemas: Record<string, JsonSchema> = { ...COMMON_SCHEMAS };
  for (const model of models) Object.assign(schemas, modelSchemas(source.registry, model, source.serialize === true));
  return {
    openapi: "3.1.0",
    info: info(options),
    // Relative: the paths already hold the base path. Linters want a servers entry.
    servers: options.servers ? options.servers.map((server) => ({ ...server })) : [{ url: "/" }],
    tags: models.map((model) => ({
      name: model.name,
      ...(model.description ? { description: model.description } : {}),
    })),
    paths: pathsOf(source),
    components: {
      schemas,
      ...(source.access?.auth ? { securitySchemes: securitySchemes(source.access.auth) } : {}),
    },
  };
}

/** The operation with an id no other operation has (`_2`, `_3` … appended if needed), which it then takes. */
function freeId(op: Operation, taken: Set<string>): Operation {
  const base = op.operationId as string;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return { ...op, operationId: id };
}

/** Every enabled route's operation by path and method, each with an operation id unique in the document. */
function pathsOf(source: DocumentSource): Record<string, Record<string, Operation>> {
  const enabled = source.table.filter((endpoint) => endpoint.enabled);
  const ids = uniqueOperationIds(enabled.map((endpoint) => operationIds(kindOf(endpoint), endpoint.target.route)));
  const paths: Record<string, Record<string, Operation>> = {};
  const taken = new Set(ids);
  enabled.forEach((endpoint, index) => {
    const path = endpoint.path.replace(/:(\w+)/g, "{$1}");
    const op = operation(source, endpoint.target.route, endpoint, path);
    const item = paths[path] ??= {};
    item[endpoint.method.toLowerCase()] = { operationId: ids[index], ...op };
    if (endpoint.method === "GET") item.head = freeId(headOperation(item.get, ids[index]), taken);
  });
  for (const [path, item] of Object.entries(paths)) {
    const first = enabled.find((endpoint) => endpoint.path.replace(/:(\w+)/g, "{$1}") === path)!;
    const id = (item.get ?? item.post ?? item.delete ?? Object.values(item)[0]).operationId as string;
    item.options = freeId(
      { operationId: `options${id.replace(/^[a-z]+/, "")}`, ...optionsOperation(source, first) },
      taken,
    );
  }
  return paths;
}
