import { evalExpr } from "mingo/core";
import * as mingoExpressions from "mingo/operators/expression";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf } from "./bson-types.ts";
import { checkTimezone, instantOfWallClock, isoYearStart } from "./calendar.ts";
import { onlyFields } from "./date-expressions.ts";
import { type Expression, isNil } from "./expression-arguments.ts";
import { wholeNumber } from "./number-arithmetic.ts";

/**
 * Dates built from parts and parsed from strings. mingo's `$dateFromParts` with ISO week
 * fields gave the year 9999, and its `$dateFromString` returned nothing for
 * "2017-02-08T12:10:40+05:30" or a space before the time, and rolled 31 February into March.
 */

const mingo = mingoExpressions as unknown as Record<string, Expression>;

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
    const whole = wholeNumber(value);
    if (whole === undefined) {
      throw new CommandError("Location40515", `'${part}' must evaluate to an integer, found ${bsonTypeOf(value)}`);
    }
    parts[part] = Number(whole);
  }
  const days = (parts.isoWeek - 1) * 7 + (parts.isoDayOfWeek - 1);
  const time = ((parts.hour * 60 + parts.minute) * 60 + parts.second) * 1000 + parts.millisecond;
  return new Date(instantOfWallClock(isoYearStart(parts.isoWeekYear) + days * 86_400_000 + time, timezone));
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
export const dateParsingExpressions: Record<string, Expression> = {
  $dateFromParts,
  $dateFromString,
};
