import { isPlainObject } from "../bson.ts";
import { ownField } from "../field-names.ts";

/**
 * Reads a dotted path, collecting every value reached through arrays (the multikey semantics
 * of indexes and sorts). Never empty: a missing path yields `[undefined]`, and an empty array
 * at its end `emptyArray` (indexes and sorts pass EMPTY_ARRAY_KEY: `[]` is not missing to them).
 * Only fields a document owns are read: `constructor` missing from it is missing, not
 * `Object.prototype`'s.
 */
export function valuesAt(doc: unknown, path: string, emptyArray?: unknown): unknown[] {
  const parts = path.split(".");
  let current: unknown[] = [doc];
  for (const part of parts) {
    const next: unknown[] = [];
    for (const v of current) {
      if (Array.isArray(v)) {
        const i = Number(part);
        if (Number.isInteger(i) && String(i) === part) next.push(v[i]);
        else for (const e of v) if (isPlainObject(e)) next.push(ownField(e, part));
      } else if (isPlainObject(v)) next.push(ownField(v, part));
    }
    current = next;
  }
  const out: unknown[] = [];
  for (const v of current) {
    if (Array.isArray(v)) out.push(...(v.length ? v : [emptyArray]));
    else out.push(v);
  }
  return out.length ? out : [undefined];
}
