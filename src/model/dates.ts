// ISO 8601 dates as records store them: validation (model) and where-conditions (query) both read them.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

function daysInMonth(year: number, month: number): number {
  // Not Date.UTC: it reads years 0-99 as 1900-1999 (and 1900 is no leap year, 0000 is).
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
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
  // Not Date.UTC, which reads years 0-99 as 1900-1999: setUTCFullYear takes the year as written.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  date.setTime(date.getTime() - offset * 60_000);
  return Number.isNaN(date.getTime()) ? null : date;
}
