import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ApiError, createApp, defineModel, Languages, SHIPPED_CATALOGS } from "../../src/mod.ts";
import { en, type MessageKey } from "../../src/i18n/catalog-en.ts";
import { formatMessage } from "../../src/i18n/message.ts";
import { string } from "superstruct";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";

const KEYS = Object.keys(en) as MessageKey[];
const placeholders = (text: string): string[] => [...text.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!).sort();

describe("catalogs", () => {
  for (const [language, catalog] of Object.entries(SHIPPED_CATALOGS)) {
    it(`${language} has every key, with the same placeholders as English`, () => {
      assert.deepEqual(Object.keys(catalog).sort(), [...KEYS].sort(), `${language}: keys differ from en`);
      for (const key of KEYS) {
        const text = catalog[key];
        assert.ok(typeof text === "string" && text.trim() !== "", `${language} ${key} is empty`);
        assert.deepEqual(placeholders(text), placeholders(en[key]), `${language} ${key}: placeholders differ`);
        // Rendered with a value for each placeholder, none is left over.
        const params = Object.fromEntries(placeholders(en[key]).map((name) => [name, `<${name}>`]));
        const rendered = formatMessage(catalog, { key, params });
        for (const name of Object.keys(params)) {
          assert.ok(!rendered.includes(`{${name}}`), `${language} ${key}: {${name}} left over`);
        }
      }
    });
  }

  it("German and French are translations, not copies of the English", () => {
    for (const language of ["de", "fr"]) {
      const same = KEYS.filter((key) =>
        SHIPPED_CATALOGS[language]![key] === en[key] && placeholders(en[key]).join() !== en[key]
      );
      // Only texts that are the same in every language (a bare "null", "true or false" style operands) may match.
      assert.ok(same.every((key) => key === "value.null"), `${language} copies English for ${same.join(", ")}`);
    }
  });
});

