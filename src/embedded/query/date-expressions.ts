import type { ObjectId, Timestamp } from "bson";
import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { bsonTag, isPlainObject, toNumber } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { type Expression, isNil } from "./expression-arguments.ts";
import {
  checkTimezone,
  instantOfWallClock,
  isoYearStart,
  type LocalFields,
  localFields,
  wallClock,
} from "./calendar.ts";
import { numberKind, truncatedInteger } from "./number-arithmetic.ts";

/**
 * Date expressions computed with MongoDB's calendar (calendar.ts). mingo's went wrong on
 * ordinary dates: `$week` of Sunday 3 January 2021 was 54 (MongoDB: 1), `$isoWeekYear` of a
 * date in the previous ISO year gave the calendar year, `$dateToString` had no `%%` and gave
 * `%U`, `%w` and `%G` wrong, `$dateAdd` of a month to 31 January overflowed into March
 * (MongoDB stops at the month's last day) and ignored daylight saving for days, and
 * `$dateFromParts` with ISO fields gave the year 9999, `$dateFromString` returned nothing
 * for "2017-02-08T12:10:40+05:30", and `$dateTrunc` at a half-hour offset went to the wrong
 * day or hour.
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
function instantOf(v: unknown): number {
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
function onlyFields(
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

const FIXED_UNITS: Readonly<Record<string, number>> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000 };
const DAY_UNITS: Readonly<Record<string, number>> = { day: 1, week: 7 };
const MONTH_UNITS: Readonly<Record<string, number>> = { month: 1, quarter: 3, year: 12 };

/** `start` moved by `amount` units: fixed units as durations, days and months on the local calendar. */
function addToDate(start: number, unit: string, amount: number, timezone: string | undefined): number {
  if (unit in FIXED_UNITS) return start + amount * FIXED_UNITS[unit];
  if (unit in DAY_UNITS) {
    return instantOfWallClock(wallClock(start, timezone) + amount * DAY_UNITS[unit] * 86_400_000, timezone);
  }
  const local = new Date(wallClock(start, timezone));
  const months = local.getUTCFullYear() * 12 + local.getUTCMonth() + amount * MONTH_UNITS[unit];
  const year = Math.floor(months / 12);
  const month = months - year * 12;
  const target = new Date(local.getTime());
  target.setUTCFullYear(year, month, 1);
  const lastDay = new Date(target.getTime());
  lastDay.setUTCFullYear(year, month + 1, 0);
  target.setUTCDate(Math.min(local.getUTCDate(), lastDay.getUTCDate()));
  return instantOfWallClock(target.getTime(), timezone);
}

function dateArithmetic(name: "$dateAdd" | "$dateSubtract", sign: 1 | -1): Expression {
  return (obj, expr, options) => {
    if (!isPlainObject(expr)) return mingo[name](obj, expr, options);
    onlyFields(name, expr, ["startDate", "unit", "amount", "timezone"], "Location5166401");
    for (const required of ["startDate", "unit", "amount"]) {
      if (!(required in expr)) {
        throw new CommandError("Location5166402", `${name} requires '${required}' to be present`);
      }
    }
    const timezone = checkTimezone(evalExpr(obj, expr.timezone, options));
    const [start, unit, amount] = ["startDate", "unit", "amount"].map((k) => evalExpr(obj, expr[k], options));
    if (isNil(start) || isNil(unit) || isNil(amount)) return null;
    if (typeof unit !== "string" || !(unit in FIXED_UNITS || unit in DAY_UNITS || unit in MONTH_UNITS)) {
      throw new CommandError(
        "FailedToParse",
        `${name} parameter 'unit' value parsing failed :: caused by :: unknown time unit value: ${String(unit)}`,
      );
    }
    const whole = numberKind(amount) === undefined ? undefined : truncatedInteger(amount);
    if (whole === undefined || Number(whole) !== toNumber(amount)) {
      throw new CommandError(
        "Location5166405",
        `${name} expects integer amount of time units, found: ${String(amount)}`,
      );
    }
    return new Date(addToDate(instantOf(start), unit, sign * Number(whole), timezone));
  };
}

const ISO_PARTS = ["isoWeekYear", "isoWeek", "isoDayOfWeek", "hour", "minute", "second", "millisecond", "timezone"];

