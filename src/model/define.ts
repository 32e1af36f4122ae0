import type { Document } from "bson";
import type { Struct } from "superstruct";
import { COUNT_STRATEGIES, type CountStrategy } from "../store/counts.ts";
import { collectionName, routeName } from "./naming.ts";
import { checkKeys, isPlainObject } from "./strict.ts";

/**
 * Any superstruct struct. `Struct<T, S>` is invariant in T, so no type but `any` admits every
 * struct a model may use (string(), optional(number()), custom ones).
 */
// deno-lint-ignore no-explicit-any
export type AnyStruct = Struct<any, any>;

/** The six generated handlers a model can switch on or off. */
export type HandlerName = "paginate" | "show" | "insert" | "update" | "patch" | "delete";

/** Every handler, in the order the router registers them. */
export const HANDLER_NAMES: readonly HandlerName[] = ["paginate", "show", "insert", "update", "patch", "delete"];

/** The kinds of relation a model can declare. */
export type RelationType = "hasMany" | "hasOne" | "belongsTo";

/**
 * A relation as written in a model file. Models refer to each other by name so that model
 * files never import one another (no import cycles, load order does not matter).
 *
 * - hasMany / hasOne: the related model stores `foreignKey`, pointing at this model's `id`.
 * - belongsTo: this model stores `foreignKey`, pointing at the related model's `id`.
 */
export interface RelationDefinition {
  type: RelationType;
  model: string;
  foreignKey: string;
  /**
   * hasMany only: `false` switches off the relation's nested routes (`/users/:userId/posts`
   * and everything below them). Default true.
   */
  routes?: boolean;
  /** Order of the related records in `with` and the nested list's default sort: `{ created_at: -1 }` (id breaks ties). */
  sort?: Record<string, 1 | -1>;
  /**
   * A fixed MongoDB filter the related records must match, in `with` and on the nested routes
   * (the list, and the item routes and routes below, where other children are a 404): `{ status: "published" }`.
   */
  filter?: Document;
  /** hasMany: most related records per parent in `with` (below the app's `maxChildrenPerParent`), and the nested list's largest page. */
  limit?: number;
}

/**
 * A record serializer: gets the record as the framework built it (visible, selected fields,
 * relations attached) and returns the record to send, or changes it in place and returns nothing.
 */
export type Serializer = (record: Record<string, unknown>, ctx: SerializeContext) => Record<string, unknown> | void | Promise<Record<string, unknown> | void>;

/** What a serializer is told: the request being answered and the model the record belongs to. */
export interface SerializeContext {
  request: Request;
  model: Model;
}

export { COUNT_STRATEGIES, type CountStrategy };

/** A secondary index the framework creates at start-up. Keys map field names to 1 or -1. */
export interface IndexDefinition {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  name?: string;
}

/** What a user writes in `models/<Name>.ts`. Only `name` and `fields` are required. */
export interface ModelDefinition {
  /** PascalCase name; drives the route (`BlogPost` → `blog-posts`), collection and messages. */
  name: string;
  /** Writable fields as superstruct structs. A field not wrapped in `optional()` is required on create. */
  fields: Record<string, AnyStruct>;
  /** Fields that are stored but never returned, queried or sorted on (e.g. password hashes). */
  hidden?: readonly string[];
  /** Relations by output key, e.g. `{ posts: { type: "hasMany", model: "Post", foreignKey: "user_id" } }`. */
  relations?: Record<string, RelationDefinition>;
  /** Default page size (10 unless set). */
  perPage?: number;
  /** Largest page size a client may ask for (100 unless set). */
  maxPerPage?: number;
  /** Handlers to switch off: `{ insert: false }`. A switched-off route answers 404. */
  handlers?: Partial<Record<HandlerName, boolean>>;
  /** Fields that must be unique; the framework creates a unique index for each. */
  unique?: readonly string[];
  /** Further indexes, created at start-up. */
  indexes?: readonly IndexDefinition[];
  /** When true, DELETE sets `deleted_at` instead of removing the document. */
  softDelete?: boolean;
  /** Fields a client may sort on (`id` always may); unset: every visible field. Others are a 400. */
  sortable?: readonly string[];
  /** Fields a client may filter on in `q` (`id` always may); unset: every visible field. Others are a 400. */
  filterable?: readonly string[];
  /** Count strategy of a list request without `count` (default "exact"). */
  defaultCount?: CountStrategy;
  /** Largest count `count=estimated` runs on a filtered list before reporting "capped" (default 10,000). */
  countLimit?: number;
  /** Exact counts stop at this many records and report "capped" (default: no cap). */
  maxExactCount?: number;
  /**
   * Longest string, in characters, a field's value may hold (strings nested in arrays and
   * objects, and their keys, included). Checked before any validator or hook runs; 65,536 unless set.
   */
  maxStringLength?: number;
  /** Per-field overrides of `maxStringLength`, higher or lower: `{ body: 1_000_000 }`. */
  maxStringLengths?: Record<string, number>;
  /** Override the derived route segment. */
  route?: string;
  /** Override the derived collection name. */
  collection?: string;
  /** What the resource is, for the OpenAPI document and the docs page. */
  description?: string;
  /** Per-field descriptions for the OpenAPI document: `{ email: "Where we write to." }`. */
  descriptions?: Record<string, string>;
  /** Relations `with` may load (and `q` may reach through); unset: every relation. Others are a 400. */
  loadable?: readonly string[];
  /** Shapes every record of this model a response carries (computed, renamed or dropped fields); may be async. */
  serialize?: Serializer;
  /** `false`: GETs of this model are never answered from the response cache (default true). */
  cache?: boolean;
}

