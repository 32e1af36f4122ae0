import type { Struct, StructError } from "superstruct";
import { ValidationError, type FieldErrors } from "../errors.ts";
import type { Model } from "./define.ts";

/** Names a client can never write: the framework sets them. */
const READ_ONLY = new Set(["id", "_id", "created_at", "updated_at", "deleted_at"]);

const TYPE_MESSAGES: Record<string, string> = {
  string: "must be a string.",
  integer: "must be an integer.",
  number: "must be a number.",
  boolean: "must be true or false.",
  date: "must be a date.",
  array: "must be an array.",
  object: "must be an object.",
};

const REFINEMENT_MESSAGES: Record<string, string> = {
  email: "must be a valid email address.",
  nonempty: "must not be empty.",
};

function failureMessage(field: string, error: StructError): string {
  const failure = error.failures()[0] ?? error;
  const refined = failure.refinement ? REFINEMENT_MESSAGES[failure.refinement] : undefined;
  const typed = failure.refinement ? undefined : TYPE_MESSAGES[failure.type];
  if (refined ?? typed) return `The ${field} field ${refined ?? typed}`;
  if (failure.type === "enums") return `The ${field} field is not one of the allowed values.`;
  return `The ${field} field is invalid: ${failure.message}.`;
}

const requiredCache = new WeakMap<Model, ReadonlySet<string>>();

/** Fields that must be present on create: those whose struct refuses `undefined`. */
export function requiredFields(model: Model): ReadonlySet<string> {
  let required = requiredCache.get(model);
  if (!required) {
    required = new Set(Object.entries(model.fields).filter(([, s]) => s.validate(undefined)[0]).map(([f]) => f));
    requiredCache.set(model, required);
  }
  return required;
}

function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function checkUnknown(model: Model, body: Record<string, unknown>, errors: FieldErrors): void {
  for (const key of Object.keys(body)) {
    if (READ_ONLY.has(key)) addError(errors, key, `The ${key} field is read-only.`);
    else if (!Object.hasOwn(model.fields, key)) addError(errors, key, `The ${key} field is not allowed.`);
  }
}

function checkValue(field: string, struct: Struct<any, any>, value: unknown, errors: FieldErrors): void {
  const [error] = struct.validate(value);
  if (error) addError(errors, field, failureMessage(field, error));
}

/**
 * Validates a body against the model and returns only the model's fields. `partial` checks
 * just the fields sent (PATCH); otherwise every required field must be present (POST, PUT).
 * All problems are collected and thrown together as one ValidationError.
 */
export function validateBody(model: Model, body: Record<string, unknown>, partial = false): Record<string, unknown> {
  const errors: FieldErrors = {};
  const clean: Record<string, unknown> = {};
  checkUnknown(model, body, errors);
  const required = requiredFields(model);
  for (const [field, struct] of Object.entries(model.fields)) {
    const value = body[field];
    if (value === undefined) {
      if (!partial && required.has(field)) addError(errors, field, `The ${field} field is required.`);
      continue;
    }
    checkValue(field, struct, value, errors);
    clean[field] = value;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return clean;
}
