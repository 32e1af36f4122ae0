import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { boundedJson, ResponseBudget } from "../../src/query/budget.ts";
import { jsonSizeEstimate } from "../../src/plan/size.ts";
import { checkProperty } from "../helpers/seed.ts";

const LARGE = Number.MAX_SAFE_INTEGER;

describe("boundedJson", () => {
  test("is JSON.stringify, byte for byte, for any JSON value and any list body", async () => {
    await checkProperty(
      fc.property(fc.jsonValue(), (value) => assert.equal(boundedJson(value, LARGE), JSON.stringify(value))),
    );
    const body = fc.record(
      {
        data: fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))),
        pagination: fc.jsonValue(),
        extra: fc.jsonValue(),
      },
      { requiredKeys: ["data"] },
    );
    await checkProperty(fc.property(body, (value) => assert.equal(boundedJson(value, LARGE), JSON.stringify(value))));
  });

  test("keeps the key order when data is not the first key, and honours toJSON", () => {
    const later = { pagination: { page: 1 }, data: [{ a: 1 }] };
    assert.equal(boundedJson(later, LARGE), JSON.stringify(later));
    const dated = { data: [{ at: new Date(0) }] };
    assert.equal(boundedJson(dated, LARGE), '{"data":[{"at":"1970-01-01T00:00:00.000Z"}]}');
  });

  test("refuses a body over the ceiling in UTF-8 bytes, and accepts one exactly at it", () => {
    const body = { data: ["é".repeat(10)] }; // {"data":["éééééééééé"]}: 13 ASCII bytes + 20
    assert.equal(boundedJson(body, 33), JSON.stringify(body));
    assert.throws(() => boundedJson(body, 32), /larger than the limit of 32 bytes/);
  });

  test("stops at the first record past the ceiling, without writing the rest", () => {
    let written = 0;
    const record = { toJSON: () => (written++, "x".repeat(100)) };
    assert.throws(() => boundedJson({ data: Array(1000).fill(record) }, 1000));
    assert.ok(written <= 10, `${written} records written`);
  });
});

describe("jsonSizeEstimate", () => {
  test("is close to the JSON length of plain records", () => {
    const record = { id: 1, name: "Ada", created_at: new Date(0), tags: ["a", "b"], nested: { ok: true } };
    const exact = JSON.stringify(record).length;
    const estimate = jsonSizeEstimate(record);
    assert.ok(estimate >= exact && estimate < exact * 1.5, `${estimate} for ${exact}`);
  });
});

describe("ResponseBudget", () => {
  test("charges copies × size, and refuses past either budget", () => {
    const budget = new ResponseBudget({ maxRelatedRecords: 10, maxResponseBytes: 1000 });
    budget.charge(4, 100);
    assert.equal(budget.recordsLeft, 6);
    assert.throws(() => budget.charge(7, 1), /more than 10 related records/);
    const bytes = new ResponseBudget({ maxRelatedRecords: 10, maxResponseBytes: 1000 });
    assert.throws(() => bytes.charge(2, 501), /larger than the limit of 1000 bytes/);
  });
});
