import { readsSomeFields } from "../model/access.ts";
import type { Struct } from "superstruct";
import { maxStringLength, type Model } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import { outputOrder } from "../model/serialize.ts";
import { clearableFields, requiredFields } from "../model/validate.ts";
import { EMAIL_PATTERN } from "../model/types.ts";

/** Any superstruct struct: its type parameters are invariant, so no narrower type takes every field's struct. */
// deno-lint-ignore no-explicit-any
type AnyStruct = Struct<any, any>;

/** A JSON Schema 2020-12 object, as OpenAPI 3.1 embeds it. */
export type JsonSchema = Record<string, unknown>;

/** `$ref` to a schema under `components.schemas`. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

const TIMESTAMP: JsonSchema = { type: "string", format: "date-time", examples: ["2026-01-02T03:04:05.678Z"] };

/** The largest integer a record holds: the shape check refuses integers beyond ±(2^53 − 1), which lose precision. */
const MAX_INTEGER = Number.MAX_SAFE_INTEGER;

const SYSTEM_SCHEMAS: Record<string, JsonSchema> = {
  id: {
    type: "integer",
    minimum: 1,
    maximum: MAX_INTEGER,
    description: "Set by the framework: 1, 2, 3 … per model, never reused.",
  },
  created_at: { ...TIMESTAMP, description: "Set by the framework when the record is created." },
  updated_at: { ...TIMESTAMP, description: "Set by the framework on every write." },
  deleted_at: {
    type: ["string", "null"],
    format: "date-time",
    description: "Set by DELETE on a soft-delete model; null while live.",
  },
};

/**
 * The dates a body may send, as `parseIsoDate` (model/dates.ts) reads them: a date, or a
 * date-time with or without seconds, fraction (up to 9 digits) and zone. Not `format:
 * date-time`, which needs seconds and a zone and allows forms the server refuses (`t`, `z`,
 * leap seconds). Responses always carry full date-times.
 */
const INPUT_DATE: JsonSchema = {
  type: "string",
  pattern:
    "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)?)?$",
  description: "An ISO 8601 date (2026-01-02) or date-time (2026-01-02T03:04, …:05.678Z, …+02:00); no zone is UTC.",
  examples: ["2026-01-02T03:04:05.678Z", "2026-01-02"],
};

/** superstruct's `refine(…, "email", …)` (the framework's `email()`) refuses a non-address with that refinement. */
function isEmail(struct: AnyStruct): boolean {
  return struct.validate("not an address")[0]?.failures()[0]?.refinement === "email";
}

/**
 * `email()`'s grammar (model/types.ts): `format: email` (RFC 5321's mailbox, which every address
 * it takes is) and the pattern that says exactly which, so a record the API stored never fails
 * the document's own schema.
 */
const EMAIL_SCHEMA: JsonSchema = { type: "string", format: "email", pattern: EMAIL_PATTERN.source };

/** What a string schema says of length: the longest string the field may hold (its `maxStringLength`). */
type StringLimit = number | undefined;

function stringSchema(struct: AnyStruct, limit: StringLimit): JsonSchema {
  const base = isEmail(struct) ? { ...EMAIL_SCHEMA } : { type: "string" };
  return limit === undefined ? base : { ...base, maxLength: limit };
}

function integerSchema(struct: AnyStruct): JsonSchema {
  // id() is an integer ≥ 1; a plain integer() takes 0 and negative ones.
  const positive = struct.validate(0)[0] && !struct.validate(1)[0];
  return { type: "integer", minimum: positive ? 1 : -MAX_INTEGER, maximum: MAX_INTEGER };
}

/**
 * A struct's own type, without optional/nullable/default, which superstruct keeps only in its
 * validators; `input` when it describes a request body (dates read more forms than they are sent in).
 */
