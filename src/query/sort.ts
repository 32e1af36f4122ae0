import type { Document } from "bson";
import { apiError } from "../errors.ts";
import { holdsManyValues, type Model } from "../model/define.ts";
import { storedName, undefinedColumns, unknownColumns } from "./columns.ts";

interface SortKey {
  field: string;
  direction: 1 | -1;
}

function parseEntry(entry: string): SortKey {
  // `+name` arrives as " name" because `+` decodes to a space; both mean ascending.
  const text = entry.trim();
  const descending = text.startsWith("-");
  const field = descending || text.startsWith("+") ? text.slice(1).trim() : text;
  if (field === "") throw apiError("query.sortEmpty");
  return { field, direction: descending ? -1 : 1 };
}

function entries(raw: string): string[] {
  const parts = raw.split(",");
  // Tolerate one trailing comma, as clients that build the list in a loop often send it.
  if (parts.length > 1 && parts[parts.length - 1].trim() === "") parts.pop();
  return parts;
}

/** Refuses a sort on a field holding a list or an object (see holdsManyValues): a cursor could not follow it. */
function refuseCompound(model: Model, keys: readonly SortKey[]): void {
  const compound = keys.find((key) => holdsManyValues(model, key.field));
  if (compound !== undefined) throw apiError("query.sortNotScalar", { field: compound.field });
}

/** A model with a `sortable` list refuses other fields, so no client can make it sort a large collection without an index. */
function refuseUnsortable(model: Model, keys: readonly SortKey[]): void {
  if (model.sortable === null) return;
  const refused = keys.map((key) => key.field).filter((field) => !model.sortable!.has(field));
  if (refused.length === 0) return;
  throw apiError("query.sortNotAllowed", {
    fields: refused.join(","),
    model: model.name,
    allowed: [...model.sortable].join(", "),
  });
}

/**
 * Turns `sort` into a MongoDB sort document. `-` means descending, `+` or nothing ascending.
 * `_id` is always the last key, so rows with equal sort values keep a stable order across
 * pages; if the client sorted on `id` itself, its direction is kept.
 * @example parseSort("-created_at,name", User) // { created_at: -1, name: 1, _id: 1 }
 * @example parseSort("-id", User)              // { _id: -1 }
 * @example parseSort(null, User)               // { _id: 1 }
 * @example parseSort("password", User)         // throws 400 "Undefined column names: password"
 */
export function parseSort(raw: string | null, model: Model): Document {
  if (raw === null || raw.trim() === "") return { _id: 1 };
  const keys = entries(raw).map(parseEntry);
  const unknown = unknownColumns(model, keys.map((key) => key.field));
  if (unknown.length > 0) throw undefinedColumns(unknown);
  refuseUnsortable(model, keys);
  refuseCompound(model, keys);
  const sort = new Map<string, 1 | -1>();
  for (const { field, direction } of keys) {
    const path = storedName(field);
    if (sort.has(path)) throw apiError("query.sortTwice", { field });
    sort.set(path, direction);
  }
  if (!sort.has("_id")) sort.set("_id", 1);
  return Object.fromEntries(sort);
}
