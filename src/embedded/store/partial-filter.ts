import type { Document } from "bson";
import { firstKey, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compileFilter } from "../query/filter.ts";
import type { Collation } from "./collation.ts";

/**
 * Which documents a sparse or partial index covers: the ones its uniqueness applies to.
 * - Partial: those its `partialFilterExpression` matches, as a query filter matches them (the
 *   engine's matcher, under the index's collation, as MongoDB evaluates it with the index's
 *   collator). The filter may only use what MongoDB allows there: equality (`field: value`,
 *   `$eq`), `$exists: true`, `$gt`, `$gte`, `$lt`, `$lte`, `$type`, `$in`, and `$and`/`$or` of
 *   those; anything else is refused when the index is created (code 67).
 * - Sparse: those in which one of the indexed fields is present (null and `[]` included), as
 *   MongoDB's key generator decides.
 */
export type Coverage = (doc: Document) => boolean;

/** The coverage of a partial filter; throws CannotCreateIndex for an expression MongoDB does not allow. */
export function partialFilterCoverage(filter: unknown, collation?: Collation): Coverage {
  checkPartialFilter(filter);
  const matches = compileFilter(filter, collation);
  return matches === null ? () => true : matches;
}

/** The coverage of a sparse index on `fields`. */
export function sparseCoverage(fields: readonly string[]): Coverage {
  const paths = fields.map((field) => field.split("."));
  return (doc) => paths.some((parts) => present(doc, parts, 0));
}

/** Whether the path from `parts[i]` on reaches a value in `value`, through documents and arrays. */
function present(value: unknown, parts: readonly string[], i: number): boolean {
  if (i === parts.length) return value !== undefined;
  if (Array.isArray(value)) {
    const index = /^[0-9]+$/.test(parts[i]) ? Number(parts[i]) : -1;
    return value.some((element) => present(element, parts, i)) || (index >= 0 && present(value[index], parts, i + 1));
  }
  return isPlainObject(value) && present(value[parts[i]], parts, i + 1);
}

const ALLOWED = new Set(["$eq", "$exists", "$gt", "$gte", "$lt", "$lte", "$type", "$in"]);

/** Refuses a partial filter that uses what MongoDB does not allow in one. */
function checkPartialFilter(filter: unknown): void {
  if (!isPlainObject(filter)) throw unsupported("partialFilterExpression must be a document");
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value) || value.length === 0) throw unsupported(`${key} must be a non-empty array`);
      value.forEach(checkPartialFilter);
    } else if (key.startsWith("$")) {
      throw unsupported(`Expression not supported in partial index: ${key}`);
    } else if (isPlainObject(value) && firstKey(value)?.startsWith("$")) {
      for (const [op, arg] of Object.entries(value)) checkOperator(op, arg);
    } else {
      checkOperator("$eq", value);
    }
  }
}

function checkOperator(op: string, arg: unknown): void {
  if (!ALLOWED.has(op)) throw unsupported(`Expression not supported in partial index: ${op}`);
  if (op === "$exists" && !(arg === true || (typeof arg === "number" && arg !== 0))) {
    throw unsupported("Expression not supported in partial index: $exists: false");
  }
  if (op === "$in" && !Array.isArray(arg)) throw unsupported("$in needs an array");
  const operands = op === "$in" ? arg as unknown[] : [arg];
  if (operands.some((operand) => operand instanceof RegExp)) {
    throw unsupported("Expression not supported in partial index: a regular expression");
  }
}

function unsupported(message: string): CommandError {
  return new CommandError("CannotCreateIndex", message);
}
