import { apiError } from "../errors.ts";
import type { Model } from "../model/define.ts";
import { undefinedColumns, unknownColumns } from "./columns.ts";

/**
 * Checks a list of names against the fields a client may see, and puts `id` first.
 * @example checkFields(["name", "id"], User) // ["id", "name"]
 * @example checkFields(["password"], User)   // throws 400 "Undefined column names: password"
 */
export function checkFields(names: readonly string[], model: Model): string[] {
  const unknown = unknownColumns(model, names);
  if (unknown.length > 0) throw undefinedColumns(unknown);
  return ["id", ...new Set(names.filter((name) => name !== "id"))];
}

/**
 * Reads `fields=id,name`. Null means "all visible fields". Empty items are ignored, so a
 * trailing comma is harmless; a list with no names at all is refused.
 * @example parseFields("name,email", User) // ["id", "name", "email"]
 * @example parseFields(null, User)         // null
 */
export function parseFields(raw: string | null, model: Model): string[] | null {
  if (raw === null) return null;
  const names = raw.split(",").map((name) => name.trim()).filter(Boolean);
  if (names.length === 0) {
    throw apiError("param.fields", { value: raw });
  }
  return checkFields(names, model);
}
