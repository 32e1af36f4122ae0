import { type ApiError, apiError } from "../errors.ts";
import type { Model } from "../model/define.ts";

/**
 * The 400 for names a model does not expose, in the same form as the `fields` parameter so
 * clients see one message shape whichever parameter was wrong. Hidden fields land here too:
 * answering differently for them would tell a client that they exist.
 * @example undefinedColumns(["age", "password"]).message // "Undefined column names: age,password"
 */
export function undefinedColumns(names: readonly string[]): ApiError {
  return apiError("query.undefinedColumns", { names: [...new Set(names)].join(",") });
}

/**
 * The names among `names` that the model does not let clients see (unknown or hidden).
 * @example unknownColumns(User, ["name", "password"]) // ["password"]
 */
export function unknownColumns(model: Model, names: Iterable<string>): string[] {
  const unknown: string[] = [];
  for (const name of names) if (!model.visibleSet.has(name)) unknown.push(name);
  return unknown;
}

/**
 * Where an API field lives in the stored document: `id` is MongoDB's `_id`, everything else
 * keeps its name.
 * @example storedName("id")   // "_id"
 * @example storedName("name") // "name"
 */
export function storedName(field: string): string {
  return field === "id" ? "_id" : field;
}
