import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { keysetFilter, sortKeys } from "../../src/plan/keyset.ts";

// The cursor's range is a plain MongoDB filter, so it runs unchanged on a real MongoDB, and an
// ascending first key gets a range an index on that key can serve.
describe("keysetFilter", () => {
  test("ascending: a range on the first key plus the tie-break on _id", () => {
    assert.deepEqual(keysetFilter(sortKeys({ name: 1, _id: 1 }), ["Bo", 7], "after"), {
      name: { $gte: "Bo" },
      $or: [{ name: { $gt: "Bo" } }, { name: "Bo", _id: { $gt: 7 } }],
    });
  });

  test("descending: smaller values, then the nulls that sort after every value", () => {
    assert.deepEqual(keysetFilter(sortKeys({ score: -1, _id: 1 }), [3, 7], "after"), {
      $or: [{ score: { $lt: 3 } }, { score: null }, { score: 3, _id: { $gt: 7 } }],
    });
  });

  test("after a null: every non-null value ascending; nothing more descending", () => {
    assert.deepEqual(keysetFilter(sortKeys({ name: 1, _id: 1 }), [null, 4], "after"), {
      $or: [{ name: { $ne: null } }, { name: null, _id: { $gt: 4 } }],
    });
    assert.deepEqual(keysetFilter(sortKeys({ name: -1, _id: 1 }), [null, 4], "after"), { name: null, _id: { $gt: 4 } });
  });

  test("inclusive takes the boundary record in: only the _id key's range changes", () => {
    assert.deepEqual(keysetFilter(sortKeys({ score: -1, _id: 1 }), [3, 7], "before", true), {
      score: { $gte: 3 },
      $or: [{ score: { $gt: 3 } }, { score: 3, _id: { $lte: 7 } }],
    });
    assert.deepEqual(keysetFilter(sortKeys({ _id: -1 }), [5], "after", true), { _id: { $lte: 5 } });
    assert.deepEqual(keysetFilter(sortKeys({ name: -1, _id: 1 }), [null, 4], "after", true), {
      name: null,
      _id: { $gte: 4 },
    });
  });

  test("before is after in the reversed order; id alone is a plain range", () => {
    assert.deepEqual(keysetFilter(sortKeys({ _id: 1 }), [5], "before"), { _id: { $lt: 5 } });
    assert.deepEqual(keysetFilter(sortKeys({ _id: -1 }), [5], "after"), { _id: { $lt: 5 } });
    assert.deepEqual(
      keysetFilter(sortKeys({ _id: 1, name: 1 }), [5], "after"),
      { _id: { $gt: 5 } },
      "keys after _id never decide",
    );
  });
});
