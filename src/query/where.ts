import type { Document } from "bson";
import { apiError } from "../errors.ts";
import type { Model } from "../model/define.ts";
import { type Condition, EVERYTHING, filterOf } from "../plan/conditions.ts";
import { storedName, undefinedColumns } from "./columns.ts";
import { limitExceeded, type QueryLimits, utf8Length } from "./limits.ts";
import { isOperator, leafFilter, OPERATORS } from "./operators.ts";
import { msg } from "../i18n/message.ts";
import type { ModelLookup } from "../model/registry.ts";
import { relatedCondition, relatedField } from "./related-where.ts";

/** How a condition or group joins the one before it in its sequence. */
type Join = "and" | "or";

/** A parsed condition or group; `condition` is null for a group with no conditions. */
interface Part {
  join: Join;
  condition: Condition | null;
}

/** What parsing `q` needs besides the text and the model. */
export interface WhereSettings {
  limits: QueryLimits;
  /** The app's models, for conditions on related records (`user.name`); without it there are none. */
  registry?: ModelLookup;
  /** `trashed=true`: related records that are soft-deleted match too. */
  trashed?: boolean;
  /** With `auth`: the row filter a related model's records are matched within, for the request's principal. */
  ruleOf?: (model: Model) => Document;
}

interface Walk extends WhereSettings {
  model: Model;
  conditions: number;
  /** Conditions on related records so far: each costs a query of its own. */
  related: number;
  unknown: string[];
  /** Visible fields the model's `filterable` list leaves out. */
  refused: string[];
}

const PREFIX = /^\$(or|and)\./;

function splitPrefix(key: string): { join: Join; rest: string } {
  const m = PREFIX.exec(key);
  return m ? { join: m[1] as Join, rest: key.slice(m[0].length) } : { join: "and", rest: key };
}

function splitOperator(key: string, rest: string): { field: string; operator: string } {
  if (rest.startsWith("$")) {
    const name = rest.split(".")[0];
    throw apiError("query.unsupportedOperator", { name, key, operators: OPERATORS.join(", ") });
  }
  const dot = rest.indexOf(".$");
  const field = dot < 0 ? rest : rest.slice(0, dot);
  const operator = dot < 0 ? "=" : rest.slice(dot + 1);
  if (field === "") throw apiError("query.missingField", { key });
  if (operator !== "=" && !isOperator(operator)) {
    throw apiError("query.unknownOperator", { operator, key, operators: OPERATORS.join(", ") });
  }
  return { field, operator };
}

function parseLeaf(key: string, value: unknown, walk: Walk): Part {
  if (++walk.conditions > walk.limits.maxConditions) limitExceeded(msg("limit.conditions"), walk.limits.maxConditions);
  const { join, rest } = splitPrefix(key);
  const { field, operator } = splitOperator(key, rest);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    throw apiError("query.objectOperand", { key });
  }
  const kind = walk.model.visibleSet.has(field) ? walk.model.kinds.get(field) : undefined;
  const related = kind === undefined ? relatedField(walk.model, field, walk.registry) : undefined;
  if (related?.kind !== undefined) {
    if (++walk.related > walk.limits.maxRelatedConditions) {
      limitExceeded(msg("limit.relatedConditions"), walk.limits.maxRelatedConditions);
    }
    const filter = leafFilter(
      { key, path: storedName(related.field), kind: related.kind, operator, value },
      walk.limits,
    );
    const rule = walk.ruleOf?.(related.model) ?? {};
    return { join, condition: relatedCondition(related, filter, walk.limits, walk.trashed === true, rule) };
  }
  if (kind === undefined) {
    // Keep going so the message can name every unknown field at once, like `fields` does.
    walk.unknown.push(field);
    return { join, condition: null };
  }
  if (walk.model.filterable !== null && !walk.model.filterable.has(field)) walk.refused.push(field);
  const filter = leafFilter({ key, path: storedName(field), kind, operator, value }, walk.limits);
  return { join, condition: { kind: "match", filter } };
}

/** Conditions joined by `kind`; one alone is itself. */
function group(kind: "and" | "or", parts: Condition[]): Condition {
  return parts.length === 1 ? parts[0] : { kind, parts };
}

/**
 * Joins a sequence with SQL precedence, which is what Axe API's generated SQL does:
 * AND binds tighter than OR, so `[A, $or.B, C]` is `A OR (B AND C)`.
 * The first part's join has nothing to join to inside this sequence and is ignored here;
 * it decides how the whole sequence joins its own predecessor (see {@link sequence}).
 */
function joinSequence(parts: readonly Part[]): Condition | null {
  const chains: Condition[][] = [];
  for (const part of parts) {
    if (part.condition === null) continue;
    if (chains.length === 0 || part.join === "or") chains.push([part.condition]);
    else chains[chains.length - 1].push(part.condition);
  }
  return chains.length === 0 ? null : group("or", chains.map((chain) => group("and", chain)));
}

