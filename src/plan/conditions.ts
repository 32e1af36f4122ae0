import type { Document } from "bson";

/**
 * A condition on the records a read returns: what `q` asks, as the parser builds it and the
 * store resolves it. Conditions on the queried model's own fields are MongoDB filters already;
 * a condition on related records stays a typed node until the store has looked the related
 * records up, and groups keep the precedence the parser gave them.
 */
export type Condition = Match | RelatedCondition | Group;

/** A filter on the read collection's own stored fields. */
export interface Match {
  readonly kind: "match";
  readonly filter: Document;
}

/**
 * A condition on the records of a belongsTo or hasOne relation (`user.surname.$like`): the store
 * reads the `key` of the related records matching `filter` (at most `max`, else a 400 naming the
 * relation) and the condition becomes an `$in` of those values on `into`. One query each.
 */
export interface RelatedCondition {
  readonly kind: "related";
  /** The relation's name, for the 400 when too many match. */
  readonly relation: string;
  /** The related model, whose records (and store) are read. */
  readonly model: string;
  readonly collection: string;
  /** On the related collection's stored fields, its read scope (soft delete) included. */
  readonly filter: Document;
  /** What is read of each match: `_id` for belongsTo, the related records' foreign key for hasOne. */
  readonly key: string;
  /** What those values are matched on in the read collection: the foreign key, or `_id`. */
  readonly into: string;
  /** Most related records the condition may match (`maxInList`). */
  readonly max: number;
}

/** Conditions joined by AND or OR. */
export interface Group {
  readonly kind: "and" | "or";
  readonly parts: readonly Condition[];
}

/** No condition: every record. */
export const EVERYTHING: Condition = Object.freeze({ kind: "and", parts: Object.freeze([]) }) as Condition;

/** True when a condition (or a group inside it) still needs related records looked up. */
export function hasRelated(condition: Condition): boolean {
  if (condition.kind === "related") return true;
  return condition.kind !== "match" && condition.parts.some(hasRelated);
}

/** Every related condition in `condition`, in the order they appear. */
export function relatedIn(condition: Condition, into: RelatedCondition[] = []): RelatedCondition[] {
  if (condition.kind === "related") into.push(condition);
  else if (condition.kind !== "match") { for (const part of condition.parts) relatedIn(part, into); }
  return into;
}

function flatten(op: "$and" | "$or", filters: Document[]): Document[] {
  return filters.flatMap((f) => (Object.keys(f).length === 1 && Array.isArray(f[op]) ? (f[op] as Document[]) : [f]));
}

/**
 * Filters joined by `op`; one alone is itself. Parts that are the same operator's arrays are
 * merged into this one, so `[A, $or.B, $or.C]` is one `$or` of three, never nested.
 * @example combine("$or", [{ a: 1 }, { $or: [{ b: 2 }, { c: 3 }] }]) // { $or: [{ a: 1 }, { b: 2 }, { c: 3 }] }
 */
export function combine(op: "$and" | "$or", filters: Document[]): Document {
  return filters.length === 1 ? filters[0] : { [op]: flatten(op, filters) };
}

/**
 * The MongoDB filter of a condition, each related condition replaced by what `resolved` holds
 * for it (the store's `$in`). Without related conditions, `resolved` is never asked.
 * @example filterOf({ kind: "or", parts: [{ kind: "match", filter: { a: 1 } }, { kind: "match", filter: { b: 2 } }] }) // { $or: [{ a: 1 }, { b: 2 }] }
 */
export function filterOf(condition: Condition, resolved?: (related: RelatedCondition) => Document): Document {
  switch (condition.kind) {
    case "match":
      return condition.filter;
    case "related":
      if (resolved === undefined) throw new TypeError("a related condition was not resolved before the read");
      return resolved(condition);
    default:
      if (condition.parts.length === 0) return {};
      return combine(
        condition.kind === "and" ? "$and" : "$or",
        condition.parts.map((part) => filterOf(part, resolved)),
      );
  }
}

/**
 * ANDs filters, leaving out empty ones so the common case stays `{}`. Filters whose keys do not
 * overlap are merged into one object rather than wrapped in `$and`, so the database sees plain
 * top-level conditions it can serve from an index.
 * @example allOf([{ deleted_at: null }, { user_id: 2 }]) // { deleted_at: null, user_id: 2 }
 * @example allOf([{ a: 1 }, { a: 2 }])                   // { $and: [{ a: 1 }, { a: 2 }] }
 */
export function allOf(filters: readonly Document[]): Document {
  const parts = filters.filter((filter) => Object.keys(filter).length > 0);
  if (parts.length <= 1) return parts[0] ?? {};
  const merged: Document = {};
  for (const part of parts) {
    for (const key of Object.keys(part)) {
      if (Object.hasOwn(merged, key)) return { $and: parts };
      merged[key] = part[key];
    }
  }
  return merged;
}
