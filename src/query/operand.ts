import { apiError } from "../errors.ts";
import type { FieldKind } from "../model/define.ts";
import { parseIsoDate } from "../model/dates.ts";
import { type Message, msg } from "../i18n/message.ts";

/** A value a condition can compare with, after checking it against the field's kind. */
export type Scalar = string | number | boolean | Date;

const KIND_NAMES: Record<FieldKind, Message> = {
  string: msg("kind.string"),
  integer: msg("kind.integer"),
  number: msg("kind.number"),
  boolean: msg("kind.boolean"),
  date: msg("kind.date"),
  other: msg("kind.other"),
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
      return typeof value === "string" || typeof value === "boolean" ||
          (typeof value === "number" && Number.isFinite(value))
        ? value
        : undefined;
  }
}

/** A date operand that is a string the server cannot read: it is named, and an impossible day said so. */
function describeDate(value: string): Message {
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return /^\d{4}-\d{2}-\d{2}/.test(value)
    ? msg("value.impossibleDate", { value: shown })
    : msg("value.unreadableDate", { value: shown });
}

function describe(value: unknown, kind?: FieldKind): Message {
  if (kind === "date" && typeof value === "string") return describeDate(value);
  if (value === null) return msg("value.null");
  if (Array.isArray(value)) return msg("value.array");
  if (typeof value === "object") return msg("value.object");
  if (typeof value === "string") return msg("value.string");
  return msg(typeof value === "number" ? "value.number" : "value.boolean");
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
    throw apiError("query.operandKind", { key, expected: KIND_NAMES[kind], got: describe(value, kind) });
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
    const shape = msg(bounds.arity === 2 ? "kind.pair" : "kind.array");
    throw apiError("query.operandKind", { key, expected: shape, got: describe(value) });
  }
  if (bounds.arity !== undefined && value.length !== bounds.arity) {
    throw apiError("query.operandArity", { key, arity: bounds.arity, count: value.length });
  }
  if (bounds.max !== undefined && value.length > bounds.max) {
    throw apiError("query.listTooLong", { key, count: value.length, max: bounds.max });
  }
  return value.map((item, i) => scalarOperand(item, kind, `${key}[${i}]`));
}
