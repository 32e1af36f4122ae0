import type { Document } from "bson";
import { CatalogValidationError, type FieldMessages } from "../errors.ts";
import { msg } from "../i18n/message.ts";
import type { RequestAccess } from "../query/access.ts";
import { allOf, type Route } from "./route.ts";
import { writeScope } from "../query/scope.ts";

/**
 * Refuses a write whose belongsTo foreign keys point at nothing, with the same `errors` shape
 * as validation. The lookups run concurrently, one per foreign key being written.
 *
 * "Nothing" is as the writer sees it: a record outside its `relation` rule for the target model
 * (the records `with` and related conditions would show it) counts as missing, with the same
 * message, so a write can neither link to a record the caller may not see nor tell it exists.
 */
export async function checkReferences(route: Route, set: Document, access?: RequestAccess): Promise<void> {
  const errors: FieldMessages = {};
  const checks = [...route.model.relations.values()]
    .filter((rel) => rel.type === "belongsTo" && set[rel.foreignKey] !== undefined && set[rel.foreignKey] !== null)
    .map(async (rel) => {
      const model = route.app.registry.get(rel.model)!;
      const grant = access?.grant(model, "relation");
      const found = grant !== null &&
        await route.app.stores.get(rel.model)!.findById(
          set[rel.foreignKey] as number,
          allOf([writeScope(model), grant?.filter ?? {}]),
          { _id: 1 },
        );
      if (!found) errors[rel.foreignKey] = [msg("validation.foreignKey", { field: rel.foreignKey, model: rel.model })];
    });
  await Promise.all(checks);
  if (Object.keys(errors).length > 0) throw new CatalogValidationError(errors);
}
