import { apiError } from "../errors.ts";
import type { FieldKind } from "../model/define.ts";
import { msg, type Message } from "../i18n/message.ts";

/** A value a condition can compare with, after checking it against the field's kind. */
export type Scalar = string | number | boolean | Date;

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

const KIND_NAMES: Record<FieldKind, Message> = {
  string: msg("kind.string"),
  integer: msg("kind.integer"),
  number: msg("kind.number"),
  boolean: msg("kind.boolean"),
  date: msg("kind.date"),
  other: msg("kind.other"),
};

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function offsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone === "Z") return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return null;
  return (zone[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Parses an ISO 8601 date or date-time by its components, because `Date.parse` silently
 * rolls 2024-02-30 over into March and reads zone-less times in the server's local zone.
 * A date-time without a zone is taken as UTC, so results never depend on the host.
 * @example parseIsoDate("2024-01-31")?.toISOString()             // "2024-01-31T00:00:00.000Z"
 * @example parseIsoDate("2024-01-31T12:00:00+02:00")?.toISOString() // "2024-01-31T10:00:00.000Z"
 * @example parseIsoDate("2024-02-30")                            // null
 */
export function parseIsoDate(text: string): Date | null {
  const m = ISO_DATE.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  const offset = offsetMinutes(m[8]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offset === null) return null;
  const millis = Number((m[7] ?? "0").padEnd(3, "0").slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
  const date = new Date(utc);
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear restores what the client wrote.
  if (year < 100) date.setUTCFullYear(date.getUTCFullYear() - 1900);
  return Number.isNaN(date.getTime()) ? null : date;
}

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

function describe(value: unknown): Message {
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
    throw apiError("query.operandKind", { key, expected: KIND_NAMES[kind], got: describe(value) });
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