function baseSchema(struct: AnyStruct, input: boolean, limit: StringLimit): JsonSchema {
  const inner = struct.schema as unknown;
  switch (struct.type) {
    case "string":
      return stringSchema(struct, limit);
    case "integer":
      return integerSchema(struct);
    case "number":
    case "boolean":
      return { type: struct.type };
    case "date":
      return input ? { ...INPUT_DATE } : { type: "string", format: "date-time" };
    case "enums":
      return { enum: Object.values(inner as Record<string, unknown>) };
    case "literal":
      return { const: inner };
    case "array":
      return inner ? { type: "array", items: baseSchema(inner as AnyStruct, input, limit) } : { type: "array" };
    case "object":
    case "type":
      return objectSchema(inner as Record<string, AnyStruct>, struct.type === "object", input, limit);
    default:
      return {};
  }
}

function objectSchema(
  shape: Record<string, AnyStruct> | undefined,
  closed: boolean,
  input: boolean,
  limit: StringLimit,
): JsonSchema {
  if (!shape) return { type: "object" };
  const properties = Object.fromEntries(
    Object.entries(shape).map(([key, struct]) => [key, valueSchema(struct, input, limit)]),
  );
  const required = Object.keys(shape).filter((key) => shape[key].validate(undefined)[0]);
  return { type: "object", properties, required, ...(closed ? { additionalProperties: false } : {}) };
}

/** Adds "null" to a schema's type (or wraps it), for nullable fields and unset optional output fields. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null] };
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: "null" }] };
}

/**
 * The schema of any value a struct accepts: its type, `null` when `nullable()`, and its default;
 * `limit` is the longest string it may hold, nested ones included (the model's string limit).
 */
function valueSchema(struct: AnyStruct, input: boolean, limit: StringLimit): JsonSchema {
  const base = baseSchema(struct, input, limit);
  const schema = struct.validate(null)[0] ? base : orNull(base);
  const fallback = struct.validate(undefined, { coerce: true })[1];
  return fallback === undefined
    ? schema
    : { ...schema, default: fallback instanceof Date ? fallback.toISOString() : fallback };
}

function described(model: Model, field: string, schema: JsonSchema): JsonSchema {
  const description = model.descriptions[field];
  return description === undefined ? schema : { ...schema, description };
}

/** Writable, visible fields of a model. Hidden fields never reach the document. */
function writableFields(model: Model): string[] {
  return Object.keys(model.fields).filter((field) => !model.hidden.has(field));
}

/**
 * The body of POST and PUT (`partial` false: required fields listed) or PATCH (`partial`);
 * `fromPath` is a nested route's foreign key, which the path supplies.
 * A model with hidden fields accepts them too, without the document naming them, so its
 * body schema stays open; otherwise unknown fields are refused, as the API refuses them.
 */
