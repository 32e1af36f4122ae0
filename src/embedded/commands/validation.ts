import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import type { CollectionOptions } from "../changes.ts";
import { CommandError } from "../errors.ts";
import { schemaRulesNotSatisfied } from "../query/json-schema.ts";
import { mingoQuery } from "../query/mingo.ts";
import type { Collation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import { valuesAt } from "../store/paths.ts";

const LEVELS = new Set(["off", "strict", "moderate"]);
const ACTIONS = new Set(["error", "warn"]);
/** Query operators MongoDB does not allow in a validator. */
const REFUSED_OPERATORS = new Set(["$near", "$nearSphere", "$text", "$where"]);

function refuseOperators(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(refuseOperators);
  if (!isPlainObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (REFUSED_OPERATORS.has(key)) {
      throw new CommandError("InvalidOptions", `${key} is not allowed in collection validators`);
    }
    if (key !== "$jsonSchema") refuseOperators(inner);
  }
}

/**
 * The validation settings of `create`/`collMod` applied over `current`: a `validator` (query
 * operators and `$jsonSchema`, compiled here so a bad one is refused at once), `validationLevel`
 * and `validationAction`. An empty validator removes validation.
 */
export function parseValidation(body: Document, current: CollectionOptions): CollectionOptions {
  const next: CollectionOptions = { ...current };
  if (body.validator !== undefined) {
    if (!isPlainObject(body.validator)) throw new CommandError("TypeMismatch", "'validator' must be an object");
    refuseOperators(body.validator);
    mingoQuery(body.validator);
    if (Object.keys(body.validator).length === 0) delete next.validator;
    else next.validator = body.validator;
  }
  if (body.validationLevel !== undefined) {
    if (!LEVELS.has(body.validationLevel)) {
      throw new CommandError("BadValue", "validationLevel must be one of off, strict, moderate");
    }
    next.validationLevel = body.validationLevel;
  }
  if (body.validationAction !== undefined) {
    if (!ACTIONS.has(body.validationAction)) {
      throw new CommandError("BadValue", "validationAction must be one of error, warn");
    }
    next.validationAction = body.validationAction;
  }
  return next;
}

/**
 * Throws MongoDB's DocumentValidationFailure (code 121, with `errInfo`) when `doc` breaks the
 * collection's validator and the settings say to refuse it. `previous` is the stored version
 * an update replaces: with validationLevel "moderate", a document that was already invalid may
 * go on being updated. `bypass` is the command's bypassDocumentValidation. With
 * validationAction "warn" the write goes through (MongoDB only logs it). Strings compare under
 * the collection's default collation, as in MongoDB.
 */
export function checkValid(coll: Collection, doc: Document, previous: Document | undefined, bypass: boolean): void {
  const { validator, validationLevel = "strict", validationAction = "error" } = coll.options;
  if (!validator || bypass || validationLevel === "off" || validationAction === "warn") return;
  const query = mingoQuery(validator, coll.collation);
  if (query.test(doc)) return;
  if (validationLevel === "moderate" && previous !== undefined && !query.test(previous)) return;
  throw new CommandError("DocumentValidationFailure", "Document failed validation", {
    errInfo: { failingDocumentId: doc._id, details: explainFailure(validator, doc, coll.collation) },
  });
}

/** Whether a document meets the collection's validator (always, without one or with validation off): what `validate` counts. */
export function compliance(coll: Collection): (doc: Document) => boolean {
  const { validator, validationLevel } = coll.options;
  if (!validator || validationLevel === "off") return () => true;
  const query = mingoQuery(validator, coll.collation);
  return (doc) => query.test(doc);
}

/** `details` of errInfo: the clauses of the validator the document does not satisfy. */
function explainFailure(validator: Document, doc: Document, collation: Collation | undefined): Document {
  const clauses = Object.entries(validator);
  const failing: Document[] = [];
  clauses.forEach(([field, condition], index) => {
    if (!mingoQuery({ [field]: condition }, collation).test(doc)) {
      failing.push({ index, details: clauseDetails(field, condition, doc) });
    }
  });
  if (clauses.length === 1 && failing.length === 1) return failing[0].details;
  return { operatorName: "$and", clausesNotSatisfied: failing };
}

function clauseDetails(field: string, condition: unknown, doc: Document): Document {
  if (field === "$jsonSchema") {
    const schema = condition as Document;
    const title = typeof schema.title === "string" ? { title: schema.title } : {};
    return { operatorName: "$jsonSchema", ...title, schemaRulesNotSatisfied: schemaRulesNotSatisfied(schema, doc) };
  }
  if (field.startsWith("$")) {
    return { operatorName: field, specifiedAs: { [field]: condition }, reason: "expression did not match" };
  }
  const operator = isPlainObject(condition) && Object.keys(condition)[0]?.startsWith("$")
    ? Object.keys(condition)[0]
    : "$eq";
  const values = valuesAt(doc, field).filter((v) => v !== undefined);
  const specifiedAs = { [field]: condition };
  if (values.length === 0) return { operatorName: operator, specifiedAs, reason: "field was missing" };
  return {
    operatorName: operator,
    specifiedAs,
    reason: "comparison failed",
    consideredValue: values.length === 1 ? values[0] : values,
  };
}

/** True when a command asks to skip validation. */
export function bypassValidation(body: Document): boolean {
  return body.bypassDocumentValidation === true;
}
