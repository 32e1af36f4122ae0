import type { Document } from "bson";
import { positiveInteger } from "./limits.ts";
import { checkKeys, isPlainObject } from "./strict.ts";

/** The kinds of relation a model can declare. */
export type RelationType = "hasMany" | "hasOne" | "belongsTo";

/**
 * What deleting a record does to the records of a hasMany or hasOne relation that point at it
 * (PostgREST's foreign-key actions, Rails' `dependent:`):
 * - `restrict`: the delete is a 409 while a live child exists;
 * - `cascade`: the children are deleted after the record (soft-deleted when both sides are
 *   soft-delete models and the record was soft-deleted), through their own `onDelete` relations;
 * - `setNull`: the children's foreign key is cleared after the record is deleted;
 * - `none`: nothing happens to them.
 */
export type OnDelete = "restrict" | "cascade" | "setNull" | "none";

/** Every {@link OnDelete} value, in the order messages list them. */
export const ON_DELETE_VALUES: readonly OnDelete[] = ["restrict", "cascade", "setNull", "none"];

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
  /**
   * hasMany / hasOne: what deleting a record (soft or force, top-level or nested) does to the
   * related records whose foreign key holds its id, whatever the relation's `filter`. Default "none".
   */
  onDelete?: OnDelete;
}

/** A resolved relation: the definition plus its output key. */
export interface Relation extends RelationDefinition {
  name: string;
}

// A record over the interface's keys, so a new option that is not listed here fails to compile.
const RELATION_KEYS = Object.keys(
  {
    type: 1,
    model: 1,
    foreignKey: 1,
    routes: 1,
    sort: 1,
    filter: 1,
    limit: 1,
    onDelete: 1,
  } satisfies Record<keyof RelationDefinition, 1>,
);

/**
 * `onDelete` is one of {@link ON_DELETE_VALUES}, and only where the related records point at this
 * model (hasMany, hasOne): a belongsTo relation's record is the one pointed at, not a dependent.
 */
function checkOnDelete(where: string, rel: RelationDefinition): void {
  if (rel.onDelete === undefined) return;
  if (!ON_DELETE_VALUES.includes(rel.onDelete)) {
    throw new TypeError(
      `${where}: onDelete must be one of ${ON_DELETE_VALUES.map((value) => `"${value}"`).join(", ")}, got ${
        JSON.stringify(rel.onDelete)
      }`,
    );
  }
  if (rel.type === "belongsTo") {
    throw new TypeError(
      `${where}: onDelete applies to hasMany and hasOne relations only (the records that point at this one), not to belongsTo`,
    );
  }
}

/**
 * Unknown keys in a model's relations stop start-up (`where` names the model), and so do
 * `routes` anywhere but on a hasMany relation, which alone has nested routes to switch off, and
 * an `onDelete` that is unknown or on a belongsTo relation.
 */
export function checkRelationKeys(where: string, relations: Readonly<Record<string, RelationDefinition>>): void {
  for (const [name, rel] of Object.entries(relations)) {
    if (!isPlainObject(rel)) throw new TypeError(`${where}, relation ${name}: must be an object`);
    checkKeys(`${where}, relation ${name}`, rel, RELATION_KEYS);
    if (rel.routes !== undefined && (rel.type !== "hasMany" || typeof rel.routes !== "boolean")) {
      throw new TypeError(
        `${where}, relation ${name}: routes must be true or false, and only hasMany relations have nested routes`,
      );
    }
    checkOnDelete(`${where}, relation ${name}`, rel);
  }
}

/** Checks the options of one relation that can be checked without the other models (sorts are checked by the registry). */
function checkOptions(where: string, rel: RelationDefinition): void {
  if (rel.limit !== undefined) positiveInteger(rel.limit, 0, `${where}: limit`);
  if (rel.filter !== undefined && !isPlainObject(rel.filter)) throw new TypeError(`${where}: filter must be an object`);
  for (const [field, direction] of Object.entries(rel.sort ?? {})) {
    if (direction !== 1 && direction !== -1) throw new TypeError(`${where}: sort.${field} must be 1 or -1`);
  }
}

/** The relations of model `model` by name, each with its options checked. */
export function resolveRelations(
  model: string,
  relations: Readonly<Record<string, RelationDefinition>>,
): Map<string, Relation> {
  return new Map(
    Object.entries(relations).map(([name, rel]) => {
      checkOptions(`Model ${model}, relation ${name}`, rel);
      return [name, { ...rel, name }];
    }),
  );
}

/** The relations `with` may load (null: every one); each must be a relation of the model. */
export function resolveLoadable(
  model: string,
  relations: Readonly<Record<string, RelationDefinition>>,
  loadable: readonly string[] | undefined,
): Set<string> | null {
  if (loadable === undefined) return null;
  for (const name of loadable) {
    if (!Object.hasOwn(relations, name)) {
      throw new TypeError(`Model ${model}: loadable relation "${name}" is not a relation`);
    }
  }
  return new Set(loadable);
}
