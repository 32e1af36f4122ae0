import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { array, optional, record, string } from "superstruct";
import { defineModel, email } from "../../src/mod.ts";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { EMAIL_PATTERN, looksLikeEmail } from "../../src/model/types.ts";
import { validateBody } from "../../src/model/validate.ts";
import { ValidationError } from "../../src/errors.ts";
import { checkProperty } from "../helpers/seed.ts";

/** The WHATWG HTML "valid e-mail address" (what `<input type="email">` accepts), as the spec writes it. */
const WHATWG_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+\/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** What the OpenAPI document's `format: email` means to ajv (ajv-formats' full mode): RFC 5321's mailbox. */
const FORMAT_EMAIL = fullFormats.email as RegExp;

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
  test("takes exactly the addresses both the WHATWG grammar and format: email take (property)", async () => {
    const alphabet = fc.constantFrom("a", "B", "7", "@", ".", "-", "+", "_", " ", "\t", "\u0000", "é", "ü", "<", ">");
    const bidi = fc.constantFrom("\u202e", "\u200b", "\u2028", "\u00a0");
    const text = fc.array(fc.oneof({ weight: 9, arbitrary: alphabet }, { weight: 1, arbitrary: bidi }), {
      maxLength: 14,
    }).map((chars) => chars.join(""));
    await checkProperty(
      fc.property(text, (value) => {
        assert.equal(
          looksLikeEmail(value),
          WHATWG_EMAIL.test(value) && FORMAT_EMAIL.test(value),
          JSON.stringify(value),
        );
        assert.equal(looksLikeEmail(value), EMAIL_PATTERN.test(value));
      }),
      { numRuns: 20_000 },
    );
  });

  test("examples: dot-atoms at two or more hostname labels, ASCII only", () => {
    const label63 = "l".repeat(63);
    for (const good of ["ada@example.com", "a@b.co", "a.b@c.d.e", "x+tag@sub.example.org", `a@${label63}.com`]) {
      assert.equal(looksLikeEmail(good), true, good);
    }
    const bad = [
      ...["", "@b.c", "a@", "a@b", "ada@localhost", "a@.b", "a@b.", "a@@b.c", "a@b@c.d", "a b@c.d", "a@b.c "],
      ...["a..b@example.com", "a@example..com", ".a@b.co", "a.@b.co", "a@-b.co", "a@b-.co", `a@${label63}l.com`],
      ...["ü@example.com", "a@bü.com", "<script>@b.co", "a\u0000@b.co", "a\u202e@b.co", "a\u200b@b.co", "a@b.c\n"],
    ];
    for (const value of bad) assert.equal(looksLikeEmail(value), false, JSON.stringify(value));
  });

  test("refuses with the field's message, pathological inputs included", () => {
    const Contact = defineModel({ name: "Contact", fields: { mail: email() } });
    assert.deepEqual(errorsOf(() => validateBody(Contact, { mail: "a\u202e@b.co" })), {
      mail: ["The mail field must be a valid email address."],
    });
    // Inputs that make a backtracking matcher retry (tests/app/input-stalls.test.ts measures the stall).
    for (const value of ["a@" + "a".repeat(60_000) + "!", "a@" + "a.".repeat(30_000) + "-", "a".repeat(65_000) + "@"]) {
      assert.equal(looksLikeEmail(value), false);
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