describe("Accept-Language negotiation", () => {
  const languages = new Languages();
  const cases: [string | null, string][] = [
    [null, "en"],
    ["", "en"],
    ["de", "de"],
    ["de-CH", "de"],
    ["de-CH, fr;q=0.5", "de"],
    ["fr;q=0.5, de;q=0.9", "de"],
    ["es, fr;q=0.1", "fr"],
    ["es", "en"],
    ["de;q=0, fr", "fr"],
    ["*", "en"],
    ["FR-ca", "fr"],
    ["garbage;;;q=x", "en"],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected}`, () => assert.equal(languages.negotiate(header), expected));
  }

  it("an app's own language is negotiated like the shipped ones", () => {
    const withSpanish = new Languages("en", { es: { "record.notFound": "No se encontró el elemento en {model}." } });
    assert.equal(withSpanish.negotiate("es-MX, de;q=0.5"), "es");
    assert.equal(
      withSpanish.text("es", { key: "record.notFound", params: { model: "User" } }),
      "No se encontró el elemento en User.",
    );
    // Keys the app did not translate fall back to the default language.
    assert.equal(
      withSpanish.text("es", { key: "param.repeated", params: { name: "page" } }),
      "The page parameter may be given only once.",
    );
  });

  it("a default language without a catalog stops start-up with one line", async () => {
    await assert.rejects(
      createApp({ models: [], language: "xx" }),
      /language "xx" has no catalog; use one of en, de, fr/,
    );
  });
});

describe("messages over HTTP", async () => {
  const app = await exampleApp();
  after(() => app.close());
  const de = { "accept-language": "de-CH,de;q=0.9,en;q=0.5" };

  it("English stays the default, with the spec's exact texts and Content-Language en", async () => {
    const res = await call(app, "GET", "/api/v1/users/999");
    assert.equal(res.headers.get("content-language"), "en");
    assert.deepEqual(await jsonOf(res), { status: 404, body: { error: "The item is not found on User." } });
    const invalid = await call(app, "POST", "/api/v1/users", {});
    assert.deepEqual((await invalid.json()).errors.email, ["The email field is required."]);
    const fields = await call(app, "GET", "/api/v1/users?fields=nope,password");
    assert.deepEqual(await fields.json(), { error: "Undefined column names: nope,password" });
  });

  it("not found, validation, query parameters and request errors come in German", async () => {
    const notFound = await call(app, "GET", "/api/v1/users/999", undefined, de);
    assert.equal(notFound.headers.get("content-language"), "de");
    assert.match(notFound.headers.get("vary") ?? "", /Accept-Language/);
    assert.deepEqual(await notFound.json(), { error: "Der Datensatz wurde in User nicht gefunden." });

    const invalid = await call(app, "POST", "/api/v1/users", { email: "nope", name: 5 }, de);
    assert.deepEqual(await jsonOf(invalid), {
      status: 400,
      body: {
        errors: {
          // Axe API's own German (its validator's catalog), so teams moving over keep their texts.
          email: ["Das email Format ist ungültig."],
          name: ["Das name Feld muss ein Satz sein."],
          surname: ["Das surname Feld muss ausgefüllt sein."],
        },
      },
    });

    const perPage = await call(app, "GET", "/api/v1/users?per_page=0", undefined, de);
    assert.deepEqual(await perPage.json(), {
      error: 'Der Parameter per_page muss eine ganze Zahl von 1 bis 100 sein; erhalten: "0".',
    });
    const q = await call(app, "GET", `/api/v1/users?q=${encodeURIComponent('{"id.$gt":"x"}')}`, undefined, de);
    assert.deepEqual(await q.json(), {
      error: 'Ungültiger Wert für "id.$gt" in q: erwartet eine ganze Zahl, erhalten eine Zeichenkette',
    });

    const json = await call(app, "POST", "/api/v1/users", "{", de);
    assert.deepEqual(await jsonOf(json), {
      status: 400,
      body: {
        error:
          "Der Request-Body ist kein gültiges JSON: Er endet in Zeile 1, Spalte 2, bevor der JSON-Wert vollständig ist.",
      },
    });
    const type = await call(app, "POST", "/api/v1/users", "x", { ...de, "content-type": "text/plain" });
    assert.deepEqual(await jsonOf(type), {
      status: 415,
      body: { error: "Der Request-Body muss als application/json gesendet werden." },
    });
    const method = await call(app, "PUT", "/api/v1/users", {}, de);
    assert.deepEqual(await jsonOf(method), {
      status: 405,
      body: { error: "Die Methode PUT ist hier nicht erlaubt; erlaubt: OPTIONS, GET, HEAD, POST." },
    });
    const route = await call(app, "GET", "/nowhere", undefined, de);
    assert.deepEqual(await jsonOf(route), { status: 404, body: { error: "Keine Route passt zu GET /nowhere." } });
  });

  it("French is the third language; a language the app lacks gets the default", async () => {
    const fr = await call(app, "GET", "/api/v1/users?fields=nope", undefined, { "accept-language": "fr-FR" });
    assert.equal(fr.headers.get("content-language"), "fr");
    assert.deepEqual(await fr.json(), { error: "Noms de colonnes inconnus : nope" });
    const ja = await call(app, "GET", "/api/v1/users?fields=nope", undefined, { "accept-language": "ja" });
    assert.equal(ja.headers.get("content-language"), "en");
    assert.deepEqual(await ja.json(), { error: "Undefined column names: nope" });
  });

  it("an ApiError thrown by app code keeps its message as written", async () => {
    const res = await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "t", body: "b" }, {
      ...de,
      "x-user-id": "2",
    });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { error: "You can only write posts as yourself." });
    assert.equal(res.headers.get("content-language"), "de");
  });
});

describe("apps override messages and add languages", async () => {
  const Tag = defineModel({ name: "Tag", fields: { label: string() } });
  const app = await createApp({
    models: [Tag],
    hooks: {
      Tag: {
        onBeforeInsert: () => {
          throw new ApiError("Kein Zutritt.", 403);
        },
      },
    },
    messages: {
      en: { "record.notFound": "No {model} with that id." },
      es: { "record.notFound": "No hay ningún {model} con ese id." },
    },
  });
  after(() => app.close());

  it("an English override replaces the spec text; a new language is served with Content-Language", async () => {
    assert.deepEqual(await (await call(app, "GET", "/api/v1/tags/1")).json(), { error: "No Tag with that id." });
    const es = await call(app, "GET", "/api/v1/tags/1", undefined, { "accept-language": "es-AR" });
    assert.equal(es.headers.get("content-language"), "es");
    assert.deepEqual(await es.json(), { error: "No hay ningún Tag con ese id." });
    const deNotFound = await call(app, "GET", "/api/v1/tags/1", undefined, { "accept-language": "de" });
    assert.deepEqual(await deNotFound.json(), { error: "Der Datensatz wurde in Tag nicht gefunden." });
  });

  it("a hook's ApiError is not translated", async () => {
    const res = await call(app, "POST", "/api/v1/tags", { label: "x" }, { "accept-language": "fr" });
    assert.deepEqual(await jsonOf(res), { status: 403, body: { error: "Kein Zutritt." } });
  });

  it("a mistake in messages stops start-up with one line", async () => {
    const refusals: [unknown, RegExp][] = [
      [{ de: { "record.notFound": 42 } }, /^TypeError: messages.de\["record.notFound"\] must be a string, got 42$/],
      [
        { de: { "record.notfound": "x" } },
        /^TypeError: messages.de has an unknown key "record.notfound"; did you mean "record.notFound"\?$/,
      ],
      [
        { de: { "no.such.key": "x" } },
        /^TypeError: messages.de has an unknown key "no.such.key"; the keys are those of the English catalog/,
      ],
      [{ de: "Hallo" }, /^TypeError: messages.de must be an object of texts by key, got Hallo$/],
    ];
    for (const [messages, message] of refusals) {
      await assert.rejects(
        createApp({ models: [Tag], messages: messages as never }),
        message,
        JSON.stringify(messages),
      );
    }
  });
});
