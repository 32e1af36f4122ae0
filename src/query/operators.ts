import type { Document } from "bson";
import { apiError } from "../errors.ts";
import type { FieldKind } from "../model/define.ts";
import { likeRegex } from "./like.ts";
import type { QueryLimits } from "./limits.ts";
import { listOperand, scalarOperand } from "./operand.ts";

/** One leaf condition after its key has been split: `"$or.age.$gt": 18`. */
export interface Leaf {
  /** The key exactly as the client wrote it, for error messages. */
  key: string;
  /** Where the field is stored (`_id` for `id`). */
  path: string;
  kind: FieldKind;
  /** `"="` for a bare field, otherwise the suffix such as `"$gt"`. */
  operator: string;
  value: unknown;
}

type Build = (leaf: Leaf, limits: QueryLimits) => Document;

const at = (leaf: Leaf, condition: unknown): Document => ({ [leaf.path]: condition });
const one = (leaf: Leaf) => scalarOperand(leaf.value, leaf.kind, leaf.key);
const pair = (leaf: Leaf) => listOperand(leaf.value, leaf.kind, leaf.key, { arity: 2 });
const list = (leaf: Leaf, limits: QueryLimits) =>
  listOperand(leaf.value, leaf.kind, leaf.key, { max: limits.maxInList });

function ordered(leaf: Leaf): Leaf {
  if (leaf.kind === "boolean") {
    throw apiError("query.needsOrdered", { key: leaf.key });
  }
  return leaf;
}

function textual(leaf: Leaf): string {
  if (leaf.kind !== "string" && leaf.kind !== "other") {
    throw apiError("query.likeNeedsString", { key: leaf.key, kind: leaf.kind });
  }
  if (typeof leaf.value !== "string") {
    throw apiError("query.likeNeedsPattern", { key: leaf.key });
  }
  return leaf.value;
}

const like = (leaf: Leaf, insensitive: boolean) => likeRegex(textual(leaf), insensitive, `"${leaf.key}"`);

// Negated operators follow SQL, which Axe API users know: a null or missing field is
// neither equal nor unequal to anything, so `$not`, `$notIn`, `$notBetween` and the
// not-like forms never match it. `{"field": null}` asks for those documents explicitly.
const BUILDERS: Record<string, Build> = {
  "=": (leaf) => at(leaf, one(leaf)),
  $not: (leaf) => at(leaf, { $nin: [one(leaf), null] }),
  $gt: (leaf) => at(leaf, { $gt: one(ordered(leaf)) }),
  $gte: (leaf) => at(leaf, { $gte: one(ordered(leaf)) }),
  $lt: (leaf) => at(leaf, { $lt: one(ordered(leaf)) }),
  $lte: (leaf) => at(leaf, { $lte: one(ordered(leaf)) }),
  $in: (leaf, limits) => at(leaf, { $in: list(leaf, limits) }),
  $notIn: (leaf, limits) => at(leaf, { $nin: [...list(leaf, limits), null] }),
  $between: (leaf) => {
    const [low, high] = pair(ordered(leaf));
    return at(leaf, { $gte: low, $lte: high });
  },
  $notBetween: (leaf) => {
    const [low, high] = pair(ordered(leaf));
    return { $or: [at(leaf, { $lt: low }), at(leaf, { $gt: high })] };
  },
  $like: (leaf) => at(leaf, like(leaf, false)),
  $notLike: (leaf) => at(leaf, { $ne: null, $not: like(leaf, false) }),
  $iLike: (leaf) => at(leaf, like(leaf, true)),
  $notILike: (leaf) => at(leaf, { $ne: null, $not: like(leaf, true) }),
};

/** The operator suffixes a client may use, in documentation order. */
export const OPERATORS: readonly string[] = Object.keys(BUILDERS).filter((name) => name !== "=");

/**
 * True for a suffix in {@link OPERATORS}. Own-property lookup, so `constructor` or
 * `__proto__` can never resolve to something on Object.prototype.
 */
export function isOperator(name: string): boolean {
  return name !== "=" && Object.hasOwn(BUILDERS, name);
}

/**
 * Turns one checked leaf into its MongoDB filter. `null` is handled here because it is the
 * only operand whose meaning depends on the operator: `=` null is "null or missing" and
 * `$not` null is "present and not null"; every other operator rejects it.
 * @example leafFilter({ key: "age.$gt", path: "age", kind: "integer", operator: "$gt", value: 18 }, limits)
 * // { age: { $gt: 18 } }
 * @example leafFilter({ key: "phone.$not", path: "phone", kind: "string", operator: "$not", value: null }, limits)
 * // { phone: { $ne: null } }
 */
export function leafFilter(leaf: Leaf, limits: QueryLimits): Document {
  if (leaf.value === null) {
    if (leaf.operator === "=") return at(leaf, null);
    if (leaf.operator === "$not") return at(leaf, { $ne: null });
    throw apiError("query.nullNotAllowed", { key: leaf.key });
  }
  return BUILDERS[leaf.operator](leaf, limits);
}
