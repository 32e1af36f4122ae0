import type { Route } from "../handlers/route.ts";
import type { RouteEntry } from "../handlers/table.ts";
import type { ModelHooks } from "../handlers/context.ts";
import type { HandlerName, Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { QueryLimits } from "../query/limits.ts";
import type { OperationInfo, OperationKind } from "./kinds.ts";
import { parametersOf } from "./parameters.ts";
import { responsesOf } from "./responses.ts";
import { COMMON_SCHEMAS, inputSchema, recordSchema, ref, type JsonSchema } from "./schemas.ts";

/** What an app may say about itself in its OpenAPI document (`createApp({ openapi: … })`). */
export interface OpenApiOptions {
  /** `info.title`; default "mongorest API". */
  title?: string;
  /** `info.version`, the version of your API (not of OpenAPI); default "1.0.0". */
  version?: string;
  /** `info.description`, Markdown. */
  description?: string;
  /** Where the API is served; default: the server the document came from. */
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
}

type Operation = Record<string, unknown>;

/** The hooks that run for each handler. */
const HOOKS_OF: Record<HandlerName, (keyof ModelHooks)[]> = {
  paginate: ["onBeforePaginate", "onAfterPaginate"],
  show: ["onBeforeShow", "onAfterShow"],
  insert: ["onBeforeInsert", "onAfterInsert"],
  update: ["onBeforeUpdate", "onAfterUpdate"],
  patch: ["onBeforePatch", "onAfterPatch"],
  delete: ["onBeforeDelete", "onAfterDelete"],
};

function pascalPlural(model: Model): string {
  return model.route.split("-").map((part) => part[0].toUpperCase() + part.slice(1)).join("");
}

function kindOf(endpoint: RouteEntry): OperationKind {
  if (endpoint.force) return "forceDelete";
  const kinds: Record<string, OperationKind> = { paginate: "list", insert: "create", show: "show", update: "replace", patch: "patch", delete: "delete" };
  return kinds[endpoint.name];
}

function naming(kind: OperationKind, route: Route): { id: string; summary: string } {
  const { model, parent } = route;
  const under = parent ? ` of a ${parent.model.name}` : "";
  const prefix = parent ? parent.model.name : "";
  const names: Record<OperationKind, { id: string; summary: string }> = {
    list: { id: `list${prefix}${pascalPlural(model)}`, summary: `List ${model.route}${under}` },
    create: { id: `create${prefix}${model.name}`, summary: `Create a ${model.name}${parent ? ` for a ${parent.model.name}` : ""}` },
    show: { id: `show${model.name}`, summary: `Show a ${model.name}` },
    replace: { id: `replace${model.name}`, summary: `Replace a ${model.name}` },
    patch: { id: `patch${model.name}`, summary: `Change some fields of a ${model.name}` },
    delete: { id: `delete${model.name}`, summary: model.softDelete ? `Soft-delete a ${model.name}` : `Delete a ${model.name}` },
    forceDelete: { id: `forceDelete${model.name}`, summary: `Delete a ${model.name} for good` },
  };
  return names[kind];
}

function requestBody(kind: OperationKind, route: Route): Operation | undefined {
  const name = route.model.name;
  if (kind === "patch") return { required: true, content: { "application/json": { schema: ref(`${name}Patch`) } } };
  if (kind === "replace" || (kind === "create" && !route.parent)) {
    return { required: true, content: { "application/json": { schema: ref(`${name}Input`) } } };
  }
  if (kind === "create") {
    const schema = inputSchema(route.model, false, route.parent!.foreignKey);
    return { required: true, description: `\`${route.parent!.foreignKey}\` comes from the path.`, content: { "application/json": { schema } } };
  }
  return undefined;
}

function operation(source: DocumentSource, route: Route, endpoint: RouteEntry, path: string): Operation {
  const kind = kindOf(endpoint);
  const hooks = HOOKS_OF[endpoint.name].filter((name) => route.hooks[name] !== undefined);
  const nested = route.parent !== undefined;
  const op: OperationInfo = { kind, model: route.model, registry: source.registry, limits: source.limits, nested, hooked: hooks.length > 0 };
  const { id, summary } = naming(kind, route);
  const body = requestBody(kind, route);
  const parameters = parametersOf(path, op);
  return {
    operationId: id,
    summary,
    tags: [route.model.name],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: responsesOf(op),
  };
}

function modelSchemas(registry: ModelRegistry, model: Model): Record<string, JsonSchema> {
  return {
    [model.name]: recordSchema(registry, model, false),
    [`${model.name}Related`]: recordSchema(registry, model, true),
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
  const paths: Record<string, Record<string, Operation>> = {};
  for (const endpoint of source.table) {
    if (!endpoint.enabled) continue;
    const path = endpoint.path.replace(/:(\w+)/g, "{$1}");
    (paths[path] ??= {})[endpoint.method.toLowerCase()] = operation(source, endpoint.target.route, endpoint, path);
  }
  const models = [...source.registry.values()];
  const schemas: Record<string, JsonSchema> = { ...COMMON_SCHEMAS };
  for (const model of models) Object.assign(schemas, modelSchemas(source.registry, model));
  return {
    openapi: "3.1.0",
    info: info(options),
    ...(options.servers ? { servers: options.servers.map((server) => ({ ...server })) } : {}),
    tags: models.map((model) => ({ name: model.name, ...(model.description ? { description: model.description } : {}) })),
    paths,
    components: { schemas },
  };
}
