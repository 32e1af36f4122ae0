import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collation } from "../store/collation.ts";
import { mingoQuery } from "./mingo.ts";

/** A compiled filter; `null` stands for "matches everything" so callers can skip testing. */
export type Predicate = ((doc: Document) => boolean) | null;

/** True when a filter is absent or `{}`. */
export function isEmptyFilter(filter: unknown): boolean {
  if (filter === undefined || filter === null) return true;
  for (const _ in filter as object) return false;
  return true;
}

/** Compiles a MongoDB filter with mingo (which implements the query language), under a collation. */
export function compileFilter(filter: unknown, collation?: Collation): Predicate {
  if (isEmptyFilter(filter)) return null;
  if (!isPlainObject(filter)) throw new CommandError("TypeMismatch", "filter must be an object");
  const query = mingoQuery(filter, collation);
  return (doc) => query.test(doc);
}

/**
 * The value a filter condition pins a field to, when the condition is a plain equality that an
 * index lookup answers exactly (not a regex, array, or operator other than `$eq`).
 */
export function equalityValue(cond: unknown): { value: unknown } | undefined {
  if (cond instanceof RegExp || Array.isArray(cond)) return undefined;
  if (!isPlainObject(cond)) return { value: cond };
  const keys = Object.keys(cond);
  if (!keys.some((k) => k.startsWith("$"))) return { value: cond };
  if (keys.length !== 1 || keys[0] !== "$eq") return undefined;
  const inner = cond.$eq;
  if (inner instanceof RegExp || Array.isArray(inner)) return undefined;
  return { value: inner };
}
