import type { Document } from "bson";
import AjvDraft04 from "ajv-draft-04";
import type { ErrorObject, ValidateFunction } from "ajv";
import { bsonTag, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";

/** JSON Schema keywords MongoDB's `$jsonSchema` refuses (it has no references, formats or defaults). */
const REFUSED_KEYWORDS = new Set(["$ref", "$schema", "default", "definitions", "format", "id"]);

/** MongoDB's `bsonType` aliases, tested against the values the engine holds. */
function hasBsonType(value: unknown, type: string): boolean {
  const tag = bsonTag(value);
  switch (type) {
    case "number":
      return typeof value === "number" || tag === "Long" || tag === "Decimal128" || tag === "Int32" || tag === "Double";
    case "int":
      return (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 2 ** 31) || tag === "Int32";
    case "double":
      return (typeof value === "number" && !Number.isInteger(value)) || tag === "Double";
    case "long":
      return tag === "Long";
    case "decimal":
      return tag === "Decimal128";
    case "string":
      return typeof value === "string";
    case "bool":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainObject(value);
    case "date":
      return value instanceof Date;
    case "regex":
      return value instanceof RegExp || tag === "BSONRegExp";
    case "objectId":
      return tag === "ObjectId";
    case "binData":
      return tag === "Binary";
    case "timestamp":
      return tag === "Timestamp";
    case "minKey":
      return tag === "MinKey";
    case "maxKey":
      return tag === "MaxKey";
    case "javascript":
      return tag === "Code";
    default:
      return false;
  }
}

// The package is CommonJS: its class is the module itself and also its `default` (what the types describe).
const ajv = new AjvDraft04.default({ allErrors: true, verbose: true, strict: false, validateSchema: true });
ajv.addKeyword({
  keyword: "bsonType",
  schemaType: ["string", "array"],
  validate: (types: string | string[], value: unknown) =>
    (Array.isArray(types) ? types : [types]).some((t) => hasBsonType(value, t)),
  errors: false,
});

function refuseKeywords(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(refuseKeywords);
  if (!isPlainObject(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (REFUSED_KEYWORDS.has(key)) {
      throw new CommandError("FailedToParse", `$jsonSchema keyword '${key}' is not currently supported`);
    }
    if (key !== "enum") refuseKeywords(value);
  }
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles a `$jsonSchema` (draft 4 plus MongoDB's `bsonType`), refusing keywords MongoDB refuses. */
export function compileJsonSchema(schema: Document): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  refuseKeywords(schema);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new CommandError(
      "FailedToParse",
      `invalid $jsonSchema: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  compiled.set(schema, validate);
  return validate;
}

/** mingo's hook for `$jsonSchema`: a predicate per schema. */
export function jsonSchemaPredicate(schema: Document): (doc: Document) => boolean {
  const validate = compileJsonSchema(schema);
  return (doc) => validate(doc) === true;
}

/** The rules a document breaks, in the spirit of MongoDB's `schemaRulesNotSatisfied`. */
export function schemaRulesNotSatisfied(schema: Document, doc: Document): Document[] {
  const validate = compileJsonSchema(schema);
  if (validate(doc)) return [];
  return (validate.errors ?? []).map(describe);
}

function describe(error: ErrorObject): Document {
  const path = error.instancePath.split("/").slice(1).join(".");
  const rule: Document = {
    operatorName: error.keyword,
    specifiedAs: { [error.keyword]: error.schema },
    reason: error.message ?? "did not match",
  };
  if (error.keyword === "required") {
    rule.missingProperties = [(error.params as { missingProperty: string }).missingProperty];
  }
  if (path !== "") rule.propertyName = path;
  if (error.keyword !== "required") rule.consideredValue = error.data;
  return rule;
}