/** A group takes the join of its first non-empty part: `[{"$or.a":1}, …]` joins with OR. */
function sequence(parts: readonly Part[]): Part {
  const first = parts.find((part) => part.condition !== null);
  return { join: first?.join ?? "and", condition: joinSequence(parts) };
}

function parseObject(node: Record<string, unknown>, walk: Walk): Part {
  return sequence(Object.keys(node).map((key) => parseLeaf(key, node[key], walk)));
}

function parseNode(node: unknown, depth: number, walk: Walk): Part {
  if (Array.isArray(node)) {
    if (depth + 1 > walk.limits.maxDepth) limitExceeded(msg("limit.depth"), walk.limits.maxDepth);
    return sequence(node.map((child) => parseNode(child, depth + 1, walk)));
  }
  if (node !== null && typeof node === "object") return parseObject(node as Record<string, unknown>, walk);
  throw apiError("query.badCondition", { value: JSON.stringify(node) });
}

function parseJson(q: string, limits: QueryLimits): unknown {
  if (q.length > limits.maxQueryLength || utf8Length(q) > limits.maxQueryLength) {
    limitExceeded(msg("limit.queryLength"), limits.maxQueryLength);
  }
  try {
    return JSON.parse(q);
  } catch {
    throw apiError("query.malformedJson");
  }
}

/**
 * Turns the `q` parameter into the read's condition. Pure: no database, only the models.
 *
 * - An object is a group of its keys, joined by AND unless a key starts with `$or.`.
 * - An array is a sequence of conditions and nested groups; `$or.` / `$and.` on a
 *   condition (or on a group's first condition) joins it to the previous one.
 * - AND binds tighter than OR: `[A, $or.B, C]` means `A OR (B AND C)`.
 * - Operator suffixes: `$not $gt $gte $lt $lte $in $notIn $between $notBetween`
 *   `$like $notLike $iLike $notILike`; `id` is stored as `_id`.
 *
 * With `settings.registry`, a field `<relation>.<field>` of a belongsTo or hasOne relation is a
 * condition on the related records: a typed node ({@link RelatedCondition}) that the store turns
 * into an `$in` of matching ids before the read.
 * @example parseConditions('{"user.name":"Ada"}', Post, { limits, registry })
 * // { kind: "related", relation: "user", model: "User", collection: "users", filter: { name: "Ada" }, key: "_id", into: "user_id", max: 1000 }
 */
export function parseConditions(q: string | null, model: Model, settings: WhereSettings): Condition {
  if (q === null || q.trim() === "") return EVERYTHING;
  return conditionOf(parseJson(q, settings.limits), model, settings);
}

/**
 * {@link parseConditions} for a condition already decoded from JSON (an access rule's, written
 * in a model file): the same language, the same checks and messages.
 */
export function conditionOf(value: unknown, model: Model, settings: WhereSettings): Condition {
  const walk: Walk = { ...settings, model, conditions: 0, related: 0, unknown: [], refused: [] };
  const { condition } = parseNode(value, 0, walk);
  if (walk.unknown.length > 0) throw undefinedColumns(walk.unknown);
  if (walk.refused.length > 0) {
    const allowed = [...model.filterable!].join(", ");
    throw apiError("query.filterNotAllowed", {
      fields: [...new Set(walk.refused)].join(","),
      model: model.name,
      allowed,
    });
  }
  return condition ?? EVERYTHING;
}

/**
 * Turns a `q` on the model's own fields into a MongoDB filter (see {@link parseConditions}).
 *
 * @example parseWhere('{"name":"Karl"}', User, limits)                    // { name: "Karl" }
 * @example parseWhere('{"age.$gt":18,"name":null}', User, limits)          // { $and: [{ age: { $gt: 18 } }, { name: null }] }
 * @example parseWhere('[{"name":"Karl"},{"$or.surname":"Popper"}]', User, limits)
 * // { $or: [{ name: "Karl" }, { surname: "Popper" }] }
 * @example parseWhere('[{"a":1},[{"$or.b":2},{"c":3}]]', M, limits)      // { $or: [{ a: 1 }, { $and: [{ b: 2 }, { c: 3 }] }] }
 * @example parseWhere('{"id.$in":[1,2]}', User, limits)                   // { _id: { $in: [1, 2] } }
 * @example parseWhere('{"name.$like":"Ka*"}', User, limits)               // { name: { $regex: "^Ka[\\s\\S]*(?![\\s\\S])" } }
 * @example parseWhere(null, User, limits)                                 // {}
 * @example parseWhere('{"$where":"sleep(1)"}', User, limits)              // throws ApiError 400
 */
export function parseWhere(q: string | null, model: Model, limits: QueryLimits): Document {
  return filterOf(parseConditions(q, model, { limits }));
}
