// deno-lint-ignore-file no-explicit-any -- the document is parsed JSON that the assertions walk
/**
 * The document follows what the server does for less common models: serializers, hidden
 * unique fields, `q` examples by field kind and `filterable`, and the date forms a body may send.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { array, boolean, date, object, optional, string } from "superstruct";
import { type App, type AppOptions, createApp, defineModel, email, id } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";
import { type OpenApiDocument, ResponseChecker } from "./checker.ts";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

async function withApp(options: AppOptions, body: (app: App, doc: OpenApiDocument) => Promise<void>): Promise<void> {
  const app = await createApp(options);
  try {
    await body(app, await (await call(app, "GET", "/api/v1/openapi.json")).json());
  } finally {
    await app.close();
  }
}

/** Sends a request and checks its status and body against the document. */
async function expect(
  app: App,
  checker: ResponseChecker,
  method: string,
  path: string,
  status: number,
  body?: unknown,
) {
  const response = await call(app, method, path, body);
  const text = await response.text();
  assert.equal(response.status, status, `${method} ${path}: ${text}`);
  const problems = checker.check(method, path.split("?")[0], status, response.headers.get("content-type"), text);
  assert.deepEqual(problems, [], `${method} ${path}`);
  return text;
}

const Account = defineModel({
  name: "Account",
  fields: { email: email(), api_key: optional(string()) },
  hidden: ["api_key"],
  unique: ["api_key"],
  relations: { notes: { type: "hasMany", model: "Note", foreignKey: "account_id" } },
});
const Note = defineModel({
  name: "Note",
  fields: { account_id: id(), title: string() },
  relations: { account: { type: "belongsTo", model: "Account", foreignKey: "account_id" } },
  serialize: (record) => ({ ...record, shout: String(record.title ?? "").toUpperCase() }),
});

test("a model's serializer opens its record schemas, loaded through `with` too; others stay closed", async () => {
  await withApp({ models: [Account, Note] }, async (app, doc) => {
    const schemas = doc.components.schemas;
    assert.equal(schemas.Note.additionalProperties, undefined);
    assert.equal(schemas.NoteRelated.additionalProperties, undefined);
    assert.equal(schemas.Account.additionalProperties, false);
    const checker = new ResponseChecker(doc);
    await expect(app, checker, "POST", "/api/v1/accounts", 201, { email: "a@example.com" });
    assert.match(await expect(app, checker, "POST", "/api/v1/notes", 201, { account_id: 1, title: "n" }), /shout/);
    await expect(app, checker, "GET", "/api/v1/notes/1?with=account", 200);
    await expect(app, checker, "GET", "/api/v1/accounts/1?with=notes", 200);
    await expect(app, checker, "GET", "/api/v1/accounts/1/notes", 200);
  });
});

test("an app-wide serializer opens every record schema", async () => {
  const serialize = (record: Record<string, unknown>) => ({ ...record, kind: "extra" });
  await withApp({ models: [Account, Note], serialize }, async (app, doc) => {
    for (const name of ["Account", "AccountRelated", "Note", "NoteRelated"]) {
      assert.equal(doc.components.schemas[name].additionalProperties, undefined, name);
    }
    const checker = new ResponseChecker(doc);
    await expect(app, checker, "POST", "/api/v1/accounts", 201, { email: "a@example.com" });
    await expect(app, checker, "GET", "/api/v1/accounts?with=notes", 200);
  });
});

test("a hidden unique field documents 409 without naming the field", async () => {
  await withApp({ models: [Account, Note] }, async (app, doc) => {
    const conflict = doc.paths["/api/v1/accounts"].post.responses["409"];
    assert.ok(conflict);
    assert.doesNotMatch(conflict.description, /api_key/);
    assert.ok(doc.paths["/api/v1/accounts/{id}"].patch.responses["409"]);
    const checker = new ResponseChecker(doc);
    await expect(app, checker, "POST", "/api/v1/accounts", 201, { email: "a@example.com", api_key: "k" });
    await expect(app, checker, "POST", "/api/v1/accounts", 409, { email: "b@example.com", api_key: "k" });
  });
});

const first = (name: string, field: any, extra: Record<string, unknown> = {}) =>
  defineModel({ name, fields: { first: field, other: optional(string()) }, ...extra });

test("the q equals example uses a filterable field and a value of its kind, and the server takes it", async () => {
  const models = [
    first("Flag", boolean()),
    first("Birth", date()),
    first("Tagging", array(string())),
    first("Shape", object({ a: string() })),
    defineModel({ name: "Member", fields: { email: email(), name: string() }, filterable: ["name"] }),
  ];
  const expected: Record<string, unknown> = {
    flags: { first: true },
    births: { first: "2026-01-02" },
    taggings: { other: "Karl" },
    shapes: { other: "Karl" },
    members: { name: "Karl" },
  };
  await withApp({ models }, async (app, doc) => {
    for (const [route, example] of Object.entries(expected)) {
      const q = doc.paths[`/api/v1/${route}`].get.parameters.find((p: any) => p.name === "q");
      assert.deepEqual(JSON.parse(q.examples.equals.value), example, route);
      const response = await call(app, "GET", `/api/v1/${route}?q=${encodeURIComponent(q.examples.equals.value)}`);
      assert.equal(response.status, 200, `${route}: ${await response.text()}`);
    }
  });
});

test("a date field's body schema takes exactly the forms the server reads; responses carry date-times", async () => {
  const Event = defineModel({ name: "Event", fields: { at: date() } });
  await withApp({ models: [Event] }, async (app, doc) => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const valid = ajv.compile(doc.components.schemas.EventInput);
    const accepted = ["2020-01-02", "2020-01-02T03:04", "2020-01-02T03:04:05.123456789+02:00", "2020-01-02T03:04:05Z"];
    const refused = ["2020-01-02t03:04:05z", "2020-01-02T03:04:05.1234567891Z", "2016-12-31T23:59:60Z", "2020-13-01"];
    for (const at of [...accepted, ...refused]) {
      const response = await call(app, "POST", "/api/v1/events", { at });
      await response.body?.cancel();
      assert.equal(valid({ at }), accepted.includes(at), `schema on ${at}`);
      assert.equal(response.status, accepted.includes(at) ? 201 : 400, `server on ${at}`);
    }
    assert.equal(doc.components.schemas.Event.properties.at.format, "date-time");
  });
});

test("an optional field's body schema takes null, the server's 'no value', and a required one's does not", async () => {
  const Profile = defineModel({ name: "Profile", fields: { name: string(), bio: optional(string()) } });
  await withApp({ models: [Profile] }, async (app, doc) => {
    const schemas = doc.components!.schemas as Record<string, any>;
    for (const schema of ["ProfileInput", "ProfilePatch"]) {
      assert.deepEqual(schemas[schema].properties.bio.type, ["string", "null"], schema);
      assert.equal(schemas[schema].properties.name.type, "string", schema);
    }
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const validInput = ajv.compile(schemas.ProfileInput);
    assert.equal(validInput({ name: "Ada", bio: null }), true);
    assert.equal(validInput({ name: null }), false);
    const created = await call(app, "POST", "/api/v1/profiles", { name: "Ada", bio: null });
    assert.equal(created.status, 201);
    const refused = await call(app, "POST", "/api/v1/profiles", { name: null });
    assert.equal(refused.status, 400);
  });
});
