import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import type { Collection } from "../store/collection.ts";
import { keyOf } from "../store/values.ts";

/**
 * Refuses a `hint` that names no index of the collection, as MongoDB does (code 2). A hint is
 * an index name, a key pattern, or `{$natural: 1 | -1}` (a collection scan). A valid hint is
 * then followed by the read (query/planner.ts hintedPlan). A collection that does not
 * exist has no indexes to check against, and like MongoDB the read simply finds nothing.
 */
export function checkHint(coll: Collection | undefined, hint: unknown): void {
  if (hint === undefined || hint === null) return;
  if (typeof hint !== "string" && !isPlainObject(hint)) {
    throw new CommandError("FailedToParse", "hint must be a string (an index name) or an object (a key pattern)");
  }
  if (!coll || isNatural(hint)) return;
  if (typeof hint === "string" && hint === "") {
    throw new CommandError("BadValue", "hint provided does not correspond to an existing index");
  }
  const wanted = typeof hint === "string" ? undefined : keyOf(normalise(hint as Document));
  const found = coll.allIndexes().some((
    spec,
  ) => (wanted === undefined ? spec.name === hint : keyOf(normalise(spec.key)) === wanted));
  if (!found) throw new CommandError("BadValue", "hint provided does not correspond to an existing index");
}

function isNatural(hint: unknown): boolean {
  if (!isPlainObject(hint)) return false;
  const keys = Object.keys(hint);
  return keys.length === 1 && keys[0] === "$natural";
}

/** A key pattern with its directions as plain numbers (the driver may send 1 as a double or a Long). */
function normalise(key: Document): Document {
  return Object.fromEntries(Object.entries(key).map(([field, dir]) => [field, toNumber(dir)]));
}
