import { ApiError } from "../errors.ts";
import type { FieldKind } from "../model/define.ts";
import { parseIsoDate } from "../model/dates.ts";

/** A value a condition can compare with, after checking it against the field's kind. */
export type Scalar = string | number | boolean | Date;

const KIND_NAMES: Record<FieldKind, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  date: "an ISO 8601 date string such as 2024-01-31 or 2024-01-31T12:00:00Z",
  other: "a string, number or boolean",
};

function fits(value: unknown, kind: FieldKind): Scalar | undefined {
  switch (kind) {
    case "string":
      return typeof value === "string" ? value : undefined;
    case "integer":
      return Number.isSafeInteger(value) ? (value as number) : undefined;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? value : undefined;
    case "boolean":
      return typeof value === "boolean" ? value : undefined;
    case "date":
      return typeof value === "string" ? (parseIsoDate(value) ?? undefined) : undefined;
    default:
      return typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))
        ? value
        : undefined;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  return typeof value === "number" ? "a number" : "a boolean";
}

/**
 * Checks one operand against the kind of the field it is compared with and returns the value
 * to store in the filter (ISO strings become Dates for date fields). Objects and arrays are
 * never scalars, so no operand can smuggle a MongoDB operator document into the filter.
 * @example scalarOperand(18, "integer", "age.$gt")          // 18
 * @example scalarOperand("18", "integer", "age.$gt")        // throws 400: expected an integer, got a string
 * @example scalarOperand("2024-01-31", "date", "created_at") // Date 2024-01-31T00:00:00Z
 */
export function scalarOperand(value: unknown, kind: FieldKind, key: string): Scalar {
  const scalar = fits(value, kind);
  if (scalar === undefined) {
    throw new ApiError(`Invalid value for "${key}" in q: expected ${KIND_NAMES[kind]}, got ${describe(value)}`, 400);
  }
  return scalar;
}

/**
 * Checks a list operand (`$in`, `$between`, …): an array of scalars of the field's kind.
 * `arity` demands an exact length; `max` caps the length otherwise.
 * @example listOperand([1, 2], "integer", "id.$between", { arity: 2 }) // [1, 2]
 * @example listOperand([1, 2, 3], "integer", "id.$between", { arity: 2 }) // throws 400
 */
export function listOperand(
  value: unknown,
  kind: FieldKind,
  key: string,
  bounds: { arity?: number; max?: number },
): Scalar[] {
  if (!Array.isArray(value)) {
    const shape = bounds.arity === 2 ? "a [low, high] array" : "an array";
    throw new ApiError(`Invalid value for "${key}" in q: expected ${shape}, got ${describe(value)}`, 400);
  }
  if (bounds.arity !== undefined && value.length !== bounds.arity) {
    throw new ApiError(`Invalid value for "${key}" in q: expected exactly ${bounds.arity} values, got ${value.length}`, 400);
  }
  if (bounds.max !== undefined && value.length > bounds.max) {
    throw new ApiError(`The list of "${key}" in q has ${value.length} values, more than the limit of ${bounds.max}`, 400);
  }
  return value.map((item, i) => scalarOperand(item, kind, `${key}[${i}]`));
}
