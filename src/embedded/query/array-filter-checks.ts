import type { Document } from "bson";
import { isPlainObject, valueText } from "../bson.ts";
import { CommandError } from "../errors.ts";

// MongoDB checks an update's arrayFilters when it parses the update, before it reads any
// document (so a statement that matches nothing is refused too): ParsedUpdate's
// parseArrayFilters (ExpressionWithPlaceholder: one top-level field name per filter, a valid
// identifier, no identifier twice), then UpdateDriver::parse (every `$[id]` has a filter, every
// filter is used). Codes and words are 7.0's.

/** An identifier of `$[identifier]`: a lower-case letter, then letters and digits. */
const IDENTIFIER = /^[a-z][a-zA-Z0-9]*$/;

/** `$[identifier]` in a path part. */
const FILTERED = /^\$\[(.*)\]$/;

/** The operators whose arguments are filters, not fields: their children carry the field names. */
const LOGICAL = new Set(["$and", "$or", "$nor"]);

/** Refuses an update's array filters as MongoDB does when it parses the update. */
export function checkArrayFilters(update: unknown, arrayFilters: unknown): void {
  const filters: unknown[] = Array.isArray(arrayFilters) ? arrayFilters : [];
  const identifiers = new Set<string>();
  for (const filter of filters) {
    if (!isPlainObject(filter)) continue;
    const identifier = identifierOf(filter);
    if (identifiers.has(identifier)) {
      throw new CommandError(
        "FailedToParse",
        `Found multiple array filters with the same top-level field name ${identifier}`,
      );
    }
    identifiers.add(identifier);
  }
  if (Array.isArray(update)) {
    if (filters.length > 0) {
      throw new CommandError("FailedToParse", "arrayFilters may not be specified for pipeline-style updates");
    }
    return;
  }
  // UpdateDriver::parse checks for unused filters only in an operator update: a replacement
  // (its first field not `$`-prefixed, `{}` included) is applied whatever the filters say.
  if (!isPlainObject(update) || !Object.keys(update)[0]?.startsWith("$")) return;
  const used = usedIdentifiers(update, identifiers);
  for (const identifier of identifiers) {
    if (!used.has(identifier)) {
      throw new CommandError(
        "FailedToParse",
        `The array filter for identifier '${identifier}' was not used in the update ${valueText(update)}`,
      );
    }
  }
}

/** The one top-level field name of an array filter (ExpressionWithPlaceholder::make). */
function identifierOf(filter: Document): string {
  const names = new Set<string>();
  topLevelNames(filter, names);
  if (names.size === 0) {
    throw new CommandError("FailedToParse", "Cannot use an expression without a top-level field name in arrayFilters");
  }
  if (names.size > 1) {
    const [first, second] = names;
    throw new CommandError("FailedToParse", `Expected a single top-level field name, found '${first}' and '${second}'`);
  }
  const [name] = names;
  if (!IDENTIFIER.test(name)) {
    throw new CommandError(
      "BadValue",
      `The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${name}'`,
    );
  }
  return name;
}

function topLevelNames(filter: Document, into: Set<string>): void {
  for (const [key, value] of Object.entries(filter)) {
    if (LOGICAL.has(key) && Array.isArray(value)) {
      for (const branch of value) if (isPlainObject(branch)) topLevelNames(branch, into);
    } else if (!key.startsWith("$")) {
      into.add(key.split(".")[0]);
    }
  }
}

/**
 * The identifiers the update's paths use, refusing a `$[identifier]` that no filter defines
 * (UpdateObjectNode's parseArrayFilterIdentifier, code 2, naming the whole path).
 */
function usedIdentifiers(update: Document, identifiers: ReadonlySet<string>): Set<string> {
  const used = new Set<string>();
  for (const [op, fields] of Object.entries(update)) {
    if (!op.startsWith("$") || !isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) {
      for (const part of path.split(".")) {
        const identifier = FILTERED.exec(part)?.[1];
        if (!identifier) continue;
        if (!identifiers.has(identifier)) {
          throw new CommandError(
            "BadValue",
            `No array filter found for identifier '${identifier}' in path '${path}'`,
          );
        }
        used.add(identifier);
      }
    }
  }
  return used;
}