export function inputSchema(model: Model, partial: boolean, fromPath?: string): JsonSchema {
  const fields = writableFields(model).filter((field) => field !== fromPath);
  // An optional field takes null as "no value" (PATCH removes it), as responses show it.
  const clearable = clearableFields(model);
  const inputOf = (field: string): JsonSchema => {
    const schema = valueSchema(model.fields[field], true, maxStringLength(model, field));
    return clearable.has(field) ? orNull(schema) : schema;
  };
  const properties = Object.fromEntries(fields.map((field) => [field, described(model, field, inputOf(field))]));
  const required = partial ? [] : fields.filter((field) => requiredFields(model).has(field));
  const closed = model.hidden.size === 0;
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

function outputFieldSchema(model: Model, field: string): JsonSchema {
  const system = SYSTEM_SCHEMAS[field];
  if (system) return described(model, field, { ...system, readOnly: true });
  const schema = valueSchema(model.fields[field], false, maxStringLength(model, field));
  // A field left unset is sent as null.
  const output = requiredFields(model).has(field) ? schema : orNull(schema);
  const { default: _default, ...withoutDefault } = output;
  return described(model, field, withoutDefault);
}

function relationSchema(registry: ModelRegistry, model: Model, relation: string): JsonSchema {
  const rel = model.relations.get(relation)!;
  const target = registry.get(rel.model)!;
  const item = ref(`${target.name}Related`);
  const description = `Loaded only when asked for with \`with=${relation}\`.`;
  if (rel.type === "hasMany") return { type: "array", items: item, description };
  return { anyOf: [item, { type: "null" }], description };
}

/**
 * A record as responses carry it: `id`, the visible fields, the timestamps (read-only) and the
 * relations `with` can add. `fields` can narrow it, so only `id` is always there; a record loaded
 * through `with` (the `<Model>Related` variant) need not even have that. `full`: the record a
 * write answers (writes take no `fields`), with every visible field; a schema cannot tie a
 * read's response to whether it sent `fields`, so reads keep the narrowable variant. When a serializer
 * (`serialized`: the model's or the app's) shapes the records, it may add fields no schema can
 * name, so the record stays open to them.
 */
export function recordSchema(
  registry: ModelRegistry,
  model: Model,
  related: boolean,
  serialized = false,
  full = false,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of outputOrder(model)) properties[field] = outputFieldSchema(model, field);
  for (const relation of model.relations.keys()) properties[relation] = relationSchema(registry, model, relation);
  // The full variant (`<Model>Full`): what a response without `fields` carries, every visible
  // field, unless access rules show some roles only some fields.
  const every = full && !serialized && !readsSomeFields(model.access);
  const required = every ? [...outputOrder(model)] : related ? [] : ["id"];
  return {
    type: "object",
    ...(model.description ? { description: model.description } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(serialized ? {} : { additionalProperties: false }),
  };
}

/** The schemas every document has: the pagination object and the three error bodies. */
export const COMMON_SCHEMAS: Readonly<Record<string, JsonSchema>> = Object.freeze({
  Pagination: {
    type: "object",
    description:
      "`from` and `to` are the zero-based, half-open window of the page. In cursor mode `currentPage`, `from` and `to` are null; with `count=none`, `total` and `lastPage` are null.",
    properties: {
      total: {
        type: ["integer", "null"],
        minimum: 0,
        description: "Records that match, on every page; how it was counted is in `count`.",
      },
      lastPage: { type: ["integer", "null"], minimum: 1, description: "max(1, ceil(total / perPage))." },
      perPage: { type: "integer", minimum: 1 },
      currentPage: { type: ["integer", "null"], minimum: 1 },
      from: { type: ["integer", "null"], minimum: 0, description: "(currentPage - 1) * perPage." },
      to: { type: ["integer", "null"], minimum: 1, description: "from + perPage." },
      count: { enum: ["exact", "estimated", "capped", "none"], description: "How `total` was produced." },
      next: {
        type: ["string", "null"],
        description: "Opaque cursor of the following page (`?cursor=`), null at the end.",
      },
      prev: { type: ["string", "null"], description: "Opaque cursor of the preceding page, null at the start." },
    },
    required: ["total", "lastPage", "perPage", "currentPage", "from", "to", "count", "next", "prev"],
    additionalProperties: false,
  },
  // Not `Error`, which generated clients would declare over the language's own Error class.
  ErrorBody: {
    type: "object",
    description: "A single-message error.",
    properties: { error: { type: "string" } },
    required: ["error"],
    additionalProperties: false,
  },
  ValidationErrors: {
    type: "object",
    description: "Every invalid field of the body at once, each with its messages.",
    properties: {
      errors: {
        type: "object",
        additionalProperties: { type: "array", items: { type: "string" }, minItems: 1 },
        examples: [{ email: ["The email field is required."] }],
      },
    },
    required: ["errors"],
    additionalProperties: false,
  },
  InternalErrorBody: {
    type: "object",
    description: "An unexpected error, in production (NODE_ENV=production).",
    properties: { message: { const: "An error occurred!" } },
    required: ["message"],
    additionalProperties: false,
  },
});
