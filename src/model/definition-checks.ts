import {
  HANDLER_NAMES,
  type IndexDefinition,
  type ModelDefinition,
  READ_ONLY_FIELDS,
  SYSTEM_FIELDS,
} from "./definition.ts";
import { checkRelationKeys } from "./relations.ts";
import { checkKeys, isPlainObject } from "./strict.ts";

// Records over the interfaces' keys, so a new option that is not listed here fails to compile.
const MODEL_KEYS = Object.keys(
  {
    name: 1,
    fields: 1,
    hidden: 1,
    relations: 1,
    perPage: 1,
    maxPerPage: 1,
    handlers: 1,
    unique: 1,
    indexes: 1,
    softDelete: 1,
    route: 1,
    collection: 1,
    sortable: 1,
    filterable: 1,
    defaultCount: 1,
    countLimit: 1,
    maxExactCount: 1,
    maxStringLength: 1,
    maxStringLengths: 1,
    description: 1,
    descriptions: 1,
    loadable: 1,
    serialize: 1,
    cache: 1,
    queryTimeMs: 1,
    params: 1,
    access: 1,
  } satisfies Record<keyof ModelDefinition, 1>,
);
const INDEX_KEYS = Object.keys(
  { keys: 1, unique: 1, name: 1, collation: 1 } satisfies Record<keyof IndexDefinition, 1>,
);

/** Unknown keys anywhere in a definition stop start-up, naming the key, the model and what is allowed. */
export function checkDefinitionKeys(def: ModelDefinition): void {
  if (!isPlainObject(def)) {
    throw new TypeError(`defineModel takes an object, got ${def === null ? "null" : typeof def}`);
  }
  const where = `Model ${typeof def.name === "string" ? def.name : "(unnamed)"}`;
  checkKeys(where, def, MODEL_KEYS);
  if (!isPlainObject(def.fields)) throw new TypeError(`${where}: fields must be an object of superstruct structs`);
  checkRelationKeys(where, def.relations ?? {});
  def.indexes?.forEach((index, i) => checkKeys(`${where}, indexes[${i}]`, index, INDEX_KEYS));
  if (def.handlers !== undefined) checkKeys(`${where}, handlers`, def.handlers, HANDLER_NAMES);
}

/** What a field's definition is, when it is no struct: said so that the fix is plain. */
function notAStruct(value: unknown): string {
  if (typeof value === "function") {
    const name = value.name || "a function";
    return `got the function ${name}, not a struct: call it (${name}())`;
  }
  if (typeof value === "string") return `got the string ${JSON.stringify(value)}: write a struct such as string()`;
  if (value === null || typeof value !== "object") return `got ${String(value)}: write a struct such as string()`;
  return "got a plain object (a Mongoose-style { type: … }?): write a superstruct struct such as string()";
}

/** A superstruct struct, from this copy of superstruct or another: it validates and has a type. */
function isStruct(value: unknown): boolean {
  const candidate = value as { validate?: unknown; type?: unknown } | null;
  return typeof candidate?.validate === "function" && typeof candidate.type === "string";
}

/** Every field is a superstruct struct: anything else would fail at the first request, naming neither model nor field. */
export function checkFieldStructs(def: ModelDefinition): void {
  for (const [field, value] of Object.entries(def.fields)) {
    if (!isStruct(value)) throw new TypeError(`Model ${def.name}: field "${field}" ${notAStruct(value)}`);
  }
}

/** A model without fields starts no more quietly than one with a mistake in them. */
export function checkHasFields(def: ModelDefinition): void {
  if (Object.keys(def.fields).length === 0) {
    throw new TypeError(
      `Model ${def.name}: fields is empty; declare at least one field (its records would hold nothing but id and timestamps)`,
    );
  }
}

function checkDeclared(def: ModelDefinition, what: string, names: Iterable<string>): void {
  for (const name of names) {
    if (!(name in def.fields)) throw new TypeError(`Model ${def.name}: ${what} field "${name}" is not defined`);
  }
}

/**
 * The model's name and field names have the shapes routes, collections and queries rely on, and
 * every field named elsewhere in the definition (hidden, unique, descriptions) is one it has.
 */
export function checkNames(def: ModelDefinition): void {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(def.name)) {
    throw new TypeError(`Model name "${def.name}" must be PascalCase (letters and digits, starting upper case)`);
  }
  for (const field of Object.keys(def.fields)) {
    if (READ_ONLY_FIELDS.has(field)) {
      throw new TypeError(`Model ${def.name}: "${field}" is set by the framework and cannot be declared`);
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
      throw new TypeError(`Model ${def.name}: field name "${field}" must be letters, digits and underscores`);
    }
  }
  checkDeclared(def, "hidden", def.hidden ?? []);
  checkDeclared(def, "unique", def.unique ?? []);
  for (const name of Object.keys(def.descriptions ?? {})) {
    if (!(name in def.fields) && !SYSTEM_FIELDS.includes(name) && name !== "deleted_at") {
      throw new TypeError(`Model ${def.name}: description given for undefined field "${name}"`);
    }
  }
}
