import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * Date expressions on MongoDB's calendar. mingo's week numbers, ISO week-years, several
 * `$dateToString` specifiers, month arithmetic, ISO `$dateFromParts` and `$dateFromString`
 * with an offset were wrong on ordinary dates.
 */
describe("embedded engine: date expressions on MongoDB's calendar", () => {
  let conn: Connected;
  let rows: Collection<{ _id: number; d: Date }>;

  before(async () => {
    conn = await connectTarget("date_expressions");
    rows = conn.db.collection("rows");
    await rows.insertMany([
      { _id: 1, d: new Date("2021-01-03T05:06:07.089Z") }, // a Sunday, in ISO week 53 of 2020
      { _id: 2, d: new Date("2024-12-30T10:20:30.456Z") }, // a Monday, in ISO week 1 of 2025
    ]);
  });
  after(async () => {
    await conn.close();
  });

  const evaluate = async (
    fields: Record<string, unknown>,
  ) => (await rows.aggregate([{ $sort: { _id: 1 } }, { $project: { _id: 0, ...fields } }]).toArray());
  const one = async (fields: Record<string, unknown>) => (await evaluate(fields))[0];

  test("$week counts from the first Sunday; ISO weeks belong to the year of their Thursday", async () => {
    assert.deepEqual(
      await evaluate({
        week: { $week: "$d" },
        isoWeek: { $isoWeek: "$d" },
        isoWeekYear: { $isoWeekYear: "$d" },
        dayOfWeek: { $dayOfWeek: "$d" },
        tokyoWeek: { $week: { date: "$d", timezone: "Asia/Tokyo" } },
        dayOfYear: { $dayOfYear: "$d" },
      }),
      [
        { week: 1, isoWeek: 53, isoWeekYear: 2020, dayOfWeek: 1, tokyoWeek: 1, dayOfYear: 3 },
        { week: 52, isoWeek: 1, isoWeekYear: 2025, dayOfWeek: 2, tokyoWeek: 52, dayOfYear: 365 },
      ],
    );
  });

  test("$dateToString: every specifier, %% and timezones", async () => {
    const rows = await evaluate({
      all: { $dateToString: { date: "$d", format: "%Y-%m-%d %H:%M:%S.%L %j|%u|%w|%U|%V|%G|%b|%B|%%" } },
      newYork: { $dateToString: { date: "$d", format: "%H:%M %z %Z", timezone: "America/New_York" } },
      india: { $dateToString: { date: "$d", timezone: "+05:30" } },
    });
    assert.deepEqual(rows, [
      {
        all: "2021-01-03 05:06:07.089 003|7|1|01|53|2020|Jan|January|%",
        newYork: "00:06 -0500 -300",
        india: "2021-01-03T10:36:07.089",
      },
      {
        all: "2024-12-30 10:20:30.456 365|1|2|52|01|2025|Dec|December|%",
        newYork: "05:20 -0500 -300",
        india: "2024-12-30T15:50:30.456",
      },
    ]);
    const error = await one({ x: { $dateToString: { date: "$d", format: "%Q" } } }).then(() => undefined, (e) => e);
    assert.ok(error instanceof MongoServerError);
    assert.equal(error.code, 18536);
  });

  test("$dateAdd and $dateSubtract stop at a month's last day and keep local time across daylight saving", async () => {
    assert.deepEqual(
      await one({
        month: { $dateAdd: { startDate: new Date("2023-01-31T00:00:00Z"), unit: "month", amount: 1 } },
        leapYear: { $dateAdd: { startDate: new Date("2024-02-29T00:00:00Z"), unit: "year", amount: 1 } },
        back: { $dateSubtract: { startDate: new Date("2024-03-31T00:00:00Z"), unit: "month", amount: 1 } },
        quarter: { $dateAdd: { startDate: new Date("2024-11-30T00:00:00Z"), unit: "quarter", amount: 1 } },
        dstDay: {
          $dateAdd: {
            startDate: new Date("2024-03-09T12:00:00Z"),
            unit: "day",
            amount: 1,
            timezone: "America/New_York",
          },
        },
        hours: { $dateAdd: { startDate: new Date("2024-03-09T12:00:00Z"), unit: "hour", amount: 24 } },
      }),
      {
        month: new Date("2023-02-28T00:00:00Z"),
        leapYear: new Date("2025-02-28T00:00:00Z"),
        back: new Date("2024-02-29T00:00:00Z"),
        quarter: new Date("2025-02-28T00:00:00Z"),
        dstDay: new Date("2024-03-10T11:00:00Z"),
        hours: new Date("2024-03-10T12:00:00Z"),
      },
    );
  });

  test("$dateToParts and $dateFromParts with ISO fields", async () => {
    const [row] = await evaluate({
      parts: { $dateToParts: { date: "$d", iso8601: true } },
      monday: { $dateFromParts: { isoWeekYear: 2021, isoWeek: 1, isoDayOfWeek: 1 } },
      sunday: { $dateFromParts: { isoWeekYear: 2020, isoWeek: 53, isoDayOfWeek: 7, hour: 5, timezone: "+01:00" } },
    });
    assert.deepEqual(row, {
      parts: { isoWeekYear: 2020, isoWeek: 53, isoDayOfWeek: 7, hour: 5, minute: 6, second: 7, millisecond: 89 },
      monday: new Date("2021-01-04T00:00:00Z"),
      sunday: new Date("2021-01-03T04:00:00Z"),
    });
  });

  test("$dateFromString reads ISO 8601 with offsets and refuses what it cannot read (241)", async () => {
    assert.deepEqual(
      await one({
        offset: { $dateFromString: { dateString: "2017-02-08T12:10:40.787+05:30" } },
        space: { $dateFromString: { dateString: "2017-02-08 12:10:40" } },
        zone: { $dateFromString: { dateString: "2017-02-08", timezone: "America/New_York" } },
        formatted: { $dateFromString: { dateString: "06-15-2018", format: "%m-%d-%Y" } },
        fallback: { $dateFromString: { dateString: "2017-02-31", onError: "bad" } },
        missing: { $dateFromString: { dateString: "$nothing", onNull: "none" } },
      }),
      {
        offset: new Date("2017-02-08T06:40:40.787Z"),
        space: new Date("2017-02-08T12:10:40Z"),
        zone: new Date("2017-02-08T05:00:00Z"),
        formatted: new Date("2018-06-15T00:00:00Z"),
        fallback: "bad",
        missing: "none",
      },
    );
    const error = await one({ x: { $dateFromString: { dateString: "garbage" } } }).then(() => undefined, (e) => e);
    assert.ok(error instanceof MongoServerError);
    assert.equal(error.code, 241);
  });
});
