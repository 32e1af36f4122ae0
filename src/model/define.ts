/**
 * `defineModel`: a model file's definition, checked and resolved once at start-up. The pieces
 * live by concept: the definition and resolved model types (`definition.ts`), relations and
 * their options (`relations.ts`), page size, counting and string limits (`limits.ts`), and the
 * key and name checks (`definition-checks.ts`). Every layer keeps importing them from here.
 */
import { collectionName, formerNames, routeName } from "./naming.ts";
import {
  type AnyStruct,
  type FieldKind,
  HANDLER_NAMES,
  type HandlerName,
  type Model,
  type ModelDefinition,
} from "./definition.ts";
import { checkDefinitionKeys, checkFieldStructs, checkHasFields, checkNames } from "./definition-checks.ts";
import { positiveInteger, resolveCounting, resolvePaging, resolveStringLimits } from "./limits.ts";
import { resolveLoadable, resolveRelations } from "./relations.ts";
import { resolveAccess } from "./access.ts";

export { COUNT_STRATEGIES, type CountStrategy } from "../store/counts.ts";
export {
  type AnyStruct,
  type FieldKind,
  HANDLER_NAMES,
  type HandlerName,
  type IndexDefinition,
  type Model,
  type ModelDefinition,
  READ_ONLY_FIELDS,
  type SerializeContext,
  type Serializer,
  SYSTEM_FIELDS,
} from "./definition.ts";
export { DEFAULT_MAX_STRING_LENGTH, maxStringLength } from "./limits.ts";
export { type OnDelete, type Relation, type RelationDefinition, type RelationType } from "./relations.ts";

const KNOWN_KINDS = new Set(["string", "integer", "number", "boolean", "date"]);

/** What a field's struct stores: its superstruct type when the framework knows it, else "other". */
export function fieldKind(struct: AnyStruct): FieldKind {
  return KNOWN_KINDS.has(struct.type) ? (struct.type as FieldKind) : "other";
}

function resolveKinds(def: ModelDefinition, hidden: ReadonlySet<string>): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>([["id", "integer"], ["created_at", "date"], ["updated_at", "date"]]);
  for (const [field, struct] of Object.entries(def.fields)) {
    if (!hidden.has(field)) kinds.set(field, fieldKind(struct));
  }
  if (def.softDelete) kinds.set("deleted_at", "date");
  return kinds;
}

/** superstruct types whose values are lists or objects. */
const COMPOUND_TYPES = new Set(["array", "tuple", "object", "type", "record"]);

/**
 * True when a field holds a list or an object rather than one value. MongoDB orders such a
 * value by one of its elements while range conditions match any, so no page cursor can
 * follow a sort on it: such fields are not sortable.
 */
export function holdsManyValues(model: Pick<Model, "fields">, field: string): boolean {
  return COMPOUND_TYPES.has(model.fields[field]?.type ?? "");
}

/** `sortable` / `filterable`: visible fields only, and `id` is always allowed (the primary key's own index). */
function allowedFields(
  def: ModelDefinition,
  option: "sortable" | "filterable",
  visible: ReadonlySet<string>,
): Set<string> | null {
  const names = def[option];
  if (names === undefined) return null;
  for (const name of names) {
    if (!visible.has(name)) throw new TypeError(`Model ${def.name}: ${option} field "${name}" is not a visible field`);
    if (option === "sortable" && holdsManyValues(def, name)) {
      throw new TypeError(
        `Model ${def.name}: sortable field "${name}" holds a list or an object, which cannot be sorted on`,
      );
    }
  }
  return new Set(["id", ...names]);
}

function resolveHandlers(def: ModelDefinition): Set<HandlerName> {
  return new Set(HANDLER_NAMES.filter((name) => def.handlers?.[name] !== false));
}

function resolveOutput(def: ModelDefinition): Pick<Model, "serialize" | "cache"> {
  if (def.serialize !== undefined && typeof def.serialize !== "function") {
    throw new TypeError(`Model ${def.name}: serialize must be a function`);
  }
  if (def.cache !== undefined && typeof def.cache !== "boolean") {
    throw new TypeError(`Model ${def.name}: cache must be true or false`);
  }
  return { serialize: def.serialize, cache: def.cache !== false };
}

const PARAM_NAME = /^[A-Za-z0-9_.~-]+$/;

/** `params`: names a query string can carry as they are (no escapes needed), each once. */
function resolveParams(def: ModelDefinition): ReadonlySet<string> {
  const names = def.params ?? [];
  if (!Array.isArray(names)) throw new TypeError(`Model ${def.name}: params must be a list of parameter names`);
  for (const name of names) {
    if (typeof name !== "string" || !PARAM_NAME.test(name)) {
      throw new TypeError(
        `Model ${def.name}: params holds ${JSON.stringify(name)}; a parameter name is letters, digits and _ . ~ -`,
      );
    }
  }
  return new Set(names);
}

/** The names earlier versions derived, for the collection (and route) this definition leaves derived. */
function formerNamesOf(def: ModelDefinition): Pick<Model, "former"> {
  const former = def.collection === undefined ? formerNames(def.name) : undefined;
  if (former === undefined) return {};
  return { former: def.route === undefined ? former : { collection: former.collection } };
}

/**
 * Turns a model file's definition into a resolved {@link Model}. Throws a TypeError at
 * start-up for definitions that could only fail later, at request time.
 */
export function defineModel(def: ModelDefinition): Model {
  checkDefinitionKeys(def);
  checkNames(def);
  checkFieldStructs(def);
  const hidden = new Set(def.hidden ?? []);
  const kinds = resolveKinds(def, hidden);
  const visible = [...kinds.keys()];
  const visibleSet = new Set(visible);
  const relations = def.relations ?? {};
  const model: Model = Object.freeze({
    name: def.name,
    route: def.route ?? routeName(def.name),
    collection: def.collection ?? collectionName(def.name),
    ...formerNamesOf(def),
    fields: Object.freeze({ ...def.fields }),
    kinds,
    hidden,
    visible,
    visibleSet,
    relations: resolveRelations(def.name, relations),
    ...resolvePaging(def.name, def),
    handlers: resolveHandlers(def),
    unique: [...(def.unique ?? [])],
    indexes: [...(def.indexes ?? [])],
    softDelete: def.softDelete === true,
    sortable: allowedFields(def, "sortable", visibleSet),
    filterable: allowedFields(def, "filterable", visibleSet),
    ...resolveCounting(def.name, def),
    description: def.description,
    descriptions: Object.freeze({ ...def.descriptions }),
    stringLimits: resolveStringLimits(def.name, Object.keys(def.fields), def),
    loadable: resolveLoadable(def.name, relations, def.loadable),
    ...resolveOutput(def),
    queryTimeMs: def.queryTimeMs === undefined
      ? null
      : positiveInteger(def.queryTimeMs, 0, `Model ${def.name}: queryTimeMs`),
    params: resolveParams(def),
    access: resolveAccess(def.name, def.access),
  });
  // Last, so that the checks above keep their own messages for a definition that has no fields yet.
  checkHasFields(def);
  defined.add(model);
  return model;
}

const defined = new WeakSet<object>();

/** True for what {@link defineModel} returned: how a model file's default export is checked at run time. */
export function isModel(value: unknown): value is Model {
  return typeof value === "object" && value !== null && defined.has(value);
}
