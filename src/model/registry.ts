import type { Model, Relation } from "./define.ts";

/** All models of an app by name; relations are resolved through it. */
export type ModelRegistry = ReadonlyMap<string, Model>;

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
}

/**
 * Builds the registry and checks, at start-up, everything that would otherwise fail per request:
 * duplicate names or routes, and relations to unknown models or missing foreign keys.
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
  return registry;
}
