import type { Document } from "bson";
import { apiError } from "../errors.ts";
import type { FieldKind, Model, Relation } from "../model/define.ts";
import type { ModelLookup } from "../model/registry.ts";
import { allOf, type RelatedCondition } from "../plan/conditions.ts";
import type { QueryLimits } from "./limits.ts";
import { readScope } from "./scope.ts";

/** A condition's field that names a related field: the relation, its model and the field's kind there. */
export interface RelatedField {
  relation: Relation;
  model: Model;
  field: string;
  /** The field's kind on the related model; undefined when it has no such visible field. */
  kind: FieldKind | undefined;
}

/**
 * Splits `user.name` into the relation `user` of `model` and the field `name` of the related
 * model. Only belongsTo and hasOne relations, one level deep: anything else is not a related
 * field (undefined), and the caller reports the name as an unknown column. Hidden fields of the
 * related model have no kind, so they stay as unqueryable as on the model itself.
 */
export function relatedField(
  model: Model,
  name: string,
  registry: ModelLookup | undefined,
): RelatedField | undefined {
  const dot = name.indexOf(".");
  if (dot < 0 || registry === undefined) return undefined;
  const relation = model.relations.get(name.slice(0, dot));
  if (!relation || relation.type === "hasMany") return undefined;
  const related = registry.get(relation.model);
  if (!related) return undefined;
  const field = name.slice(dot + 1);
  if (model.loadable !== null && !model.loadable.has(relation.name)) {
    throw apiError("query.withNotAllowed", {
      path: relation.name,
      model: model.name,
      allowed: [...model.loadable].join(", ") || "(none)",
    });
  }
  const kind = related.visibleSet.has(field) ? related.kinds.get(field) : undefined;
  if (kind !== undefined && related.filterable !== null && !related.filterable.has(field)) {
    throw apiError("query.filterNotAllowed", {
      fields: name,
      model: related.name,
      allowed: [...related.filterable].join(", "),
    });
  }
  return { relation, model: related, field, kind };
}

/**
 * The typed node for a condition on related records: belongsTo reads the matching owners' ids
 * into the foreign key, hasOne the matching records' foreign keys into `_id`. The related
 * model's read scope (soft delete, unless `trashed`) and, with `auth`, the principal's rule on it
 * are part of its filter, as in `with`: a condition cannot probe records the caller may not see.
 */
export function relatedCondition(
  related: RelatedField,
  filter: Document,
  limits: QueryLimits,
  trashed: boolean,
  rule: Document = {},
): RelatedCondition {
  const { relation, model } = related;
  const scope = allOf([readScope(model, trashed), rule]);
  const belongsTo = relation.type === "belongsTo";
  return {
    kind: "related",
    relation: relation.name,
    model: model.name,
    collection: model.collection,
    filter: Object.keys(scope).length === 0 ? filter : { $and: [filter, scope] },
    key: belongsTo ? "_id" : relation.foreignKey,
    into: belongsTo ? relation.foreignKey : "_id",
    max: limits.maxInList,
  };
}