/** `$dateFromParts` with ISO week fields computed here (mingo's gave the year 9999); calendar ones are mingo's. */
const $dateFromParts: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr) || !("isoWeekYear" in expr)) return mingo.$dateFromParts(obj, expr, options);
  onlyFields("$dateFromParts", expr, ISO_PARTS, "Location40518");
  const timezone = checkTimezone(evalExpr(obj, expr.timezone, options));
  const defaults: Record<string, number> = { isoWeek: 1, isoDayOfWeek: 1 };
  const parts: Record<string, number> = {};
  for (const part of ISO_PARTS.slice(0, -1)) {
    const value = part in expr ? evalExpr(obj, expr[part], options) : defaults[part] ?? 0;
    if (isNil(value)) return null;
    if (numberKind(value) === undefined || !Number.isInteger(toNumber(value))) {
      throw new CommandError("Location40515", `'${part}' must evaluate to an integer, found ${bsonTypeOf(value)}`);
    }
    parts[part] = toNumber(value);
  }
  const days = (parts.isoWeek - 1) * 7 + (parts.isoDayOfWeek - 1);
  const time = ((parts.hour * 60 + parts.minute) * 60 + parts.second) * 1000 + parts.millisecond;
  return new Date(instantOfWallClock(isoYearStart(parts.isoWeekYear) + days * 86_400_000 + time, timezone));
};

const TRUNC_FIXED: Readonly<Record<string, number>> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
/** MongoDB's reference point for bins: 2000-01-01T00:00 on the local clock. */
const REFERENCE = Date.UTC(2000, 0, 1);

/** The day of the week `startOfWeek` names (0 = Sunday), full or in three letters, any case. */
function weekdayOf(startOfWeek: unknown): number {
  if (typeof startOfWeek !== "string") {
    throw new CommandError(
      "Location5439015",
      `$dateTrunc requires 'startOfWeek' to be a string, but got ${bsonTypeOf(startOfWeek)}`,
    );
  }
  const name = startOfWeek.toLowerCase();
  const day = WEEKDAYS.findIndex((d) => d === name || d.slice(0, 3) === name);
  if (day < 0) {
    throw new CommandError(
      "Location5439016",
      `$dateTrunc parameter 'startOfWeek' value cannot be recognized as a day of a week: ${startOfWeek}`,
    );
  }
  return day;
}

/**
 * The start of the bin of `binSize` units that holds `instant`, on the timezone's clock. Bins
 * count from 2000-01-01 (weeks from the first `startOfWeek` day on or after it), as MongoDB's do.
 */
function truncateDate(
  instant: number,
  unit: string,
  binSize: number,
  timezone: string | undefined,
  weekStart: number,
): number {
  const wall = wallClock(instant, timezone);
  if (unit in TRUNC_FIXED) {
    const reference = unit === "week"
      ? REFERENCE + ((weekStart - new Date(REFERENCE).getUTCDay() + 7) % 7) * 86_400_000
      : REFERENCE;
    const bin = binSize * TRUNC_FIXED[unit];
    return instantOfWallClock(reference + Math.floor((wall - reference) / bin) * bin, timezone);
  }
  const local = new Date(wall);
  const months = (local.getUTCFullYear() - 2000) * 12 + local.getUTCMonth();
  const bin = binSize * MONTH_UNITS[unit];
  const start = Math.floor(months / bin) * bin;
  const first = new Date(REFERENCE);
  first.setUTCFullYear(2000 + Math.floor(start / 12), start - Math.floor(start / 12) * 12, 1);
  return instantOfWallClock(first.getTime(), timezone);
}

const TRUNC_FIELDS = ["date", "unit", "binSize", "timezone", "startOfWeek"];

/**
 * `$dateTrunc`, on the timezone's clock. mingo's truncated in whole hours of offset, so at
 * "Asia/Kolkata" (+05:30) a day went back to the previous one and an hour to the wrong half.
 */
