import type { AnyStruct, Model, Relation } from "./define.ts";
import { uniqueIndexFilter } from "./validate.ts";

/** All models of an app by name; relations are resolved through it. */
export type ModelRegistry = ReadonlyMap<string, Model>;

/** What parsing needs of the models: each by name (as the request's principal may see it, with `auth`). */
export type ModelLookup = Pick<ModelRegistry, "get">;

/**
 * How `onDelete: "setNull"` clears a foreign key of struct `struct`: a field that may hold null
 * (`nullable(...)`) is set to null; one that may only be left out (`optional(...)`) loses its
 * value, which responses show as null too (a null there would fail its own validation on the
 * next write and collide in the partial unique index of an optional unique field); undefined
 * when the field must hold a value.
 */
export function clearingOf(struct: AnyStruct): "null" | "unset" | undefined {
  const [nullRefused, nullStored] = struct.validate(null, { coerce: true });
  if (!nullRefused && nullStored === null) return "null";
  const [missingRefused, missingStored] = struct.validate(undefined, { coerce: true });
  return !missingRefused && missingStored === undefined ? "unset" : undefined;
}

/**
 * `setNull` needs a foreign key that may be cleared, and no unique index that counts cleared
 * keys: two children cleared alike would then collide after their parent was deleted, and the
 * delete could neither finish nor be undone. A declared unique index (which indexes null and
 * missing values like any other) is such an index; a `unique` field's own index is not when its
 * partial filter leaves the cleared value out (see {@link uniqueIndexFilter}).
 */
function checkSetNull(owner: Model, rel: Relation, target: Model): void {
  if (rel.onDelete !== "setNull") return;
  const fk = rel.foreignKey;
  const where = `Model ${owner.name}: relation "${rel.name}" has onDelete "setNull", but ${target.name}.${fk}`;
  const clearing = clearingOf(target.fields[fk]);
  if (clearing === undefined) {
    throw new TypeError(
      `${where} must hold a value; make it nullable(...) or optional(...), or choose another onDelete`,
    );
  }
  const declared = target.indexes.find((index) => index.unique === true && fk in index.keys);
  if (declared) {
    throw new TypeError(
      `${where} is part of the unique index ${
        JSON.stringify(declared.keys)
      }, where cleared keys would collide; choose "cascade" or "restrict"`,
    );
  }
  if (target.unique.includes(fk) && !leavesOut(uniqueIndexFilter(target, fk)?.[fk], clearing)) {
    throw new TypeError(
      `${where} is unique, and its index would count the cleared keys as equal (its type is not one the index can tell from null); choose "cascade" or "restrict"`,
    );
  }
}

/** Whether a unique field's partial filter condition leaves out a key cleared as `clearing`. */
function leavesOut(condition: unknown, clearing: "null" | "unset"): boolean {
  if (condition === undefined) return false;
  return clearing === "unset" || Object.hasOwn(condition as object, "$type");
}

/**
 * Two relations over the same foreign key (`posts` and `drafts` with a `filter`) reach the same
 * records on delete, since `onDelete` follows the key, not the filter: they must not ask for
 * different actions, whose outcome would depend on the order of declaration.
 */
function checkOneOnDeletePerKey(model: Model): void {
  const chosen = new Map<string, Relation>();
  for (const rel of model.relations.values()) {
    if (rel.onDelete === undefined || rel.onDelete === "none") continue;
    const key = `${rel.model}.${rel.foreignKey}`;
    const other = chosen.get(key);
    if (other && other.onDelete !== rel.onDelete) {
      throw new TypeError(
        `Model ${model.name}: relations "${other.name}" and "${rel.name}" both follow ${key} but have onDelete "${other.onDelete}" and "${rel.onDelete}"; a delete reaches the same records through both, so give them the same onDelete`,
      );
    }
    chosen.set(key, rel);
  }
}

/** The relations of `model` whose `onDelete` is `action`, in declaration order. */
export function onDeleteRelations(model: Model, action: Relation["onDelete"]): Relation[] {
  return [...model.relations.values()].filter((rel) => rel.onDelete === action);
}

/**
 * A cascade deletes children without reading them first, so it cannot honour a `restrict`
 * below it (the parent is already gone when a child would refuse). Such a chain stops start-up,
 * naming the path, instead of leaving the restricted records dangling at run time.
 */
function checkCascadeReach(registry: ModelRegistry, owner: Model, rel: Relation): void {
  const seen = new Set<string>();
  const walk = (model: Model, path: string): void => {
    if (seen.has(model.name)) return;
    seen.add(model.name);
    const restricted = onDeleteRelations(model, "restrict")[0];
    if (restricted) {
      throw new TypeError(
        `Model ${owner.name}: relation "${rel.name}" has onDelete "cascade", which reaches ${path}, whose relation "${restricted.name}" has onDelete "restrict"; a cascade deletes without reading first, so it cannot honour that restriction: change one of the two`,
      );
    }
    for (const next of onDeleteRelations(model, "cascade")) {
      walk(registry.get(next.model)!, `${path} → ${next.model}`);
    }
  };
  walk(registry.get(rel.model)!, rel.model);
}

function checkRelation(registry: ModelRegistry, owner: Model, rel: Relation): void {
  const target = registry.get(rel.model);
  if (!target) throw new TypeError(`Model ${owner.name}: relation "${rel.name}" refers to unknown model ${rel.model}`);
  const holder = rel.type === "belongsTo" ? owner : target;
  if (!(rel.foreignKey in holder.fields)) {
    throw new TypeError(
      `Model ${owner.name}: relation "${rel.name}" needs field "${rel.foreignKey}" on ${holder.name}`,
    );
  }
  for (const field of Object.keys(rel.sort ?? {})) {
    if (!target.visibleSet.has(field)) {
      throw new TypeError(
        `Model ${owner.name}: relation "${rel.name}" sorts on "${field}", which is not a visible field of ${target.name}`,
      );
    }
  }
  if (owner.fields[rel.name] || owner.kinds.has(rel.name)) {
    throw new TypeError(`Model ${owner.name}: relation "${rel.name}" has the same name as a field`);
  }
  checkSetNull(owner, rel, target);
}

/**
 * Builds the registry and checks, at start-up, everything that would otherwise fail per request:
 * duplicate names or routes, relations to unknown models or missing foreign keys, and `onDelete`
 * actions that could not be carried out (see checkSetNull, checkCascadeReach).
 */
export function createRegistry(models: readonly Model[]): ModelRegistry {
  const registry = new Map<string, Model>();
  const routes = new Set<string>();
  for (const model of models) {
    if (registry.has(model.name)) throw new TypeError(`Model ${model.name} is defined twice`);
    if (routes.has(model.route)) throw new TypeError(`Two models share the route /${model.route}`);
    registry.set(model.name, model);
    routes.add(model.route);
  }
  for (const model of models) {
    for (const rel of model.relations.values()) checkRelation(registry, model, rel);
  }
  // Once every relation is known to lead somewhere: the cascades' chains.
  for (const model of models) {
    checkOneOnDeletePerKey(model);
    for (const rel of onDeleteRelations(model, "cascade")) checkCascadeReach(registry, model, rel);
  }
  return registry;
}
