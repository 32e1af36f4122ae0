import type { Document } from "bson";
import { CatalogValidationError, type FieldMessages } from "../errors.ts";
import { msg } from "../i18n/message.ts";
import type { Route } from "./route.ts";
import { writeScope } from "../query/scope.ts";

/**
 * Refuses a write whose belongsTo foreign keys point at nothing, with the same `errors` shape
 * as validation. The lookups run concurrently, one per foreign key being written.
 */
export async function checkReferences(route: Route, set: Document): Promise<void> {
  const errors: FieldMessages = {};
  const checks = [...route.model.relations.values()]
    .filter((rel) => rel.type === "belongsTo" && set[rel.foreignKey] !== undefined && set[rel.foreignKey] !== null)
    .map(async (rel) => {
      const target = route.app.stores.get(rel.model)!;
      if (
        !(await target.findById(set[rel.foreignKey] as number, writeScope(route.app.registry.get(rel.model)!), {
          _id: 1,
        }))
      ) {
        errors[rel.foreignKey] = [msg("validation.foreignKey", { field: rel.foreignKey, model: rel.model })];
      }
    });
  await Promise.all(checks);
  if (Object.keys(errors).length > 0) throw new CatalogValidationError(errors);
}
