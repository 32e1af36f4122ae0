import type { Document } from "bson";
import type { Model } from "../model/define.ts";

const hiddenOnly = new WeakMap<Model, Document | undefined>();

/** Excludes hidden fields, so they never even leave the database on a read path. */
function withoutHidden(model: Model): Document | undefined {
  if (!hiddenOnly.has(model)) {
    const hidden = [...model.hidden];
    hiddenOnly.set(model, hidden.length ? Object.fromEntries(hidden.map((f) => [f, 0])) : undefined);
  }
  return hiddenOnly.get(model);
}

/** Hidden fields that are not relation keys: a hidden foreign key is still needed to attach its relation. */
function exceptKeys(model: Model, keys: readonly string[]): Document | undefined {
  const hidden = [...model.hidden].filter((field) => !keys.includes(field));
  return hidden.length ? Object.fromEntries(hidden.map((f) => [f, 0])) : undefined;
}

/**
 * The MongoDB projection for a read: the selected fields plus the keys relations need
 * (those are removed again at serialisation), or everything but hidden fields.
 * @example projection(User, ["id", "name"], []) // { _id: 1, name: 1 }
 * @example projection(User, null, [])           // { password: 0 }
 */
export function projection(
  model: Model,
  fields: readonly string[] | null,
  keys: readonly string[],
): Document | undefined {
  if (fields === null) {
    return keys.some((key) => model.hidden.has(key)) ? exceptKeys(model, keys) : withoutHidden(model);
  }
  const out: Document = { _id: 1 };
  for (const name of [...fields, ...keys]) if (name !== "id") out[name] = 1;
  return out;
}
