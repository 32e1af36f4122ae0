import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ApiError } from "../../src/errors.ts";
import { likeRegex, likeSource, MAX_LIKE_WILDCARDS } from "../../src/query/like.ts";
import { checkProperty } from "../helpers/seed.ts";

const END = "(?![\\s\\S])";

/** Reference matcher: plain dynamic programming over (pattern, subject), obviously correct. */
function globMatches(pattern: string, subject: string): boolean {
  const p = [...pattern];
  let row = new Array<boolean>(subject.length + 1).fill(false);
  row[0] = true;
  for (const c of p) {
    const next = new Array<boolean>(subject.length + 1).fill(false);
    if (c === "*" || c === "%") {
      let any = false;
      for (let j = 0; j <= subject.length; j++) next[j] = any ||= row[j];
    } else {
      for (let j = 1; j <= subject.length; j++) next[j] = row[j - 1] && subject[j - 1] === c;
    }
    row = next;
  }
  return row[subject.length];
}

const matches = (pattern: string, subject: string, flags = "") => new RegExp(likeSource(pattern), flags).test(subject);

describe("likeSource", () => {
  const cases: [string, string][] = [
    ["Karl", `^Karl${END}`],
    ["Ka*", `^Ka[\\s\\S]*${END}`],
    ["*rl", `^[\\s\\S]*rl${END}`],
    ["K*l", `^K[\\s\\S]*l${END}`],
    ["%a.b%", `^(?=([\\s\\S]*?a\\.b))(?:\\1)[\\s\\S]*${END}`],
    ["a**b", `^a[\\s\\S]*b${END}`],
    ["*", `^[\\s\\S]*${END}`],
    ["", `^${END}`],
    ["a_b", `^a_b${END}`],
    ["(x)[y]{z}|^$.+?\\/", `^\\(x\\)\\[y\\]\\{z\\}\\|\\^\\$\\.\\+\\?\\\\\\/${END}`],
    ["a\u0000b\n", `^a\\x00b\\x0a${END}`],
  ];
  for (const [pattern, source] of cases) test(JSON.stringify(pattern), () => assert.equal(likeSource(pattern), source));

  test("digits after a backreference are literal, not part of the group number", () => {
    assert.equal(matches("*a*1*", "xa1"), true);
    assert.equal(matches("*a*1*", "xa"), false);
    assert.equal(matches("*a*b*c*d*e*f*g*h*i*j*k*0*", "abcdefghijk0"), true);
  });

  test("likeRegex adds the i option only for the case-insensitive forms", () => {
    assert.deepEqual(likeRegex("K*", false), { $regex: `^K[\\s\\S]*${END}` });
    assert.deepEqual(likeRegex("K*", true), { $regex: `^K[\\s\\S]*${END}`, $options: "i" });
  });

  test(`more than ${MAX_LIKE_WILDCARDS} wildcards is a 400 naming the key`, () => {
    assert.equal(likeSource("a*".repeat(MAX_LIKE_WILDCARDS)).length > 0, true);
    assert.throws(
      () => likeSource("a*".repeat(MAX_LIKE_WILDCARDS + 1), '"name.$like"'),
      (error: unknown) =>
        error instanceof ApiError && error.status === 400 && /"name.\$like" has 21 wildcards/.test(error.message),
    );
  });

  test("the end anchor is the true end: a trailing newline is not ignored", () => {
    assert.equal(matches("abc", "abc\n"), false);
    assert.equal(matches("abc*", "abc\n"), true);
  });

  test("many wildcards against a long near-miss subject finish (no catastrophic backtracking)", () => {
    const pattern = "*a".repeat(MAX_LIKE_WILDCARDS) + "b";
    assert.equal(matches(pattern, "a".repeat(20_000)), false);
    assert.equal(matches(pattern, "a".repeat(20_000) + "b"), true);
  });
});

describe("likeSource agrees with a reference glob matcher (property)", () => {
  const alphabet = fc.constantFrom("a", "b", "A", ".", "*", "%", "\\", "(", "[", "$", "\n", "1", "_", "é");
  const text = fc.array(alphabet, { maxLength: 12 }).map((chars) => chars.join(""));

  test("random patterns against random subjects", async () => {
    await checkProperty(
      fc.property(text, text, (pattern, subject) => {
        fc.pre(pattern.split(/[*%]+/).length - 1 <= MAX_LIKE_WILDCARDS);
        assert.equal(matches(pattern, subject), globMatches(pattern, subject));
      }),
      { numRuns: 1500 },
    );
  });

  test("patterns cut from the subject always match it", async () => {
    await checkProperty(
      fc.property(text, fc.array(fc.nat(), { maxLength: 6 }), (subject, cuts) => {
        const chars = [...subject.replace(/[*%]/g, "x")];
        for (const cut of cuts) if (chars.length) chars.splice(cut % chars.length, 1, "*");
        const pattern = chars.join("");
        assert.equal(matches(pattern, subject.replace(/[*%]/g, "x")), true);
      }),
      { numRuns: 500 },
    );
  });
});
