import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, Decimal128, type Document, Long, MongoServerError, ObjectId, Timestamp } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

/**
 * `$dateTrunc` on the timezone's clock, with bins counted from 2000-01-01. The cases marked
 * "server" are the expectations of MongoDB's own test of the operator (jstests/aggregation/
 * expressions/date_trunc.js); mingo truncated whole hours of offset, so at Asia/Kolkata
 * (+05:30) a day went back to the one before.
 */
describe("embedded engine: $dateTrunc", () => {
  let conn: Connected;
  let rows: Collection<Document>;

  before(async () => {
    conn = await connectTarget("date_trunc");
    rows = conn.db.collection("rows");
    await rows.insertOne({ _id: new ObjectId("507c7f79bcf86cd7994f6c0e"), ts: new Timestamp({ t: 1350336377, i: 0 }) });
  });
  after(async () => {
    await conn.close();
  });

  const trunc = async (spec: Document) => {
    const [row] = await rows.aggregate([{ $project: { _id: 0, v: { $dateTrunc: spec } } }]).toArray();
    return row.v;
  };

  test("server cases: bins, timezones, start of week, ObjectId and Timestamp dates", async () => {
    const cases: [Document, Date][] = [
      [{ date: new Date("2020-11-01T18:23:36Z"), unit: "hour", binSize: 2 }, new Date("2020-11-01T18:00:00Z")],
      [
        { date: new Date("2021-12-01T18:23:36Z"), unit: "hour", binSize: 4, timezone: "America/New_York" },
        new Date("2021-12-01T17:00:00Z"),
      ],
      [{ date: new Date("2021-02-15T18:23:36Z"), unit: "week" }, new Date("2021-02-14T00:00:00Z")],
      [
        {
          date: new Date("2000-01-30T18:00:00Z"),
          unit: "week",
          binSize: 2,
          timezone: "America/New_York",
          startOfWeek: "mon",
        },
        new Date("2000-01-17T05:00:00Z"),
      ],
      [{ date: "$_id", unit: "minute", binSize: 10 }, new Date("2012-10-15T21:20:00Z")],
      [{ date: "$ts", unit: "second", binSize: 10 }, new Date("2012-10-15T21:26:10Z")],
      [
        { date: new Date("2020-01-30T18:59:00Z"), unit: "minute", binSize: Decimal128.fromString("15") },
        new Date("2020-01-30T18:45:00Z"),
      ],
      [{ date: new Date("2020-01-30T18:59:00Z"), unit: "day", binSize: Long.fromNumber(1) }, new Date("2020-01-30Z")],
      [
        { date: new Date("2020-01-30T18:59:00.003Z"), unit: "millisecond", binSize: 1000 },
        new Date("2020-01-30T18:59:00Z"),
      ],
      [
        { date: new Date("2020-01-30T18:59:00Z"), unit: "year", timezone: "GMT", startOfWeek: 1 },
        new Date("2020-01-01T00:00:00Z"),
      ],
    ];
    for (const [spec, expected] of cases) assert.deepEqual(await trunc(spec), expected, JSON.stringify(spec));
  });

  test("a half-hour offset truncates on the local clock", async () => {
    const date = new Date("2024-03-15T20:45:10.500Z"); // 02:15 on 16 March in Kolkata
    assert.deepEqual(await trunc({ date, unit: "day", timezone: "Asia/Kolkata" }), new Date("2024-03-15T18:30:00Z"));
    assert.deepEqual(await trunc({ date, unit: "hour", timezone: "+05:30" }), new Date("2024-03-15T20:30:00Z"));
    assert.deepEqual(await trunc({ date, unit: "quarter", binSize: 2 }), new Date("2024-01-01T00:00:00Z"));
  });

  test("null arguments give null; bad ones are refused with the server's codes", async () => {
    const date = new Date("2020-11-01T18:23:36Z");
    assert.equal(await trunc({ date: null, unit: "hour" }), null);
    assert.equal(await trunc({ date: "$missing", unit: "century", binSize: "x" }), null);
    assert.equal(await trunc({ date, unit: "week", startOfWeek: null }), null);
    const codes: [unknown, number][] = [
      [{ date: "string", unit: "hour" }, 5439012],
      [{ date, unit: 1 }, 5439013],
      [{ date, unit: "century" }, 5439014],
      [{ date, unit: "hour", binSize: "Number" }, 5439017],
      [{ date, unit: "hour", binSize: 0 }, 5439018],
      [{ date, unit: "hour", binSize: 2.5 }, 5439017],
      [{ date, unit: "hour", timezone: 1 }, 40517],
      [{ date, unit: "hour", timezone: "America/Invalid" }, 40485],
      [{ date, unit: "week", startOfWeek: 1 }, 5439015],
      [{ date, unit: "week", startOfWeek: "FRIDIE" }, 5439016],
      [{ endDate: 1 }, 5439008],
      [{ unit: "week" }, 5439009],
      [{ date }, 5439010],
    ];
    for (const [spec, code] of codes) {
      const error = await trunc(spec as Document).then(() => undefined, (e) => e);
      assert.ok(error instanceof MongoServerError, JSON.stringify(spec));
      assert.equal(error.code, code, JSON.stringify(spec));
    }
  });
});