const $dateTrunc: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr)) {
    throw new CommandError("Location5439007", "$dateTrunc only supports an object as its argument");
  }
  const unknown = Object.keys(expr).find((k) => !TRUNC_FIELDS.includes(k));
  if (unknown !== undefined) {
    throw new CommandError("Location5439008", `Unrecognized argument to $dateTrunc: ${unknown}`);
  }
  if (!("date" in expr)) throw new CommandError("Location5439009", "Missing 'date' parameter to $dateTrunc");
  if (!("unit" in expr)) throw new CommandError("Location5439010", "Missing 'unit' parameter to $dateTrunc");
  const [date, unit, binSize = 1, timezone, startOfWeek = "sunday"] = TRUNC_FIELDS.map((k) =>
    k in expr ? evalExpr(obj, expr[k], options) : undefined
  );
  const weekly = unit === "week";
  if (
    [date, unit, binSize].some(isNil) || ("timezone" in expr && isNil(timezone)) ||
    (weekly && "startOfWeek" in expr && isNil(startOfWeek))
  ) {
    return null;
  }
  const instant = date instanceof Date || bsonTag(date) === "ObjectId" || bsonTag(date) === "Timestamp"
    ? instantOf(date)
    : undefined;
  if (instant === undefined) {
    throw new CommandError("Location5439012", `$dateTrunc requires 'date' to be a date, but got ${bsonTypeOf(date)}`);
  }
  if (typeof unit !== "string") {
    throw new CommandError("Location5439013", `$dateTrunc requires 'unit' to be a string, but got ${bsonTypeOf(unit)}`);
  }
  if (!(unit in TRUNC_FIXED || unit in MONTH_UNITS)) {
    throw new CommandError(
      "Location5439014",
      `$dateTrunc parameter 'unit' value cannot be recognized as a time unit: ${unit}`,
    );
  }
  const whole = numberKind(binSize) === undefined ? undefined : truncatedInteger(binSize);
  if (whole === undefined || Number(whole) !== toNumber(binSize)) {
    throw new CommandError(
      "Location5439017",
      `$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '${String(binSize)}' of type ${
        bsonTypeOf(binSize)
      }`,
    );
  }
  if (whole <= 0n) {
    throw new CommandError(
      "Location5439018",
      `$dateTrunc requires 'binSize' to be greater than 0, but got value ${whole}`,
    );
  }
  const zone = checkTimezone(timezone);
  return new Date(truncateDate(instant, unit, Number(whole), zone, weekly ? weekdayOf(startOfWeek) : 0));
};

/** An ISO 8601 date, with an optional time (after "T" or a space) and an optional offset. */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function parseFailure(text: string, why: string): CommandError {
  return new CommandError("ConversionFailure", `Error parsing date string '${text}'; ${why}`);
}

/** An ISO 8601 date string as an instant; undefined for any other shape (left to mingo's parser). */
function parseIsoDate(text: string, timezone: string | undefined): number | undefined {
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((p) => Number(p ?? 0));
  const millisecond = Number((match[7] ?? "0").padEnd(3, "0"));
  const wall = new Date(Date.UTC(2000, 0, 1, hour, minute, second, millisecond));
  wall.setUTCFullYear(year, month - 1, day);
  if (month < 1 || month > 12 || wall.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw parseFailure(text, "a date or time field is out of range");
  }
  const offset = match[8];
  if (offset === undefined) return instantOfWallClock(wall.getTime(), timezone);
  if (timezone !== undefined) {
    throw new CommandError(
      "Location40554",
      "you cannot pass in a date/time string with GMT offset together with a timezone argument",
    );
  }
  if (offset === "Z") return wall.getTime();
  const [, sign, hours, minutes = "0"] = /^([+-])(\d{2}):?(\d{2})?$/.exec(offset)!;
  return wall.getTime() - (sign === "-" ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * 60_000;
}

/**
 * `$dateFromString`: ISO 8601 strings parsed here (mingo's parser returned nothing for an
 * offset such as "+05:30" or a space before the time, and rolled 31 February into March);
 * other strings, and explicit formats, are mingo's, and a string neither can read is refused
 * (241) instead of giving a missing value. `onError` and `onNull` apply as in MongoDB.
 */
const $dateFromString: Expression = (obj, expr, options) => {
  if (!isPlainObject(expr) || !("dateString" in expr)) return mingo.$dateFromString(obj, expr, options);
  const text = evalExpr(obj, expr.dateString, options);
  if (isNil(text)) return "onNull" in expr ? evalExpr(obj, expr.onNull, options) : null;
  try {
    const timezone = checkTimezone(evalExpr(obj, expr.timezone, options));
    if (typeof text !== "string") {
      throw new CommandError(
        "ConversionFailure",
        `$dateFromString requires that 'dateString' be a string, found: ${bsonTypeOf(text)} with value ${String(text)}`,
      );
    }
    const instant = "format" in expr ? undefined : parseIsoDate(text, timezone);
    if (instant !== undefined) return new Date(instant);
    const parsed = mingo.$dateFromString(obj, { ...expr, dateString: { $literal: text }, onError: undefined }, options);
    if (parsed instanceof Date) return parsed;
    throw parseFailure(text, "it does not match the format or ISO 8601");
  } catch (error) {
    if (!("onError" in expr)) throw error;
    return evalExpr(obj, expr.onError, options);
  }
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
  $dateAdd: dateArithmetic("$dateAdd", 1),
  $dateSubtract: dateArithmetic("$dateSubtract", -1),
  $dateFromParts,
  $dateFromString,
  $dateTrunc,
};
