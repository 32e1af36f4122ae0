import type { Struct } from "superstruct";
import type { CountStrategy } from "../store/counts.ts";
import type { CountingOptions, PagingOptions, StringLimitOptions } from "./limits.ts";
import type { Relation, RelationDefinition } from "./relations.ts";
import type { AccessDefinition, ResolvedAccess } from "./access.ts";

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

/** A secondary index the framework creates at start-up. Keys map field names to 1 or -1. */
export interface IndexDefinition {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  name?: string;
  /**
   * MongoDB's collation of the index: `{ locale: "en", strength: 2 }` compares case-insensitively,
   * so a unique index on `email` refuses `A@B.CO` next to `a@b.co`.
   */
  collation?: IndexCollation;
}

/** A collation as MongoDB takes it (`locale` required; `strength` 1-5, …). */
export interface IndexCollation {
  locale: string;
  strength?: number;
  caseLevel?: boolean;
  caseFirst?: "upper" | "lower" | "off";
  numericOrdering?: boolean;
  alternate?: "non-ignorable" | "shifted";
  maxVariable?: "punct" | "space";
  backwards?: boolean;
  normalization?: boolean;
}

/**
 * A record serializer: gets the record as the framework built it (visible, selected fields,
 * relations attached) and returns the record to send, or changes it in place and returns nothing.
 */
export type Serializer = (
  record: Record<string, unknown>,
  ctx: SerializeContext,
) => Record<string, unknown> | void | Promise<Record<string, unknown> | void>;

/** What a serializer is told: the request being answered and the model the record belongs to. */
export interface SerializeContext {
  request: Request;
  model: Model;
}

/**
 * What a user writes in `models/<Name>.ts`. Only `name` and `fields` are required. The page
 * size, counting and string-length options are declared with their checks in `limits.ts`.
 */
export interface ModelDefinition extends PagingOptions, CountingOptions, StringLimitOptions {
  /** PascalCase name; drives the route (`BlogPost` → `blog-posts`), collection and messages. */
  name: string;
  /** Writable fields as superstruct structs. A field not wrapped in `optional()` is required on create. */
  fields: Record<string, AnyStruct>;
  /** Fields that are stored but never returned, queried or sorted on (e.g. password hashes). */
  hidden?: readonly string[];
  /** Relations by output key, e.g. `{ posts: { type: "hasMany", model: "Post", foreignKey: "user_id" } }`. */
  relations?: Record<string, RelationDefinition>;
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
  /**
   * Time limit of this model's database commands in ms, instead of the app's `limits.queryTimeMs`
   * (default 5,000): a command that runs longer is stopped by the database and answered 503.
   */
  queryTimeMs?: number;
  /**
   * Query parameters this model's hooks read (`["mine"]`), accepted by its routes besides the
   * framework's own; any other parameter is a 400 that names it.
   */
  params?: readonly string[];
  /**
   * Who may do what to which records, by role (see model/access.ts): with `auth` configured, a
   * model without it is closed to everyone, and `"public"` opens it to everyone.
   */
  access?: AccessDefinition;
}

/** Scalar kinds the query layer understands when checking operands. */
export type FieldKind = "string" | "integer" | "number" | "boolean" | "date" | "other";

/** The fields every record has, set by the framework and never writable by clients. */
export const SYSTEM_FIELDS: readonly string[] = ["id", "created_at", "updated_at"];

/** Every field only the framework writes: a model cannot declare them, a body cannot send them. */
export const READ_ONLY_FIELDS: ReadonlySet<string> = new Set([...SYSTEM_FIELDS, "_id", "deleted_at"]);

/**
 * A model with everything derived once at definition time, so request handling never
 * recomputes names, field sets or limits.
 */
export interface Model {
  readonly name: string;
  readonly route: string;
  readonly collection: string;
  /**
   * The derived names mongorest 0.1.0 gave this model, where they differ from today's
   * (`Person`: `persons`, now `people`); `route` only if the route is derived too. Unset when
   * the model names its collection itself. Start-up refuses to hide records left under it.
   */
  readonly former?: { readonly collection: string; readonly route?: string };
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
  /** The longest string each field may hold, by field; see `maxStringLength` in `limits.ts`. */
  readonly stringLimits: ReadonlyMap<string, number>;
  /** Relations `with` may load, or null for every one. */
  readonly loadable: ReadonlySet<string> | null;
  /** The model's serializer, if it has one. */
  readonly serialize?: Serializer;
  /** False when the model opted out of the response cache. */
  readonly cache: boolean;
  /** The model's own time limit of a database command in ms, or null for the app's `limits.queryTimeMs`. */
  readonly queryTimeMs: number | null;
  /** Query parameters the model's hooks read, accepted besides the framework's own. */
  readonly params: ReadonlySet<string>;
  /** Its access rules by operation, or undefined when it declares none. */
  readonly access: ResolvedAccess | undefined;
}
