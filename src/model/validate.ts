import type { StructError } from "superstruct";
import { CatalogValidationError, type FieldMessages } from "../errors.ts";
import { type Message, msg } from "../i18n/message.ts";
import type { MessageKey } from "../i18n/catalog-en.ts";
import { parseIsoDate } from "./dates.ts";
import { type AnyStruct, type FieldKind, fieldKind, maxStringLength, type Model, READ_ONLY_FIELDS } from "./define.ts";
import { valueShapeProblem } from "./shape.ts";

const TYPE_MESSAGES: Record<string, MessageKey> = {
  string: "validation.string",
  integer: "validation.integer",
  number: "validation.number",
  boolean: "validation.boolean",
  date: "validation.date",
  array: "validation.array",
  object: "validation.object",
};

const REFINEMENT_MESSAGES: Record<string, MessageKey> = {
  email: "validation.email",
  nonempty: "validation.nonempty",
};

/** The struct that checks the value at `path` inside a field (objects' keys, arrays' items), if it can be told. */
function structAt(struct: AnyStruct, path: readonly unknown[]): AnyStruct | undefined {
  let current: AnyStruct | undefined = struct;
  for (const key of path) {
    const schema = current?.schema as Record<string, AnyStruct> | AnyStruct | null | undefined;
    if (current?.type === "array") current = schema as AnyStruct | undefined;
    else if (current?.type === "object" || current?.type === "type") {
      current = (schema as Record<string, AnyStruct> | undefined)?.[String(key)];
    } else return undefined;
  }
  return current;
}

/** An enums() failure, naming the values it allows (as JSON writes them: `novel, poetry`). */
function enumMessage(field: string, struct: AnyStruct, path: readonly unknown[]): Message {
  const inner = structAt(struct, path);
  const values = inner?.type === "enums" ? Object.values(inner.schema as Record<string, unknown>) : [];
  const allowed = values.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join(", ");
  return msg("validation.enum", { field, allowed });
}

function failureMessage(field: string, struct: AnyStruct, error: StructError): Message {
  const failure = error.failures()[0] ?? error;
  const refined = failure.refinement ? REFINEMENT_MESSAGES[failure.refinement] : undefined;
  const typed = failure.refinement ? undefined : TYPE_MESSAGES[failure.type];
  if (refined ?? typed) return msg((refined ?? typed)!, { field });
  if (failure.type === "enums") return enumMessage(field, struct, failure.path);
  return msg("validation.invalid", { field, reason: failure.message });
}

/** The BSON type (a `$type` alias) each known kind is stored as. */
const STORED_TYPE: Partial<Record<FieldKind, string>> = {
  string: "string",
  integer: "number",
  number: "number",
  boolean: "bool",
  date: "date",
};

/**
 * The partial filter of a unique field's index, so that records without a value never collide,
 * as NULLs do not in SQL: a field that may be left out is indexed only where it exists, one
 * that may be null only where it holds its stored type. Undefined when every record has a value.
 * @example uniqueIndexFilter(User, "phone") // { phone: { $exists: true } } for optional(string())
 */
export function uniqueIndexFilter(model: Model, field: string): Record<string, unknown> | undefined {
  const struct = model.fields[field];
  const [nullRefused, nullStored] = struct.validate(null, { coerce: true });
  const type = STORED_TYPE[fieldKind(struct)];
  if (!nullRefused && nullStored === null && type !== undefined) return { [field]: { $type: type } };
  return requiredFields(model).has(field) ? undefined : { [field]: { $exists: true } };
}

const requiredCache = new WeakMap<Model, ReadonlySet<string>>();

/** Fields that must be present on create: those whose struct refuses `undefined` (defaults count as present). */
export function requiredFields(model: Model): ReadonlySet<string> {
  let required = requiredCache.get(model);
  if (!required) {
    const refusesUndefined = ([, struct]: [string, AnyStruct]) => struct.validate(undefined, { coerce: true })[0];
    required = new Set(Object.entries(model.fields).filter(refusesUndefined).map(([field]) => field));
    requiredCache.set(model, required);
  }
  return required;
}

const clearableCache = new WeakMap<Model, ReadonlySet<string>>();

/**
 * Optional fields without a default whose struct refuses null. A response shows such a field's
 * absence as null, so a body's null means "no value": left out on create and PUT, removed by
 * PATCH. What GET returned can then be sent back as it is.
 */
