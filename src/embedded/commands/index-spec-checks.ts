import type { Document } from "bson";
import { isPlainObject, toNumber, valueText } from "../bson.ts";
import { type CodeName, CommandError } from "../errors.ts";
import { numberKind } from "../query/number-arithmetic.ts";
import { bsonTypeOf } from "../query/bson-types.ts";

// What MongoDB 7.0's createIndexes checks of each index spec, in its order and words:
// create_indexes.cpp validateTTLOptions (every spec's TTL option, before anything else), then
// index_key_validate.cpp validateIndexSpec and validateKeyPattern (their errors prefixed with
// "Error in specification <spec> :: caused by :: "), then parseAndValidateIndexSpecs (the `_id`
// index's allowed fields, reserved names) and IndexCatalogImpl::_isSpecOk (the name's text).

/** The index types MongoDB knows (IndexNames::isKnownName); the engine builds none of them. */
const KNOWN_PLUGINS = new Set(["2d", "2dsphere", "2dsphere_bucket", "text", "hashed", "wildcard", "columnstore"]);

/** The fields an `_id` index spec may hold (allowedIdIndexFieldNames). */
const ID_INDEX_FIELDS = new Set(["collation", "name", "v", "key", "ns", "_id"]);

/** The largest `expireAfterSeconds` of a secondary TTL index: the int32 range. */
const MAX_TTL = 2_147_483_647;

/** A validateIndexSpec error: its reason after the spec as sent. */
function inSpec(raw: Document, code: CodeName, reason: string): CommandError {
  return new CommandError(code, `Error in specification ${valueText(raw)} :: caused by :: ${reason}`);
}

/**
 * The TTL option of one spec as createIndexes checks it before anything else
 * (validateIndexSpecTTL): a number that is not NaN, within the int32 range and not negative,
 * on a one-field key; each refusal is code 67.
 */
