import { holdsManyValues, SYSTEM_FIELDS } from "../model/define.ts";
import { type OperationInfo, READS, RECORD_WRITES } from "./kinds.ts";
import type { JsonSchema } from "./schemas.ts";

/** An OpenAPI Parameter Object. */
export type Parameter = Record<string, unknown>;

/** One query or header parameter: where it applies, and how it reads there. */
interface ParameterEntry {
  appliesTo(op: OperationInfo): boolean;
  build(op: OperationInfo): Parameter;
}

const isList = (op: OperationInfo) => op.kind === "list";
const isRead = (op: OperationInfo) => READS.includes(op.kind);

/**
 * A comma-separated list (`fields=id,name`): an array in OpenAPI's form style, not exploded.
 * The server also joins repeats (`fields=id&fields=name`, what openapi-fetch and other clients
 * send by default), so either serialization works.
 */
function commaList(name: string, items: JsonSchema, description: string): Parameter {
  return {
    name,
    in: "query",
    style: "form",
    explode: false,
    description:
      `${description} Repeating the parameter (\`${name}=a&${name}=b\`) is the same as listing the values once.`,
    schema: { type: "array", items: { type: "string", ...items }, uniqueItems: true },
  };
}

/** The model's first own visible field (after id and the timestamps), for examples. */
function ownField(model: OperationInfo["model"]): string {
  return model.visible.find((name) => !SYSTEM_FIELDS.includes(name)) ?? "id";
}

/** The relations `with` may load: the model's `loadable` ones, or all. */
function relationNames(op: OperationInfo): string[] {
  return [...op.model.relations.keys()].filter((name) => op.model.loadable === null || op.model.loadable.has(name));
}

function withExample(op: OperationInfo): string {
  const [name] = relationNames(op);
  if (name === undefined) return "";
  return `${name}{${ownField(op.registry.get(op.model.relations.get(name)!.model)!)}}`;
}

/** The largest page of a list: the model's, or a nested list's smaller relation `limit`. */
function largestPage(op: OperationInfo): number {
  return Math.min(op.model.maxPerPage, op.relation?.limit ?? Infinity);
}

/** The fields a list may be sorted on: the model's `sortable` list (id included), else every visible field with one value. */
function sortableFields(model: OperationInfo["model"]): string[] {
  const allowed = model.sortable;
  return allowed
    ? model.visible.filter((name) => allowed.has(name))
    : model.visible.filter((name) => !holdsManyValues(model, name));
}

/** The order of a list without `sort`: id, or on a nested list the relation's `sort`, then id. */
function defaultOrder(op: OperationInfo): string {
  const keys = Object.entries(op.relation?.sort ?? {}).map((
    [field, direction],
  ) => (direction === -1 ? `-${field}` : field));
  return keys.length === 0 ? "`id`" : `the relation's, \`${[...keys, "id"].join(",")}\``;
}

/** A value `q` takes for `field` (by its kind, as where-conditions check it), or undefined for one without a simple sample. */
function sampleValue(model: OperationInfo["model"], field: string): unknown {
  const struct = model.fields[field];
  switch (model.kinds.get(field)) {
    case "boolean":
      return true;
    case "date":
      return "2026-01-02";
    case "integer":
    case "number":
      return 1;
    case "string":
      return ["Karl", "ada@example.com"].find((sample) => !struct?.validate(sample)[0]) ?? "Karl";
  }
  // enums(): their first value; arrays, objects and other kinds get no example.
  return struct?.type === "enums" ? Object.values(struct.schema as Record<string, unknown>)[0] : undefined;
}

/** The first own field `q` may filter on with a sample value of its kind; else `id` = 1. */
function equalsExample(model: OperationInfo["model"]): [string, unknown] {
  for (const field of model.visible) {
    if (SYSTEM_FIELDS.includes(field) || holdsManyValues(model, field)) continue;
    if (model.filterable !== null && !model.filterable.has(field)) continue;
    const value = sampleValue(model, field);
    if (value !== undefined) return [field, value];
  }
  return ["id", 1];
}

function qExamples(op: OperationInfo): Record<string, { summary: string; value: string }> {
  const [field, value] = equalsExample(op.model);
  // The docs page fills a parameter with its first example, so the first one asks for nothing.
  return {
    none: { summary: "no condition: every record", value: "" },
    equals: { summary: `${field} equals a value`, value: JSON.stringify({ [field]: value }) },
    range: { summary: "id greater than 10 and up to 20", value: JSON.stringify({ "id.$gt": 10, "id.$lte": 20 }) },
    either: { summary: "one condition or another", value: JSON.stringify([{ id: 1 }, { "$or.id": 2 }]) },
  };
}

/**
 * The query parameters of the generated routes, in the order they are documented. New list
 * parameters (cursors, count strategies) are one more entry here.
 */
