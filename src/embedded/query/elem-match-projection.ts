import type { Document } from "bson";
import { Query } from "mingo/query";
import type { Options } from "mingo/types";
import { CommandError } from "../errors.ts";
import { prepareFilter } from "./filter-checks.ts";

/**
 * The `$elemMatch` projection operator, as MongoDB's: the array field keeps only its first
 * element that matches the condition, read as the `$elemMatch` query operator reads it, so an
 * operator condition (`{$elemMatch: {$eq: "y"}}`, `{$gt: 3}`) applies to scalar elements. mingo
 * tested each element as a whole document, which refused operator conditions ("unknown top
 * level operator"). A dotted field is refused, as MongoDB refuses it.
 */
export function $elemMatch(obj: Document, expr: unknown, field: string, options: Options): unknown[] | undefined {
  if (field.includes(".")) {
    throw new CommandError("BadValue", `Cannot use $elemMatch projection on a nested field: ${field}`);
  }
  const list = obj[field];
  if (!Array.isArray(list)) return undefined;
  // One element at a time under the query operator, which tells operator conditions from field ones.
  const query = new Query(prepareFilter({ element: { $elemMatch: expr } }), options);
  const match = list.find((element) => query.test({ element: [element] }));
  return match === undefined ? undefined : [match];
}
