import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import { bsonTag, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { checkTimezone, instantOfWallClock, wallClock } from "./calendar.ts";
import { instantOf, onlyFields } from "./date-expressions.ts";
import { type Expression, isNil } from "./expression-arguments.ts";
import { wholeNumber } from "./number-arithmetic.ts";

/**
 * `$dateAdd`, `$dateSubtract` and `$dateTrunc` on the timezone's calendar (calendar.ts).
 * mingo's `$dateAdd` of a month to 31 January overflowed into March (MongoDB stops at the
 * month's last day) and added days as 24 hours across daylight saving, and its `$dateTrunc`
 * truncated whole hours of offset, so at a half-hour offset it went to the wrong day or hour.
 */

const mingo = mingoExpressions as unknown as Record<string, Expression>;

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
    const whole = wholeNumber(amount);
    if (whole === undefined) {
      throw new CommandError(
        "Location5166405",
        `${name} expects integer amount of time units, found: ${String(amount)}`,
      );
    }
    return new Date(addToDate(instantOf(start), unit, sign * Number(whole), timezone));
  };
}

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
  const whole = wholeNumber(binSize);
  if (whole === undefined) {
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

/** The expressions, to register in mingo's context over its own. */
export const dateArithmeticExpressions: Record<string, Expression> = {
  $dateAdd: dateArithmetic("$dateAdd", 1),
  $dateSubtract: dateArithmetic("$dateSubtract", -1),
  $dateTrunc,
};