export const QUERY_PARAMETERS: readonly ParameterEntry[] = [
  {
    appliesTo: isList,
    // No `default` in the schemas of page, per_page, count and trashed: the docs page fills
    // defaults in, and page (or a per_page the cursor was not made for) next to a cursor is a 400.
    build: (op) => ({
      name: "page",
      in: "query",
      description:
        `Page number, from 1; default 1. A page past the end is 200 with no data. At most ⌊(2^53 − 1) / per_page⌋, so the page's offset stays an exact integer; the schema's maximum is that bound for the largest page (${
          largestPage(op)
        }), which holds for every per_page. Not with \`cursor\`.`,
      schema: { type: "integer", minimum: 1, maximum: Math.floor(Number.MAX_SAFE_INTEGER / largestPage(op)) },
    }),
  },
  {
    appliesTo: isList,
    build: (op) => ({
      name: "per_page",
      in: "query",
      description: `Page size, from 1 to ${largestPage(op)}; default ${
        Math.min(op.model.perPage, largestPage(op))
      }. Values outside are refused, never clamped. With \`cursor\`, only the size the cursor was made for.`,
      schema: { type: "integer", minimum: 1, maximum: largestPage(op) },
    }),
  },
  {
    appliesTo: isList,
    build: () => ({
      name: "cursor",
      in: "query",
      description:
        "Pages by key instead of by number: send `pagination.next` or `pagination.prev` exactly as received. The cursor pins the sort, `q`, `trashed` and the page size; combined with `page` or a different `sort`, `q` or `per_page` it is a 400.",
      schema: { type: "string" },
    }),
  },
  {
    appliesTo: isList,
    build: ({ model }) => ({
      name: "count",
      in: "query",
      description:
        "How `pagination.total` is counted: `exact`, `estimated` (the collection's metadata count without a filter, else a count capped at " +
        `${model.countLimit}) or \`none\` (no count; \`total\` and \`lastPage\` are null); default \`${model.defaultCount}\`.`,
      schema: { type: "string", enum: ["exact", "estimated", "none"] },
    }),
  },
  {
    appliesTo: isRead,
    build: ({ model }) =>
      commaList(
        "fields",
        { enum: [...model.visible] },
        `Columns to return, e.g. \`id,${ownField(model)}\`; \`id\` always comes along.`,
      ),
  },
  {
    appliesTo: isList,
    build: (op) =>
      commaList(
        "sort",
        { enum: sortableFields(op.model).flatMap((name) => [name, `+${name}`, `-${name}`]) },
        `Sort keys, \`-\` for descending (\`+\` or nothing for ascending), e.g. \`-created_at,id\`; ties are broken by \`id\`, so pages are stable. Default: ${
          defaultOrder(op)
        }.`,
      ),
  },
  {
    appliesTo: isList,
    build: (op) => ({
      name: "q",
      in: "query",
      description:
        `Where-conditions as JSON: an object, or an array of objects and nested arrays; keys are field names with an optional operator suffix (\`age.$gte\`), or \`<relation>.<field>\` of a belongsTo or hasOne relation (matching at most ${op.limits.maxInList} related records). At most ${op.limits.maxQueryLength} bytes and ${op.limits.maxConditions} conditions.`,
      schema: { type: "string" },
      examples: qExamples(op),
    }),
  },
  {
    appliesTo: (op) => isRead(op) && relationNames(op).length > 0,
    build: (op) => ({
      name: "with",
      in: "query",
      description: `Related records to include: ${
        relationNames(op).map((name) => `\`${name}\``).join(", ")
      }, separated by commas, each optionally with its fields and further relations in braces, e.g. \`${
        withExample(op)
      }\`. At most ${op.limits.maxRelations} relations, ${op.limits.maxRelationDepth} levels deep.`,
      schema: { type: "string" },
    }),
  },
  {
    appliesTo: (op) => isRead(op) && op.model.softDelete,
    build: () => ({
      name: "trashed",
      in: "query",
      description: "`true` includes soft-deleted records; default `false`.",
      schema: { type: "boolean" },
    }),
  },
  {
    appliesTo: isRead,
    build: () => ({
      name: "If-None-Match",
      in: "header",
      description: "An ETag from an earlier answer: a match gives 304.",
      schema: { type: "string" },
    }),
  },
  {
    appliesTo: isRead,
    build: () => ({
      name: "If-Match",
      in: "header",
      description: "An ETag from an earlier answer: 412 unless it still names the current version.",
      schema: { type: "string" },
    }),
  },
  {
    appliesTo: (op) => RECORD_WRITES.includes(op.kind),
    build: () => ({
      name: "If-Match",
      in: "header",
      description: "The record's ETag: the write happens only if it still matches, else 412.",
      schema: { type: "string" },
    }),
  },
  {
    appliesTo: (op) => RECORD_WRITES.includes(op.kind),
    build: () => ({
      name: "If-None-Match",
      in: "header",
      description:
        "`*`, or ETags: the write happens only if none names the record's current version (checked after If-Match), else 412.",
      schema: { type: "string" },
    }),
  },
];

/** An ancestor of a nested route: its path parameter and model. */
export interface PathAncestor {
  param: string;
  model: { name: string };
}

/** The path parameters of an operation: every ancestor's id on nested routes, the record's id on record routes. */
export function pathParameters(path: string, op: OperationInfo, ancestors: readonly PathAncestor[] = []): Parameter[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const ancestor = ancestors.find((step) => step.param === name);
    return {
      name,
      in: "path",
      required: true,
      description: ancestor
        ? `The id of the ${ancestor.model.name} the records belong to.`
        : `The ${op.model.name}'s id.`,
      schema: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    };
  });
}

/** The parameters a model's hooks read (its `params`): any other is refused, so these are documented too. */
function hookParameters(op: OperationInfo): Parameter[] {
  return [...op.model.params].map((name) => ({
    name,
    in: "query",
    description: `Read by ${op.model.name}'s hooks.`,
    schema: { type: "string" },
  }));
}

/** Every parameter of an operation: path parameters first, then the table's entries that apply, then the hooks'. */
export function parametersOf(path: string, op: OperationInfo, ancestors: readonly PathAncestor[] = []): Parameter[] {
  return [
    ...pathParameters(path, op, ancestors),
    ...QUERY_PARAMETERS.filter((entry) => entry.appliesTo(op)).map((entry) => entry.build(op)),
    ...hookParameters(op),
  ];
}
