/**
 * Messages that say what is allowed: an enum names its values, an unreadable or impossible date
 * in q is quoted and said to be so, and Axe API's German and French wordings are kept where Axe
 * has them.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { array, enums, object, optional, string } from "superstruct";
import { defineModel } from "../../src/mod.ts";
import { validateBody } from "../../src/model/validate.ts";
import { CatalogValidationError } from "../../src/errors.ts";
import { Languages } from "../../src/i18n/languages.ts";
import type { App } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";

const Book = defineModel({
  name: "Book",
  fields: {
    title: string(),
    genre: enums(["novel", "poetry"]),
    tags: optional(array(enums(["new", "used"]))),
    meta: optional(object({ format: enums(["paper", "ebook"]) })),
  },
});

function messagesOf(body: Record<string, unknown>, language = "en"): Record<string, string[]> {
  try {
    validateBody(Book, body);
  } catch (error) {
    if (!(error instanceof CatalogValidationError)) throw error;
    const languages = new Languages("en");
    return Object.fromEntries(
      Object.entries(error.details).map(([field, list]) => [field, list.map((m) => languages.text(language, m))]),
    );
  }
  assert.fail("expected a validation error");
}

describe("an enum's message lists what it allows", () => {
  test("a field, a list's items and an object's key", () => {
    assert.deepEqual(messagesOf({ title: "t", genre: "drama", tags: ["mint"], meta: { format: "scroll" } }), {
      genre: ["The genre field must be one of: novel, poetry."],
      tags: ["The tags field must be one of: new, used."],
      meta: ["The meta field must be one of: paper, ebook."],
    });
  });

  test("in German and French, Axe's wording first, then the values", () => {
    assert.deepEqual(messagesOf({ title: "t", genre: "drama" }, "de"), {
      genre: ["Der gewählte Wert für genre ist ungültig. Erlaubt sind: novel, poetry."],
    });
    assert.deepEqual(messagesOf({ genre: "novel" }, "de"), { title: ["Das title Feld muss ausgefüllt sein."] });
    assert.deepEqual(messagesOf({ genre: "novel" }, "fr"), { title: ["Le champ title est requis."] });
  });
});

describe("a date in q that the server cannot read is quoted", () => {
  let app: App;
  before(async () => (app = await exampleApp()));
  after(async () => await app.close());

  test("an impossible day and an unreadable form each say so", async () => {
    const impossible = await jsonOf(await call(app, "GET", '/api/v1/users?q={"created_at":"2024-02-30"}'));
    assert.equal(impossible.status, 400);
    assert.match(impossible.body.error, /got "2024-02-30", which is not a day of the calendar$/);
    const unreadable = await jsonOf(await call(app, "GET", '/api/v1/users?q={"created_at.$gt":"yesterday"}'));
    assert.match(
      unreadable.body.error,
      /expected an ISO 8601 date string .*, got "yesterday", which is not in that form$/,
    );
    const number = await jsonOf(await call(app, "GET", '/api/v1/users?q={"created_at":5}'));
    assert.match(number.body.error, /got a number$/);
  });
});
