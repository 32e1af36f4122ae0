/**
 * A malformed JSON body is answered with where it breaks: the scanner behind the message agrees
 * with JSON.parse on what is valid (property, seeded), and points at the first offending
 * character by line and column.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { jsonErrorOffset, jsonSyntaxProblem } from "../../src/http/json-syntax.ts";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";
import { checkProperty } from "../helpers/seed.ts";

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("jsonErrorOffset", () => {
  test("finds a problem exactly when JSON.parse refuses the text (property)", async () => {
    const pieces = fc.constantFrom(
      ...["{", "}", "[", "]", ",", ":", '"', '"a"', "\\", "\\u12", "\\u00e9", "1", "-", "0", ".5", "e3", "01", " "],
      ...["\n", "\t", "true", "tru", "null", "x", "\u0001", "é"],
    );
    const text = fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join(""));
    const json = fc.jsonValue().map((value) => JSON.stringify(value, null, 1));
    await checkProperty(
      fc.property(fc.oneof(text, json), (candidate) => {
        assert.equal(jsonErrorOffset(candidate) === -1, parses(candidate), JSON.stringify(candidate));
      }),
      { numRuns: 20_000 },
    );
  });

  test("points at the first offending character, by line and column", () => {
    assert.deepEqual(jsonSyntaxProblem('{"email": "a@b.co",\n "name": }'), { found: "}", line: 2, column: 10 });
    assert.deepEqual(jsonSyntaxProblem('{"a": 1 "b": 2}'), { found: '"', line: 1, column: 9 });
    assert.deepEqual(jsonSyntaxProblem('{"a": [1, 2'), { found: null, line: 1, column: 12 });
    assert.deepEqual(jsonSyntaxProblem("[01]"), { found: "1", line: 1, column: 3 });
    assert.equal(jsonSyntaxProblem('{"a": [1, {"b": null}]}'), null);
  });

  test("nesting a hundred thousand levels deep is one pass, not a stack overflow", () => {
    const deep = "[".repeat(100_000) + "]".repeat(99_999) + "}";
    assert.deepEqual(jsonSyntaxProblem(deep), { found: "}", line: 1, column: 200_000 });
  });
});

describe("a malformed body's 400 says where", () => {
  let app: App;
  before(async () => (app = await exampleApp()));
  after(async () => await app.close());

  test("in the client's language, with the position", async () => {
    const body = '{"email": "a@b.co",\n "name": }';
    const en = await jsonOf(await call(app, "POST", "/api/v1/users", body));
    assert.deepEqual([en.status, en.body], [400, {
      error: 'The request body is not valid JSON: unexpected "}" at line 2, column 10.',
    }]);
    const de = await jsonOf(await call(app, "POST", "/api/v1/users", '{"a": [1', { "accept-language": "de" }));
    assert.deepEqual(de.body, {
      error:
        "Der Request-Body ist kein gültiges JSON: Er endet in Zeile 1, Spalte 9, bevor der JSON-Wert vollständig ist.",
    });
  });
});
