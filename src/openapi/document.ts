import type { Route } from "../handlers/route.ts";
import type { RouteEntry } from "../handlers/table.ts";
import type { ModelHooks } from "../handlers/context.ts";
import { ancestorsOf, linkRelation, type ParentLink } from "../handlers/nested.ts";
import { relationSegment } from "../model/naming.ts";
import type { HandlerName, Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { QueryLimits } from "../query/limits.ts";
import type { OperationInfo, OperationKind } from "./kinds.ts";
import { parametersOf } from "./parameters.ts";
import { responsesOf } from "./responses.ts";
import { COMMON_SCHEMAS, inputSchema, type JsonSchema, recordSchema, ref } from "./schemas.ts";

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
const FORCE_HOOKS: (keyof ModelHooks)[] = ["onBeforeForceDelete", "onAfterForceDelete"];

function pascalPlural(model: Model): string {
  return model.route.split("-").map((part) => part[0].toUpperCase() + part.slice(1)).join("");
}

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

function pascal(segment: string): string {
  return segment.split("-").map((part) => part[0].toUpperCase() + part.slice(1)).join("");
}

/**
 * How a route is named in operation ids: top-level by its model; nested by every ancestor
 * model and the relation (`UserOwnedPosts`), or the child model where the relation is named
 * after it (`UserPosts`, `UserPost`), so ids stay unique and the old ones stay as they were.
 */
function labels(route: Route): { many: string; one: string } {
  const { model, parent } = route;
  if (!parent) return { many: pascalPlural(model), one: model.name };
  const prefix = ancestorsOf(parent).map((step) => step.model.name).join("");
  if (parent.segment === model.route) return { many: prefix + pascalPlural(model), one: prefix + model.name };
  return { many: prefix + pascal(parent.segment), one: `${prefix}${pascal(parent.segment)}Item` };
}

function naming(kind: OperationKind, route: Route): { id: string; summary: string } {
  const { model, parent } = route;
  const under = parent ? ` of a ${parent.model.name} (relation ${parent.relation})` : "";
  const { many, one } = labels(route);
  const names: Record<OperationKind, { id: string; summary: string }> = {
    list: { id: `list${many}`, summary: `List ${model.route}${under}` },
    create: {
      id: `create${one}`,
      summary: `Create a ${model.name}${parent ? ` for a ${parent.model.name} (relation ${parent.relation})` : ""}`,
    },
    show: { id: `show${one}`, summary: `Show a ${model.name}${under}` },
    replace: { id: `replace${one}`, summary: `Replace a ${model.name}${under}` },
    patch: { id: `patch${one}`, summary: `Change some fields of a ${model.name}${under}` },
    delete: { id: `delete${one}`, summary: `${model.softDelete ? "Soft-delete" : "Delete"} a ${model.name}${under}` },
    forceDelete: { id: `forceDelete${one}`, summary: `Delete a ${model.name}${under} for good` },
  };
  return names[kind];
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

function operation(source: DocumentSource, route: Route, endpoint: RouteEntry, path: string): Operation {
  const kind = kindOf(endpoint);
  const hooks = (endpoint.force ? FORCE_HOOKS : HOOKS_OF[endpoint.name]).filter((name) =>
    route.hooks[name] !== undefined
  );
  const nested = route.parent !== undefined;
  const op: OperationInfo = {
    kind,
    model: route.model,
    registry: source.registry,
    limits: source.limits,
    nested,
    hooked: hooks.length > 0,
  };
  if (route.parent) op.relation = linkRelation(route.parent);
  const { id, summary } = naming(kind, route);
  const body = requestBody(kind, route);
  const parameters = parametersOf(path, op, ancestorsOf(route.parent));
  return {
    operationId: id,
    summary,
    ...(route.parent?.legacy ? legacyNote(route.parent) : {}),
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
    tags: models.map((model) => ({
      name: model.name,
      ...(model.description ? { description: model.description } : {}),
    })),
    paths,
    components: { schemas },
  };
}
