import type { Document } from "bson";
import { isPlainObject, valueText } from "../bson.ts";
import type { IndexSpec } from "../changes.ts";
import { CommandError } from "../errors.ts";
import { parseCollation, sameCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import { keyOf } from "../store/values.ts";

/**
 * How a requested index compares with an existing one, as MongoDB 7.0's
 * IndexDescriptor::compareIndexOptions says: `different` when the key pattern or a signature
 * option (collation, partial filter, sparse, unique) differs, `equivalent` when only other
 * options (expireAfterSeconds) do, else `identical`. Indexes with different signatures may
 * share a key pattern under different names (jstests/core/index/index_signature.js).
 */
export type IndexComparison = "identical" | "equivalent" | "different";

export function compareIndexes(a: IndexSpec, b: IndexSpec): IndexComparison {
  const sameSignature = keyOf(a.key) === keyOf(b.key) &&
    sameCollation(parseCollation(a.collation), parseCollation(b.collation)) &&
    keyOf(filterTerms(a.partialFilterExpression)) === keyOf(filterTerms(b.partialFilterExpression)) &&
    !!a.sparse === !!b.sparse && !!a.unique === !!b.unique;
  if (!sameSignature) return "different";
  return a.expireAfterSeconds === b.expireAfterSeconds ? "identical" : "equivalent";
}

/**
 * A partial filter as a list of `{path: {op: value}}` leaves: nested `$and`s and several
 * operators on one field flattened, bare values read as `$eq`, the leaves ordered by path and
 * operator only. MongoDB normalises a filter the same way before comparing (its sortTree does
 * not order leaves by value, so `{$and: [{a: {$type: 1}}, {a: {$type: 2}}]}` reversed is a
 * different filter to it too, as index_signature.js shows).
 */
function filterTerms(filter: Document | undefined): unknown[] {
  if (filter === undefined) return [];
  const leaves: [string, string, unknown][] = [];
  collectLeaves(filter, leaves);
  // Array.prototype.sort is stable: leaves with one path and operator keep their order.
  leaves.sort((x, y) => (x[0] === y[0] ? compareText(x[1], y[1]) : compareText(x[0], y[0])));
  return leaves.map(([path, op, value]) => (path === "" ? { [op]: value } : { [path]: { [op]: value } }));
}

function collectLeaves(filter: Document, leaves: [string, string, unknown][]): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const part of value) if (isPlainObject(part)) collectLeaves(part, leaves);
    } else if (key.startsWith("$")) {
      // An `$or` stays whole: its branches are compared as written.
      leaves.push(["", key, value]);
    } else if (isPlainObject(value) && Object.keys(value)[0]?.startsWith("$")) {
      for (const [op, arg] of Object.entries(value)) leaves.push([key, op, arg]);
    } else {
      leaves.push([key, "$eq", value]);
    }
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An index spec as MongoDB prints it in a conflict message. */
function shown(spec: IndexSpec): string {
  const { key, name, ...options } = spec;
  return valueText({ v: 2, key, name, ...options });
}

/**
 * True when an identical index already exists (creating it again does nothing); throws the
 * error MongoDB 7.0 gives for a conflicting one (IndexCatalogImpl::_doesSpecConflictWithExisting):
 * - same name, different key or signature: IndexKeySpecsConflict (86);
 * - same name, same signature, other options differ: IndexOptionsConflict (85);
 * - another name, same signature: IndexOptionsConflict (85).
 */
export function alreadyExists(coll: Collection, spec: IndexSpec): boolean {
  const indexes = coll.allIndexes();
  const named = indexes.find((existing) => existing.name === spec.name);
  if (named) return sameNameConflict(named, spec);
  for (const existing of indexes) {
    const comparison = compareIndexes(spec, existing);
    if (comparison === "equivalent") {
      throw new CommandError(
        "IndexOptionsConflict",
        `An equivalent index already exists with a different name and options. Requested index: ${
          shown(spec)
        }, existing index: ${shown(existing)}`,
      );
    }
    if (comparison === "identical") {
      throw new CommandError("IndexOptionsConflict", `Index already exists with a different name: ${existing.name}`);
    }
  }
  return false;
}

function sameNameConflict(existing: IndexSpec, spec: IndexSpec): boolean {
  const comparison = compareIndexes(spec, existing);
  if (comparison === "identical") return true;
  const conflict = `Requested index: ${shown(spec)}, existing index: ${shown(existing)}`;
  if (comparison === "equivalent") {
    throw new CommandError(
      "IndexOptionsConflict",
      `An equivalent index already exists with the same name but different options. ${conflict}`,
    );
  }
  throw new CommandError(
    "IndexKeySpecsConflict",
    "An existing index has the same name as the requested index. When index names are not specified, they are " +
      `auto generated and can cause conflicts. Please refer to our documentation. ${conflict}`,
  );
}

/**
 * The one index a key pattern names (dropIndexes, collMod). Several indexes may share a key
 * pattern when their signatures differ; MongoDB then refuses the pattern (AmbiguousIndexKeyPattern,
 * 181) and asks for the name.
 */
export function indexByKeyPattern(coll: Collection, pattern: Document): IndexSpec | undefined {
  const found = coll.allIndexes().filter((spec) => keyOf(spec.key) === keyOf(pattern));
  if (found.length > 1) {
    throw new CommandError(
      "AmbiguousIndexKeyPattern",
      `${found.length} indexes found for key: ${valueText(pattern)}, identify by name instead. ` +
        `Conflicting indexes: ${shown(found[0])}, ${shown(found[1])}`,
    );
  }
  return found[0];
}