/** Scalar kinds the query layer understands when checking operands. */
export type FieldKind = "string" | "integer" | "number" | "boolean" | "date" | "other";

/** The fields every record has, set by the framework and never writable by clients. */
export const SYSTEM_FIELDS: readonly string[] = ["id", "created_at", "updated_at"];

/** Every field only the framework writes: a model cannot declare them, a body cannot send them. */
export const READ_ONLY_FIELDS: ReadonlySet<string> = new Set([...SYSTEM_FIELDS, "_id", "deleted_at"]);

// Records over the interfaces' keys, so a new option that is not listed here fails to compile.
const MODEL_KEYS = Object.keys({
  name: 1, fields: 1, hidden: 1, relations: 1, perPage: 1, maxPerPage: 1, handlers: 1, unique: 1, indexes: 1,
  softDelete: 1, route: 1, collection: 1, sortable: 1, filterable: 1, defaultCount: 1, countLimit: 1,
  maxExactCount: 1, maxStringLength: 1, maxStringLengths: 1, description: 1, descriptions: 1,
  loadable: 1, serialize: 1, cache: 1,
} satisfies Record<keyof ModelDefinition, 1>);
const RELATION_KEYS = Object.keys({
  type: 1, model: 1, foreignKey: 1, routes: 1, sort: 1, filter: 1, limit: 1,
} satisfies Record<keyof RelationDefinition, 1>);
const INDEX_KEYS = Object.keys({ keys: 1, unique: 1, name: 1 } satisfies Record<keyof IndexDefinition, 1>);

/** A resolved relation: the definition plus its output key. */
export interface Relation extends RelationDefinition {
  name: string;
}

/**
 * A model with everything derived once at definition time, so request handling never
 * recomputes names, field sets or limits.
 */
export interface Model {
  readonly name: string;
  readonly route: string;
  readonly collection: string;
  readonly fields: Readonly<Record<string, AnyStruct>>;
  /** Kind of every queryable field, system fields included. */
  readonly kinds: ReadonlyMap<string, FieldKind>;
  readonly hidden: ReadonlySet<string>;
  /** Fields a client may select, filter and sort on: system fields plus non-hidden model fields. */
  readonly visible: readonly string[];
  readonly visibleSet: ReadonlySet<string>;
  readonly relations: ReadonlyMap<string, Relation>;
  readonly perPage: number;
  readonly maxPerPage: number;
  readonly handlers: ReadonlySet<HandlerName>;
  readonly unique: readonly string[];
  readonly indexes: readonly IndexDefinition[];
  readonly softDelete: boolean;
  /** Fields clients may sort on, or null for every visible one. */
  readonly sortable: ReadonlySet<string> | null;
  /** Fields clients may filter on, or null for every visible one. */
  readonly filterable: ReadonlySet<string> | null;
  readonly defaultCount: CountStrategy;
  readonly countLimit: number;
  /** Cap of exact counts, or null for none. */
  readonly maxExactCount: number | null;
  readonly description?: string;
  /** Per-field descriptions (system fields may be described too); hidden ones are never published. */
  readonly descriptions: Readonly<Record<string, string>>;
  /** The longest string each field may hold, by field; see {@link maxStringLength}. */
  readonly stringLimits: ReadonlyMap<string, number>;
  /** Relations `with` may load, or null for every one. */
  readonly loadable: ReadonlySet<string> | null;
  /** The model's serializer, if it has one. */
  readonly serialize?: Serializer;
  /** False when the model opted out of the response cache. */
  readonly cache: boolean;
}

