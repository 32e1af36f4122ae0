import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { isHazardousName, ownField, setField } from "../field-names.ts";
import { valuesAt } from "./paths.ts";
import { compareValues, EMPTY_ARRAY_KEY, keyOf, sameValueKey } from "./values.ts";

/**
 * The key tuples a document gives an index on `fields`, as MongoDB forms them: a missing field
 * is null, an empty array {@link EMPTY_ARRAY_KEY} (BSON undefined in MongoDB), and an array gives one tuple per distinct element (in BSON
 * order), crossed with the other fields' values. Elements are distinct under `compare`, the
 * index's order: under a case-insensitive collation, "a" and "A" are one key, as in MongoDB.
 */
export function keyTuples(
  doc: Document,
  fields: readonly string[],
  compare: (a: unknown, b: unknown) => number = compareValues,
): unknown[][] {
  let tuples: unknown[][] = [[]];
  for (const field of fields) {
    const values = distinctValues(doc, field, compare);
    tuples = values.length === 1
      ? tuples.map((t) => [...t, values[0]])
      : tuples.flatMap((t) => values.map((v) => [...t, v]));
  }
  return tuples;
}

/** Whether reading any of `fields` in `doc` meets an array (the document makes an index on them multikey). */
export function touchesAnyArray(doc: Document, fields: readonly string[]): boolean {
  return fields.some((field) => touchesArray(doc, field));
}

/** Whether an index's fields need reading as own fields only: one is named like `constructor` (field-names.ts). */
export function namesHazardousField(fields: readonly string[]): boolean {
  return fields.some((field) => field.split(".").some(isHazardousName));
}

/**
 * Writes the one key tuple of `doc` for top-level `fields` at `keys[at..]` (missing fields as
 * null); false when a field holds an array, and then {@link keyTuples} must be used. With
 * `ownOnly` (see {@link namesHazardousField}), a field the document does not own is missing.
 */
export function pushFlatKey(
  doc: Document,
  fields: readonly string[],
  keys: unknown[],
  at: number,
  ownOnly = false,
): boolean {
  for (let f = 0; f < fields.length; f++) {
    const value = ownOnly ? ownField(doc, fields[f]) : doc[fields[f]];
    if (Array.isArray(value)) return false;
    keys[at + f] = value ?? null;
  }
  return true;
}

/**
 * The `{ field: value }` document MongoDB reports as keyValue for a duplicate key tuple: the
 * tuple that collided (one element of an array, not its first). An empty array's key stays
 * {@link EMPTY_ARRAY_KEY}: the error's text prints it as MongoDB does (commands/duplicate.ts).
 */
export function keyValueOf(key: readonly unknown[], fields: readonly string[]): Document {
  const out: Document = {};
  fields.forEach((field, f) => setField(out, field, key[f]));
  return out;
}

/** Whether two key tuples are one key, as the canonical keys of {@link keyOf} tell (NaN is one value). */
export function sameTuple(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let f = 0; f < a.length; f++) {
    if (a[f] === b[f]) continue;
    if (!sameValueKey(keyOf(a[f]), keyOf(b[f]))) return false;
  }
  return true;
}

/** True when reading `path` in `doc` meets an array. */
function touchesArray(doc: unknown, path: string): boolean {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (Array.isArray(current)) return true;
    if (!isPlainObject(current)) return false;
    current = ownField(current, part);
  }
  return Array.isArray(current);
}

/** The distinct values of a field under `compare`, in its order; a missing field is null. */
function distinctValues(doc: Document, path: string, compare: (a: unknown, b: unknown) => number): unknown[] {
  const values = valuesAt(doc, path, EMPTY_ARRAY_KEY).map((v) => (v === undefined ? null : v));
  if (values.length === 1) return values;
  values.sort(compare);
  return values.filter((v, i) => i === 0 || compare(values[i - 1], v) !== 0);
}
