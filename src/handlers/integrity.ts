import type { Document } from "mongodb";
import { ValidationError, type FieldErrors } from "../errors.ts";
import type { Route } from "./route.ts";
import { writeScope } from "./scope.ts";

/**
 * Refuses a write whose belongsTo foreign keys point at nothing, with the same `errors` shape
 * as validation. The lookups run concurrently, one per foreign key being written.
 */
export async function checkReferences(route: Route, set: Document): Promise<void> {
  const errors: FieldErrors = {};
  const checks = [...route.model.relations.values()]
    .filter((rel) => rel.type === "belongsTo" && set[rel.foreignKey] !== undefined && set[rel.foreignKey] !== null)
    .map(async (rel) => {
      const target = route.app.stores.get(rel.model)!;
      if (!(await target.findById(set[rel.foreignKey] as number, writeScope(route.app.registry.get(rel.model)!), { _id: 1 }))) {
        errors[rel.foreignKey] = [`The ${rel.foreignKey} field must refer to an existing ${rel.model}.`];
      }
    });
  await Promise.all(checks);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}
