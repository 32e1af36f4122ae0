import { CommandError } from "../errors.ts";

/**
 * Calendar arithmetic in a timezone, for the engine's date expressions: a timezone argument
 * (an Olson name such as "America/New_York", or an offset "+05:30", "-0330", "+03") turned
 * into its UTC offset at an instant, a date's local calendar fields (weeks as MongoDB counts
 * them: `$week` from the first Sunday, ISO weeks from the Monday of the week holding
 * January 4), and local wall-clock times turned back into instants. Olson names are read
 * through `Intl.DateTimeFormat`, which both runtimes carry with their time-zone data.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

const OFFSET = /^([+-])(\d{2})(?::?(\d{2}))?$/;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat("en-US", {
        timeZone: timezone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
        era: "short",
      });
    } catch {
      throw new CommandError("Location40485", `unrecognized time zone identifier: "${timezone}"`);
    }
    if (formatters.size > 200) formatters.clear();
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** Checks a timezone argument, so that a bad one is refused even where no date is read. */
export function checkTimezone(timezone: unknown): string | undefined {
  if (timezone === undefined || timezone === null) return undefined;
  if (typeof timezone !== "string") {
    throw new CommandError("Location40517", `timezone must evaluate to a string, found ${typeof timezone}`);
  }
  if (!OFFSET.test(timezone)) formatterFor(timezone);
  return timezone;
}

/** The timezone's offset from UTC at an instant, in minutes (east positive). */
export function offsetMinutes(instant: number, timezone: string | undefined): number {
  if (timezone === undefined || timezone === "UTC" || timezone === "GMT") return 0;
  const fixed = OFFSET.exec(timezone);
  if (fixed) return (fixed[1] === "-" ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3] ?? 0));
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timezone).formatToParts(new Date(instant))) parts[part.type] = part.value;
  const year = parts.era === "BC" ? 1 - Number(parts.year) : Number(parts.year);
  const wall = Date.UTC(
    year,
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const seconds = Math.floor(instant / 1000) * 1000;
  return Math.round((wall - seconds) / MINUTE);
}

/** A date's calendar fields in a timezone. */
export interface LocalFields {
  year: number;
  /** 1-12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** 1 (Sunday) to 7 (Saturday), as `$dayOfWeek` counts. */
  dayOfWeek: number;
  dayOfYear: number;
  /** 0-53: weeks start on Sunday, week 1 with the year's first Sunday (`$week`, `%U`). */
  week: number;
  /** 1 (Monday) to 7 (Sunday). */
  isoDayOfWeek: number;
  isoWeek: number;
  isoWeekYear: number;
  /** The offset used, in minutes. */
  offset: number;
}

/** The wall-clock time of an instant in a timezone, as a UTC-based millisecond count. */
export function wallClock(instant: number, timezone: string | undefined): number {
  return instant + offsetMinutes(instant, timezone) * MINUTE;
}

/** A date's fields in a timezone (UTC when none is given). */
export function localFields(instant: number, timezone: string | undefined): LocalFields {
  const offset = offsetMinutes(instant, timezone);
  const local = new Date(instant + offset * MINUTE);
  const year = local.getUTCFullYear();
  const dayStart = Math.floor(local.getTime() / DAY) * DAY; // Date.UTC would misread years 0-99
  const dayOfYear = Math.round((dayStart - yearStart(year)) / DAY) + 1;
  const weekday = local.getUTCDay(); // 0 = Sunday
  const isoDayOfWeek = weekday === 0 ? 7 : weekday;
  const thursday = new Date(dayStart + (4 - isoDayOfWeek) * DAY);
  const isoWeekYear = thursday.getUTCFullYear();
  const isoWeek = Math.floor(Math.round((thursday.getTime() - yearStart(isoWeekYear)) / DAY) / 7) + 1;
  return {
    year,
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    millisecond: local.getUTCMilliseconds(),
    dayOfWeek: weekday + 1,
    dayOfYear,
    week: Math.floor((dayOfYear + 6 - weekday) / 7),
    isoDayOfWeek,
    isoWeek,
    isoWeekYear,
    offset,
  };
}

function yearStart(year: number): number {
  const start = new Date(Date.UTC(2000, 0, 1));
  start.setUTCFullYear(year); // Date.UTC would read years 0-99 as 1900-1999
  return start.getTime();
}

/** The instant at which a timezone's clocks show `wall` (a UTC-based count of the wall time). */
export function instantOfWallClock(wall: number, timezone: string | undefined): number {
  // Two rounds settle every offset but inside a daylight-saving gap, where the later one wins.
  const first = wall - offsetMinutes(wall, timezone) * MINUTE;
  return wall - offsetMinutes(first, timezone) * MINUTE;
}

/** Midnight (UTC-based wall time) of the Monday that starts ISO week 1 of a year. */
export function isoYearStart(isoWeekYear: number): number {
  const january4 = yearStart(isoWeekYear) + 3 * DAY;
  const weekday = new Date(january4).getUTCDay();
  return january4 - ((weekday + 6) % 7) * DAY;
}
