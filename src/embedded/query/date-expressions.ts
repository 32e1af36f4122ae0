import type { ObjectId, Timestamp } from "bson";
import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { bsonTag, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { type Expression, isNil } from "./expression-arguments.ts";
import { checkTimezone, type LocalFields, localFields } from "./calendar.ts";

/**
 * Date fields and formatting computed with MongoDB's calendar (calendar.ts). mingo's went
 * wrong on ordinary dates: `$week` of Sunday 3 January 2021 was 54 (MongoDB: 1),
 * `$isoWeekYear` of a date in the previous ISO year gave the calendar year, and
 * `$dateToString` had no `%%` and gave `%U`, `%w` and `%G` wrong. Arithmetic and truncation
 * are in date-arithmetic.ts, parsing and building dates in date-parsing.ts.
 */

const mingo = mingoExpressions as unknown as Record<string, Expression>;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A date operand as milliseconds: a Date, an ObjectId (its creation time) or a Timestamp. */
export function instantOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  const tag = bsonTag(v);
  if (tag === "ObjectId") return (v as ObjectId).getTimestamp().getTime();
  if (tag === "Timestamp") return (v as Timestamp).high * 1000;
  throw new CommandError("Location16006", `can't convert from BSON type ${bsonTypeOf(v)} to Date`);
}

/** The date and timezone of a `$year`-style argument: a date, `[date]` or `{date, timezone}`. */
function dateArgument(obj: unknown, expr: unknown, options: Options): { date: unknown; timezone?: string } {
  if (isPlainObject(expr) && "date" in expr) {
    const timezone = checkTimezone(evalExpr(obj, expr.timezone, options));
    return { date: evalExpr(obj, expr.date, options), timezone };
  }
  return { date: evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options) };
}

/** A `$year`-style expression: one calendar field of the date in its timezone; null for null. */
function calendarField(pick: (fields: LocalFields) => number): Expression {
  return (obj, expr, options) => {
    const { date, timezone } = dateArgument(obj, expr, options);
    return isNil(date) ? null : pick(localFields(instantOf(date), timezone));
  };
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

function signed(minutes: number, separate: boolean): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return separate ? `${sign}${pad(Math.floor(abs / 60), 2)}${pad(abs % 60, 2)}` : `${sign}${abs}`;
}

const SPECIFIERS: Readonly<Record<string, (f: LocalFields) => string>> = {
  b: (f) => MONTHS[f.month - 1].slice(0, 3),
  B: (f) => MONTHS[f.month - 1],
  d: (f) => pad(f.day, 2),
  G: (f) => pad(f.isoWeekYear, 4),
  H: (f) => pad(f.hour, 2),
  j: (f) => pad(f.dayOfYear, 3),
  L: (f) => pad(f.millisecond, 3),
  m: (f) => pad(f.month, 2),
  M: (f) => pad(f.minute, 2),
  S: (f) => pad(f.second, 2),
  u: (f) => String(f.isoDayOfWeek),
  U: (f) => pad(f.week, 2),
  V: (f) => pad(f.isoWeek, 2),
  w: (f) => String(f.dayOfWeek),
  Y: (f) => pad(f.year, 4),
  z: (f) => signed(f.offset, true),
  Z: (f) => signed(f.offset, false),
  "%": () => "%",
};

/** A date formatted as `$dateToString`'s `format` says, in a timezone. */
function formatDate(instant: number, format: string, timezone: string | undefined): string {
  const fields = localFields(instant, timezone);
  let out = "";
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== "%") {
      out += format[i];
      continue;
    }
    if (i + 1 === format.length) throw new CommandError("Location18535", "Unmatched '%' at end of format string");
    const specifier = SPECIFIERS[format[++i]];
    if (specifier === undefined) {
      throw new CommandError("Location18536", `Invalid format character '%${format[i]}' in format string`);
    }
    if ("GYj".includes(format[i]) && (fields.year < 0 || fields.year > 9999)) {
      throw new CommandError(
        "Location18537",
        "Could not convert date to string: date component was outside the supported range of 0-9999",
      );
    }
    out += specifier(fields);
  }
  return out;
}

/** Fails on a field a `{…}` argument does not take, as MongoDB does. */
export function onlyFields(
  name: string,
  expr: Record<string, unknown>,
  allowed: readonly string[],
  code: "Location18534" | "Location40518" | "Location5166401",
): void {
  const unknown = Object.keys(expr).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw new CommandError(code, `Unrecognized parameter to ${name}: ${unknown}`);
}

const $dateToString: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr)) {
    throw new CommandError("Location18629", "$dateToString only supports an object as its argument");
  }
  onlyFields("$dateToString", expr, ["date", "format", "timezone", "onNull"], "Location18534");
  if (!("date" in expr)) throw new CommandError("Location18628", "Missing 'date' parameter to $dateToString");
  const timezone = checkTimezone(evalExpr(obj, expr.timezone, options));
  const date = evalExpr(obj, expr.date, options);
  const format = "format" in expr
    ? evalExpr(obj, expr.format, options)
    : timezone === undefined
    ? "%Y-%m-%dT%H:%M:%S.%LZ"
    : "%Y-%m-%dT%H:%M:%S.%L";
  if (isNil(date)) return "onNull" in expr ? evalExpr(obj, expr.onNull, options) : null;
  if (isNil(format)) return null;
  if (typeof format !== "string") {
    throw new CommandError(
      "Location18533",
      `$dateToString requires that 'format' be a string, found: ${bsonTypeOf(format)}`,
    );
  }
  return formatDate(instantOf(date), format, timezone);
};

const $dateToParts: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr) || !("date" in expr)) return mingo.$dateToParts(obj, expr, options);
  onlyFields("$dateToParts", expr, ["date", "timezone", "iso8601"], "Location40518");
  const timezone = checkTimezone(evalExpr(obj, expr.timezone, options));
  const date = evalExpr(obj, expr.date, options);
  const iso = "iso8601" in expr ? evalExpr(obj, expr.iso8601, options) : false;
  if (isNil(date)) return null;
  if (typeof iso !== "boolean") throw new CommandError("Location40521", "iso8601 must evaluate to a bool");
  const f = localFields(instantOf(date), timezone);
  const time = { hour: f.hour, minute: f.minute, second: f.second, millisecond: f.millisecond };
  return iso
    ? { isoWeekYear: f.isoWeekYear, isoWeek: f.isoWeek, isoDayOfWeek: f.isoDayOfWeek, ...time }
    : { year: f.year, month: f.month, day: f.day, ...time };
};

/** The expressions, to register in mingo's context over its own. */
export const dateExpressions: Record<string, Expression> = {
  $year: calendarField((f) => f.year),
  $month: calendarField((f) => f.month),
  $dayOfMonth: calendarField((f) => f.day),
  $hour: calendarField((f) => f.hour),
  $minute: calendarField((f) => f.minute),
  $second: calendarField((f) => f.second),
  $millisecond: calendarField((f) => f.millisecond),
  $dayOfWeek: calendarField((f) => f.dayOfWeek),
  $dayOfYear: calendarField((f) => f.dayOfYear),
  $week: calendarField((f) => f.week),
  $isoDayOfWeek: calendarField((f) => f.isoDayOfWeek),
  $isoWeek: calendarField((f) => f.isoWeek),
  $isoWeekYear: calendarField((f) => f.isoWeekYear),
  $dateToString,
  $dateToParts,
};
