import type { Document } from "bson";
import { isPlainObject, toNumber, valueText } from "../bson.ts";
import type { IndexSpec } from "../changes.ts";
import { CommandError } from "../errors.ts";
import { partialFilterCoverage } from "../store/partial-filter.ts";
import { numberKind } from "../query/number-arithmetic.ts";

/**
 * Index spec fields the engine acts on, plus `v`, `background` and `dropDups` (ignored by 4.2+
 * servers too), `ns` (dropped by them) and `storageEngine` (a storage setting no client can
 * observe).
 */
const HONOURED = new Set([
  "key",
  "name",
  "unique",
  "collation",
  "expireAfterSeconds",
  "sparse",
  "partialFilterExpression",
  "v",
  "background",
  "dropDups",
  "ns",
  "storageEngine",
]);

/**
 * The other fields of a MongoDB 7.0 index spec. The engine cannot honour them, and ignoring
 * them would change what the index means (a hidden one is not planned, a text index matches
 * words), so they are refused.
 * `false` is accepted where it is the default.
 */
const UNSUPPORTED = new Set([
  "hidden",
  "prepareUnique",
  "clustered",
  "weights",
  "default_language",
  "language_override",
  "textIndexVersion",
  "2dsphereIndexVersion",
  "bits",
  "min",
  "max",
  "wildcardProjection",
  "coarsestIndexedLevel",
  "finestIndexedLevel",
]);

/** The first field of an index spec that a 7.0 server does not know (it refuses it with 197), if any. */
export function unknownIndexField(raw: unknown): string | undefined {
  if (!isPlainObject(raw)) return undefined;
  return Object.keys(raw).find((field) => !HONOURED.has(field) && !UNSUPPORTED.has(field));
}

/**
 * The spec without the fields a 7.0 server does not know, as createIndexes leaves them out
 * under `ignoreUnknownIndexOptions: true`.
 */
export function withoutUnknownFields(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([field]) => HONOURED.has(field) || UNSUPPORTED.has(field)));
}

/**
 * Refuses, with NotImplemented, the options of a valid spec the engine cannot honour (`false`
 * is accepted where it is the default), after the server's own checks passed.
 */
export function checkIndexOptions(raw: Document): void {
  for (const [field, value] of Object.entries(raw)) {
    if (UNSUPPORTED.has(field) && value !== false) {
      throw new CommandError("NotImplemented", `index option '${field}' is not supported by the embedded engine`);
    }
  }
}

/**
 * A flag of an index spec (`unique`, `sparse`). MongoDB takes a number for a bool (`unique: 1`
 * makes a unique index) and refuses any other type with TypeMismatch (index_key_validate.cpp;
 * its message's unclosed quote is MongoDB's own).
 */
export function boolOption(raw: Document, field: string): boolean {
  const value = raw[field];
  if (value === undefined || typeof value === "boolean") return value === true;
  if (numberKind(value) !== undefined) return toNumber(value) !== 0;
  throw new CommandError(
    "TypeMismatch",
    `Error in specification ${valueText(raw)} :: caused by :: The field '${field} has value ${field}: ${
      valueText(value)
    }, which is not convertible to bool`,
  );
}

/** The longest TTL MongoDB 7.0 accepts, in seconds (the int32 range). */
const MAX_EXPIRE_AFTER_SECONDS = 2_147_483_647;

/**
 * The `expireAfterSeconds` of a TTL index spec, checked as MongoDB checks it: a number from 0
 * to 2147483647, on an index of one field other than `_id`. Undefined when the spec has none.
 */
export function expireAfterSecondsOf(raw: Document, key: Record<string, unknown>): number | undefined {
  const value = raw.expireAfterSeconds;
  if (value === undefined) return undefined;
  const fields = Object.keys(key);
  if (fields.length === 1 && fields[0] === "_id") {
    throw new CommandError(
      "InvalidIndexSpecificationOption",
      "The field 'expireAfterSeconds' is not valid for an _id index specification.",
    );
  }
  if (fields.length > 1) {
    throw new CommandError(
      "CannotCreateIndex",
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${JSON.stringify(key)}`,
    );
  }
  const seconds = numberKind(value) === undefined ? NaN : toNumber(value);
  if (!(seconds >= 0 && seconds <= MAX_EXPIRE_AFTER_SECONDS)) {
    throw new CommandError(
      "CannotCreateIndex",
      `TTL index 'expireAfterSeconds' option must be a number from 0 to ${MAX_EXPIRE_AFTER_SECONDS}, got ${
        String(value)
      }`,
    );
  }
  return seconds;
}

/**
 * The `sparse` and `partialFilterExpression` of an index spec, checked as MongoDB checks them:
 * not both, not on `_id`, and a filter of the operators a partial index allows.
 */
export function coverageOptionsOf(
  raw: Document,
  key: Record<string, unknown>,
): Pick<IndexSpec, "sparse" | "partialFilterExpression"> {
  const sparse = boolOption(raw, "sparse");
  const partial = raw.partialFilterExpression;
  if (!sparse && partial === undefined) return {};
  if (Object.keys(key).length === 1 && "_id" in key) {
    throw new CommandError("InvalidIndexSpecificationOption", "The _id index cannot be sparse or partial");
  }
  if (sparse && partial !== undefined) {
    throw new CommandError("CannotCreateIndex", 'cannot mix "partialFilterExpression" and "sparse" options');
  }
  if (sparse) return { sparse: true };
  partialFilterCoverage(partial); // refuses what MongoDB does not allow in a partial filter
  return { partialFilterExpression: partial as Document };
}