export function clearableFields(model: Model): ReadonlySet<string> {
  let clearable = clearableCache.get(model);
  if (!clearable) {
    const fits = ([, struct]: [string, AnyStruct]) => {
      const [missingRefused, missingStored] = struct.validate(undefined, { coerce: true });
      return !missingRefused && missingStored === undefined && struct.validate(null, { coerce: true })[0] !== undefined;
    };
    clearable = new Set(Object.entries(model.fields).filter(fits).map(([field]) => field));
    clearableCache.set(model, clearable);
  }
  return clearable;
}

/**
 * Most field messages one `{errors}` body lists. Past it the body says only that more were left
 * out (under the key `*`, which no field can have), and the rest of the body is not examined:
 * the cost of a bad body is bounded by this number, not by how many keys it sends.
 */
export const MAX_FIELD_MESSAGES = 100;

/** The problems found so far, up to {@link MAX_FIELD_MESSAGES}. */
class Problems {
  readonly messages: FieldMessages = Object.create(null);
  #count = 0;
  #overflowed = false;

  /** False once the list is full: the caller stops looking. */
  get open(): boolean {
    return !this.#overflowed;
  }

  add(field: string, message: Message): void {
    if (this.#count === MAX_FIELD_MESSAGES) {
      this.#overflowed = true;
      return;
    }
    this.#count++;
    (this.messages[field] ??= []).push(message);
  }

  /** Throws every problem found, if any. */
  throwAny(): void {
    if (this.#count === 0) return;
    const messages = { ...this.messages };
    if (this.#overflowed) messages["*"] = [msg("validation.more", { max: MAX_FIELD_MESSAGES })];
    throw new CatalogValidationError(messages);
  }
}

function checkUnknown(model: Model, body: Record<string, unknown>, problems: Problems): void {
  for (const key in body) {
    if (!problems.open) return;
    if (!Object.hasOwn(body, key)) continue;
    if (READ_ONLY_FIELDS.has(key)) problems.add(key, msg("validation.readOnly", { field: key }));
    else if (!Object.hasOwn(model.fields, key)) problems.add(key, msg("validation.notAllowed", { field: key }));
  }
}

/** JSON has no dates: a date field takes an ISO 8601 string, stored as a BSON Date. */
function fromJson(model: Model, field: string, value: unknown): unknown {
  if (model.kinds.get(field) !== "date" || typeof value !== "string") return value;
  return parseIsoDate(value) ?? value;
}

/** The stored value, after superstruct's coercions (defaults included), or undefined with an error recorded. */
function checkValue(model: Model, field: string, value: unknown, problems: Problems): unknown {
  const problem = value === undefined ? null : valueShapeProblem(value, maxStringLength(model, field));
  if (problem) return problems.add(field, msg("validation.shape", { field, problem }));
  const [error, coerced] = runStruct(model.fields[field], fromJson(model, field, value));
  if (error) {
    return problems.add(
      field,
      error instanceof Error
        ? failureMessage(field, model.fields[field], error)
        : msg("validation.unprintable", { field }),
    );
  }
  return coerced;
}

/**
 * superstruct prints a failing value with a template literal, which throws a TypeError for a
 * JSON object such as `{"toString": 1}` (no callable toString or valueOf). The value failed
 * either way: it is reported as invalid instead of escaping as a 500.
 */
function runStruct(struct: AnyStruct, value: unknown): [StructError | "unprintable" | undefined, unknown] {
  try {
    return struct.validate(value, { coerce: true });
  } catch (error) {
    if (error instanceof TypeError && value !== null && typeof value === "object") return ["unprintable", undefined];
    throw error;
  }
}

/**
 * Validates a body against the model and returns only the model's fields, as they will be
 * stored. `partial` checks just the fields sent (PATCH); otherwise every required field must be
 * present and defaults are filled in (POST, PUT). A null for a {@link clearableFields} field is
 * no value. All problems are thrown together.
 */
export function validateBody(model: Model, body: Record<string, unknown>, partial = false): Record<string, unknown> {
  const problems = new Problems();
  const clean: Record<string, unknown> = {};
  checkUnknown(model, body, problems);
  const required = requiredFields(model);
  const clearable = clearableFields(model);
  for (const field of Object.keys(model.fields)) {
    if (!problems.open) break;
    let value = Object.hasOwn(body, field) ? body[field] : undefined;
    if (value === null && clearable.has(field)) value = undefined;
    if (value === undefined && (partial || required.has(field))) {
      if (!partial) problems.add(field, msg("validation.required", { field }));
      continue;
    }
    const stored = checkValue(model, field, value, problems);
    if (stored !== undefined) clean[field] = stored;
  }
  problems.throwAny();
  return clean;
}
