import type { Document } from "bson";
import AjvDraft04 from "ajv-draft-04";
import type { ErrorObject, ValidateFunction } from "ajv";
import { isPlainObject } from "../bson.ts";
import { bsonTypeOf, parseTypeSet } from "./bson-types.ts";
import { CommandError } from "../errors.ts";
import { unaliasValue } from "../field-names.ts";

/** JSON Schema keywords MongoDB's `$jsonSchema` refuses (it has no references, formats or defaults). */
const REFUSED_KEYWORDS = new Set(["$ref", "$schema", "default", "definitions", "format", "id"]);

// The package is CommonJS: its class is the module itself and also its `default` (what the types describe).
// `ownProperties`: a property is present only when the document owns it (`required: ["constructor"]`
// is not met by every document's inherited `constructor`).
const ajv = new AjvDraft04.default({
  allErrors: true,
  verbose: true,
  strict: false,
  validateSchema: true,
  ownProperties: true,
});
ajv.addKeyword({
  keyword: "bsonType",
  schemaType: ["string", "array"],
  // MongoDB's aliases ("number" included; numeric codes are not allowed here), checked when the
  // schema is compiled, so an unknown alias is refused instead of matching nothing.
  compile: (types: string | string[]) => {
    if ((Array.isArray(types) ? types : [types]).some((t) => typeof t !== "string")) {
      throw new CommandError("TypeMismatch", "$jsonSchema keyword 'bsonType' must be a string or an array of strings");
    }
    const allowed = parseTypeSet(types);
    return (value: unknown) => allowed.has(bsonTypeOf(value));
  },
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
    if (error instanceof CommandError) throw error;
    throw new CommandError(
      "FailedToParse",
      `invalid $jsonSchema: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  compiled.set(schema, validate);
  return validate;
}

/**
 * mingo's hook for `$jsonSchema`: a predicate per schema. The schema is the client's, so the
 * document is checked as the client spells it (mingo is given `constructor` and the like renamed,
 * see aliases.ts).
 */
export function jsonSchemaPredicate(schema: Document): (doc: Document) => boolean {
  const validate = compileJsonSchema(schema);
  return (doc) => validate(unaliasValue(doc)) === true;
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