export function checkTtlOption(raw: unknown): void {
  if (!isPlainObject(raw) || raw.expireAfterSeconds === undefined) return;
  const reason = ttlValueError(raw.expireAfterSeconds);
  if (reason !== undefined) {
    throw new CommandError("CannotCreateIndex", `. Index spec: ${valueText(raw)} :: caused by :: ${reason}`);
  }
  if (isPlainObject(raw.key) && Object.keys(raw.key).length !== 1) {
    throw new CommandError(
      "CannotCreateIndex",
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${valueText(raw)}`,
    );
  }
}

/** validateExpireAfterSeconds(BSONElement, kSecondaryTTLIndex): why a value is refused, if it is. */
function ttlValueError(value: unknown): string | undefined {
  if (numberKind(value) === undefined) {
    return `TTL index 'expireAfterSeconds' option must be numeric, but received a type of '${bsonTypeOf(value)}'`;
  }
  const seconds = toNumber(value);
  if (Number.isNaN(seconds)) return "TTL index 'expireAfterSeconds' option must not be NaN";
  // safeNumberInt and safeNumberLong truncate: 1.5 is 1 to both, and accepted.
  const whole = Math.trunc(seconds);
  if (whole > MAX_TTL || whole < -MAX_TTL - 1) {
    return "TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer";
  }
  if (whole < 0) return "TTL index 'expireAfterSeconds' option cannot be less than 0";
  return undefined;
}

/**
 * One spec's fields as validateIndexSpec reads them, after the unknown-field check: `key` an
 * object whose pattern is valid, `name` a string, both present; then the `_id` index's fields
 * and the reserved names. `unknownField` is the first field the engine does not know, if any.
 */
export function checkIndexSpec(raw: unknown, unknownField: string | undefined): asserts raw is Document {
  if (!isPlainObject(raw)) throw new CommandError("TypeMismatch", "each index specification must be an object");
  if (unknownField !== undefined) {
    const reason = `The field '${unknownField}' is not valid for an index specification. Specification: ${
      valueText(raw)
    }`;
    throw inSpec(raw, "InvalidIndexSpecificationOption", reason);
  }
  for (const [field, value] of Object.entries(raw)) checkField(raw, field, value);
  for (const field of ["key", "name"]) {
    if (raw[field] === undefined) {
      throw inSpec(raw, "FailedToParse", `The '${field}' field is a required property of an index specification`);
    }
  }
  checkNames(raw);
}

function checkField(raw: Document, field: string, value: unknown): void {
  if (field === "key") {
    if (!isPlainObject(value)) throw inSpec(raw, "TypeMismatch", mustBe("key", "an object", value));
    const reason = keyPatternError(value);
    if (reason !== undefined) throw inSpec(raw, "CannotCreateIndex", reason);
  } else if (field === "name" && typeof value !== "string") {
    throw inSpec(raw, "TypeMismatch", mustBe("name", "a string", value));
  } else if ((field === "collation" || field === "partialFilterExpression") && !isPlainObject(value)) {
    throw inSpec(raw, "TypeMismatch", mustBe(field, "an object", value));
  } else if (field === "collation" && Object.keys(value as Document).length === 0) {
    throw inSpec(raw, "BadValue", "The field 'collation' cannot be an empty object.");
  } else if (field === "v") {
    checkVersion(raw, value);
  }
}

/** validateIndexSpec's `v`: a number (14), a 32-bit integer (2), and one an index can be created with, 1 or 2 (67). */
function checkVersion(raw: Document, value: unknown): void {
  if (numberKind(value) === undefined) throw inSpec(raw, "TypeMismatch", mustBe("v", "a number", value));
  const n = toNumber(value);
  if (!Number.isInteger(n) || n > MAX_TTL || n < -MAX_TTL - 1) {
    throw inSpec(
      raw,
      "BadValue",
      `Index version must be representable as a 32-bit integer, but got ${valueText(value)}`,
    );
  }
  if (n !== 1 && n !== 2) {
    throw inSpec(
      raw,
      "CannotCreateIndex",
      `Invalid index specification ${valueText(raw)}; cannot create an index with v=${n}`,
    );
  }
}

/** IndexDescriptor::isIdIndexPattern: `{_id: ±1}` (numberInt, so 1.5 too), which must then pass the `_id` index's checks. */
function isIdPattern(key: Document): boolean {
  const fields = Object.keys(key);
  if (fields.length !== 1 || fields[0] !== "_id" || numberKind(key._id) === undefined) return false;
  return Math.abs(Math.trunc(toNumber(key._id))) === 1;
}

function mustBe(field: string, what: string, value: unknown): string {
  return `The field '${field}' must be ${what}, but got ${bsonTypeOf(value)}`;
}

/** validateKeyPattern for v:2 indexes, and the empty-string rule after it: why a pattern is refused. */
function keyPatternError(key: Document): string | undefined {
  const entries = Object.entries(key);
  if (entries.length === 0) return "Index keys cannot be empty.";
  const plugin = pluginName(entries);
  if (plugin === "geoHaystack") return "GeoHaystack indexes cannot be created in version 5.0 and above";
  if (plugin !== "" && !KNOWN_PLUGINS.has(plugin)) return `Unknown index plugin '${plugin}'`;
  for (const [field, value] of entries) {
    const reason = keyValueError(value, plugin) ?? keyFieldError(field);
    if (reason !== undefined) return reason;
  }
  if (entries.some(([, value]) => value === "")) return "Values in the index key pattern cannot be empty strings";
  return undefined;
}

/** IndexNames::findPluginName: the first string value, else `wildcard` for a `$**` field. */
function pluginName(entries: [string, unknown][]): string {
  const named = entries.find(([, value]) => typeof value === "string");
  if (named !== undefined) return named[1] as string;
  return entries.some(([field]) => field === "$**" || field.endsWith(".$**")) ? "wildcard" : "";
}

function keyValueError(value: unknown, plugin: string): string | undefined {
  if (numberKind(value) !== undefined) {
    const n = toNumber(value);
    if (Number.isNaN(n)) return "Values in the index key pattern cannot be NaN.";
    if (n === 0) return "Values in the index key pattern cannot be 0.";
    return undefined;
  }
  if (typeof value !== "string") {
    return `Values in v:2 index key pattern cannot be of type ${
      bsonTypeOf(value)
    }. Only numbers > 0, numbers < 0, and strings are allowed.`;
  }
  if (value !== plugin) return "Can't use more than one index plugin for a single index.";
  return undefined;
}

/** The key's field path: no empty part, and no part starting with `$` but a DBRef's. */
function keyFieldError(field: string): string | undefined {
  if (field === "") return "Index keys cannot be an empty field.";
  if (field === "$**") return undefined;
  const parts = field.split(".");
  for (const [i, part] of parts.entries()) {
    if (part === "") return "Index keys cannot contain an empty field.";
    const dbRef = i > 0 && (part === "$db" || part === "$id" || part === "$ref");
    const wildcard = i === parts.length - 1 && part === "$**";
    if (part.startsWith("$") && !dbRef && !wildcard) {
      return "Index key contains an illegal field name: field name starts with '$'.";
    }
  }
  return undefined;
}

/** parseAndValidateIndexSpecs' `_id` index and reserved names, then _isSpecOk's name checks. */
function checkNames(raw: Document): void {
  const key = raw.key as Document;
  const name = raw.name as string;
  if (isIdPattern(key)) {
    const extra = Object.keys(raw).find((field) => !ID_INDEX_FIELDS.has(field));
    if (extra !== undefined) {
      // The spec is printed with the `v` validateIndexSpec added when it was missing.
      const shown = "v" in raw ? raw : { ...raw, v: 2 };
      throw new CommandError(
        "InvalidIndexSpecificationOption",
        `The field '${extra}' is not valid for an _id index specification. Specification: ${valueText(shown)}`,
      );
    }
    // validateIdIndexSpec: the only index on `_id` alone is the ascending one the collection has.
    if (toNumber(key._id) !== 1) {
      throw new CommandError(
        "BadValue",
        `The field 'key' for an _id index must be {_id: 1}, but got ${valueText(key)}`,
      );
    }
  } else if (name === "_id_") {
    throw new CommandError(
      "BadValue",
      `The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found key: ${
        valueText(key)
      }`,
    );
  } else if (name === "*") {
    throw new CommandError("BadValue", "The index name '*' is not valid.");
  }
  if (name.includes("\0")) throw new CommandError("CannotCreateIndex", "index name cannot contain NUL bytes");
  if (name === "") throw new CommandError("CannotCreateIndex", "index name cannot be empty");
}

/** Whether a key pattern asks for an index type the engine cannot build (text, geo, hashed, wildcard). */
export function specialIndexType(key: Document): string | undefined {
  const plugin = pluginName(Object.entries(key));
  return plugin === "" ? undefined : plugin;
}