/** Default for {@link ModelDefinition.maxStringLength}: 64 Ki characters per string. */
export const DEFAULT_MAX_STRING_LENGTH = 65_536;

/** The longest string a field's value may hold, in characters. */
export function maxStringLength(model: Model, field: string): number {
  return model.stringLimits.get(field) ?? DEFAULT_MAX_STRING_LENGTH;
}

const KNOWN_KINDS = new Set(["string", "integer", "number", "boolean", "date"]);

function fieldKind(struct: AnyStruct): FieldKind {
  return KNOWN_KINDS.has(struct.type) ? (struct.type as FieldKind) : "other";
}

function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${what} must be a positive integer, got ${value}`);
  return value;
}

/** Unknown keys anywhere in a definition stop start-up, naming the key, the model and what is allowed. */
function checkDefinitionKeys(def: ModelDefinition): void {
  if (!isPlainObject(def)) throw new TypeError(`defineModel takes an object, got ${def === null ? "null" : typeof def}`);
  const where = `Model ${typeof def.name === "string" ? def.name : "(unnamed)"}`;
  checkKeys(where, def, MODEL_KEYS);
  if (!isPlainObject(def.fields)) throw new TypeError(`${where}: fields must be an object of superstruct structs`);
  for (const [name, rel] of Object.entries(def.relations ?? {})) {
    if (!isPlainObject(rel)) throw new TypeError(`${where}, relation ${name}: must be an object`);
    checkKeys(`${where}, relation ${name}`, rel, RELATION_KEYS);
    if (rel.routes !== undefined && (rel.type !== "hasMany" || typeof rel.routes !== "boolean")) {
      throw new TypeError(`${where}, relation ${name}: routes must be true or false, and only hasMany relations have nested routes`);
    }
  }
  def.indexes?.forEach((index, i) => checkKeys(`${where}, indexes[${i}]`, index, INDEX_KEYS));
  if (def.handlers !== undefined) checkKeys(`${where}, handlers`, def.handlers, HANDLER_NAMES);
}

function checkNames(def: ModelDefinition): void {
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
  for (const name of def.hidden ?? []) {
    if (!(name in def.fields)) throw new TypeError(`Model ${def.name}: hidden field "${name}" is not defined`);
  }
  for (const name of def.unique ?? []) {
    if (!(name in def.fields)) throw new TypeError(`Model ${def.name}: unique field "${name}" is not defined`);
  }
  for (const name of Object.keys(def.descriptions ?? {})) {
    if (!(name in def.fields) && !SYSTEM_FIELDS.includes(name) && name !== "deleted_at") {
      throw new TypeError(`Model ${def.name}: description given for undefined field "${name}"`);
    }
  }
}

function resolveKinds(def: ModelDefinition, hidden: ReadonlySet<string>): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>([["id", "integer"], ["created_at", "date"], ["updated_at", "date"]]);
  for (const [field, struct] of Object.entries(def.fields)) {
    if (!hidden.has(field)) kinds.set(field, fieldKind(struct));
  }
  if (def.softDelete) kinds.set("deleted_at", "date");
  return kinds;
}

/** `sortable` / `filterable`: visible fields only, and `id` is always allowed (the primary key's own index). */
function allowedFields(def: ModelDefinition, option: "sortable" | "filterable", visible: ReadonlySet<string>): Set<string> | null {
  const names = def[option];
  if (names === undefined) return null;
  for (const name of names) {
    if (!visible.has(name)) throw new TypeError(`Model ${def.name}: ${option} field "${name}" is not a visible field`);
  }
  return new Set(["id", ...names]);
}

function resolveCounting(def: ModelDefinition): Pick<Model, "defaultCount" | "countLimit" | "maxExactCount"> {
  const defaultCount = def.defaultCount ?? "exact";
  if (!COUNT_STRATEGIES.includes(defaultCount)) {
    throw new TypeError(`Model ${def.name}: defaultCount must be one of ${COUNT_STRATEGIES.join(", ")}, got ${defaultCount}`);
  }
  const countLimit = positiveInteger(def.countLimit, 10_000, `Model ${def.name}: countLimit`);
  const maxExactCount = def.maxExactCount === undefined ? null : positiveInteger(def.maxExactCount, 0, `Model ${def.name}: maxExactCount`);
  return { defaultCount, countLimit, maxExactCount };
}

function resolveStringLimits(def: ModelDefinition): Map<string, number> {
  const fallback = positiveInteger(def.maxStringLength, DEFAULT_MAX_STRING_LENGTH, `Model ${def.name}: maxStringLength`);
  const limits = new Map(Object.keys(def.fields).map((field) => [field, fallback]));
  for (const [field, limit] of Object.entries(def.maxStringLengths ?? {})) {
    if (!(field in def.fields)) throw new TypeError(`Model ${def.name}: maxStringLengths names "${field}", which is not a field`);
    limits.set(field, positiveInteger(limit, fallback, `Model ${def.name}: maxStringLengths.${field}`));
  }
  return limits;
}

function resolveHandlers(def: ModelDefinition): Set<HandlerName> {
  return new Set(HANDLER_NAMES.filter((name) => def.handlers?.[name] !== false));
}

function resolveRelations(def: ModelDefinition): Map<string, Relation> {
  return new Map(Object.entries(def.relations ?? {}).map(([name, rel]) => {
    if (rel.limit !== undefined) positiveInteger(rel.limit, 0, `Model ${def.name}, relation ${name}: limit`);
    if (rel.filter !== undefined && !isPlainObject(rel.filter)) throw new TypeError(`Model ${def.name}, relation ${name}: filter must be an object`);
    for (const [field, direction] of Object.entries(rel.sort ?? {})) {
      if (direction !== 1 && direction !== -1) throw new TypeError(`Model ${def.name}, relation ${name}: sort.${field} must be 1 or -1`);
    }
    return [name, { ...rel, name }];
  }));
}

function resolveLoadable(def: ModelDefinition): Set<string> | null {
  if (def.loadable === undefined) return null;
  for (const name of def.loadable) {
    if (!def.relations?.[name]) throw new TypeError(`Model ${def.name}: loadable relation "${name}" is not a relation`);
  }
  return new Set(def.loadable);
}

function resolveOutput(def: ModelDefinition): Pick<Model, "serialize" | "cache"> {
  if (def.serialize !== undefined && typeof def.serialize !== "function") throw new TypeError(`Model ${def.name}: serialize must be a function`);
  if (def.cache !== undefined && typeof def.cache !== "boolean") throw new TypeError(`Model ${def.name}: cache must be true or false`);
  return { serialize: def.serialize, cache: def.cache !== false };
}

/**
 * Turns a model file's definition into a resolved {@link Model}. Throws a TypeError at
 * start-up for definitions that could only fail later, at request time.
 */
export function defineModel(def: ModelDefinition): Model {
  checkDefinitionKeys(def);
  checkNames(def);
  const hidden = new Set(def.hidden ?? []);
  const kinds = resolveKinds(def, hidden);
  const visible = [...kinds.keys()];
  const visibleSet = new Set(visible);
  const maxPerPage = positiveInteger(def.maxPerPage, 100, `Model ${def.name}: maxPerPage`);
  const perPage = positiveInteger(def.perPage, Math.min(10, maxPerPage), `Model ${def.name}: perPage`);
  if (perPage > maxPerPage) throw new TypeError(`Model ${def.name}: perPage ${perPage} exceeds maxPerPage ${maxPerPage}`);
  const model: Model = Object.freeze({
    name: def.name,
    route: def.route ?? routeName(def.name),
    collection: def.collection ?? collectionName(def.name),
    fields: Object.freeze({ ...def.fields }),
    kinds,
    hidden,
    visible,
    visibleSet,
    relations: resolveRelations(def),
    perPage,
    maxPerPage,
    handlers: resolveHandlers(def),
    unique: [...(def.unique ?? [])],
    indexes: [...(def.indexes ?? [])],
    softDelete: def.softDelete === true,
    sortable: allowedFields(def, "sortable", visibleSet),
    filterable: allowedFields(def, "filterable", visibleSet),
    ...resolveCounting(def),
    description: def.description,
    descriptions: Object.freeze({ ...def.descriptions }),
    stringLimits: resolveStringLimits(def),
    loadable: resolveLoadable(def),
    ...resolveOutput(def),
  });
  defined.add(model);
  return model;
}

const defined = new WeakSet<object>();

/** True for what {@link defineModel} returned: how a model file's default export is checked at run time. */
export function isModel(value: unknown): value is Model {
  return typeof value === "object" && value !== null && defined.has(value);
}
