import type { Document } from "bson";
import { apiError } from "../errors.ts";
import type { FieldKind, Model, Relation } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";

/**
 * Key of the placeholder a condition on a related record (`user.name`) leaves in the parsed
 * filter. The handler replaces it with an `$in` before the filter reaches the database; the
 * `$` makes the database refuse a filter that somehow still holds one.
 */
export const RELATED = "$related";

/**
 * A condition on a belongsTo or hasOne relation's records, still to be turned into ids. Plain
 * data (the relation by name), so the parsed filter can still be compared as EJSON.
 */
export interface RelatedCondition {
  /** The relation of the queried model the condition reaches through. */
  relation: string;
  /** The condition, on the related model's stored fields. */
  filter: Document;
}

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
  registry: ModelRegistry | undefined,
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

/** The placeholder for a related condition; see {@link RELATED}. */
export function relatedPlaceholder(condition: RelatedCondition): Document {
  return { [RELATED]: condition };
}
