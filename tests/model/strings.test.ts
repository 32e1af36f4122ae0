import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { array, optional, record, string } from "superstruct";
import { defineModel, email } from "../../src/mod.ts";
import { looksLikeEmail } from "../../src/model/types.ts";
import { validateBody } from "../../src/model/validate.ts";
import { ValidationError } from "../../src/errors.ts";
import { checkProperty } from "../helpers/seed.ts";

/** The regex email() used to be: right answers, but quadratic time on "a@....… ". */
const OLD_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function errorsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  assert.fail("expected a validation error");
}

describe("email()", () => {
  test("accepts and refuses exactly what the old regex did (property)", async () => {
    const alphabet = fc.constantFrom("a", "b", "@", ".", " ", "\t", "\n", "\u00a0", "\u2028", "é", "-", "+");
    const text = fc.array(alphabet, { maxLength: 14 }).map((chars) => chars.join(""));
    await checkProperty(
      fc.property(text, (value) => {
        assert.equal(looksLikeEmail(value), OLD_EMAIL.test(value), JSON.stringify(value));
      }),
      { numRuns: 20_000 },
    );
  });

  test("examples", () => {
    for (const good of ["ada@example.com", "a@b.c", "a.b@c.d.e", "x@.b.c", "x@b..c"]) {
      assert.equal(looksLikeEmail(good), true, good);
    }
    for (const bad of ["", "@b.c", "a@", "a@b", "a@.b", "a@b.", "a@@b.c", "a@b@c.d", "a b@c.d", "a@b.c ", "a@b.c\n"]) {
      assert.equal(looksLikeEmail(bad), false, bad);
    }
  });
});

describe("string length limits", () => {
  const Note = defineModel({
    name: "Note",
    fields: {
      title: string(),
      body: optional(string()),
      tags: optional(array(string())),
      meta: optional(record(string(), string())),
      mail: optional(email()),
    },
    maxStringLength: 10,
    maxStringLengths: { body: 20 },
  });

  test("a field holds at most the model's maximum, unless the field has its own", () => {
    assert.deepEqual(validateBody(Note, { title: "x".repeat(10), body: "y".repeat(20) }), {
      title: "x".repeat(10),
      body: "y".repeat(20),
    });
    assert.deepEqual(errorsOf(() => validateBody(Note, { title: "x".repeat(11), body: "y".repeat(21) })), {
      title: ["The title field must be at most 10 characters long."],
      body: ["The body field must be at most 20 characters long."],
    });
  });

  test("strings nested in arrays and objects, and keys, count too", () => {
    assert.deepEqual(
      errorsOf(() => validateBody(Note, { title: "t", tags: ["ok", "z".repeat(11)], meta: { ["k".repeat(11)]: "v" } })),
      {
        tags: ["The tags field holds a string longer than 10 characters."],
        meta: ["The meta field holds a string longer than 10 characters."],
      },
    );
  });

  test("the length is checked before the field's own check (an oversized email is a length error)", () => {
    assert.deepEqual(errorsOf(() => validateBody(Note, { title: "t", mail: "a@" + ".".repeat(20) }, true)), {
      mail: ["The mail field must be at most 10 characters long."],
    });
  });

  test("the default is 65,536 characters", () => {
    const Plain = defineModel({ name: "Plain", fields: { text: string() } });
    assert.deepEqual(validateBody(Plain, { text: "x".repeat(65_536) }), { text: "x".repeat(65_536) });
    assert.deepEqual(errorsOf(() => validateBody(Plain, { text: "x".repeat(65_537) })), {
      text: ["The text field must be at most 65536 characters long."],
    });
  });

  test("bad limits stop start-up with a clear message", () => {
    assert.throws(
      () => defineModel({ name: "A", fields: { a: string() }, maxStringLength: 0 }),
      /Model A: maxStringLength must be a positive integer, got 0/,
    );
    assert.throws(
      () => defineModel({ name: "A", fields: { a: string() }, maxStringLengths: { b: 5 } }),
      /Model A: maxStringLengths names "b", which is not a field/,
    );
    assert.throws(
      () => defineModel({ name: "A", fields: { a: string() }, maxStringLengths: { a: 1.5 } }),
      /Model A: maxStringLengths.a must be a positive integer, got 1.5/,
    );
  });
});
