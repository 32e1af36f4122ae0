import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { string } from "superstruct";
import { type AppOptions, createApp, defineModel, type ModelDefinition } from "../../src/mod.ts";

const base = { name: "Note", fields: { text: string() } };

function refused(def: unknown, message: RegExp): void {
  assert.throws(
    () => defineModel(def as ModelDefinition),
    (error: unknown) => error instanceof TypeError && message.test(error.message),
  );
}

/** createApp must refuse `options`; an app it opened anyway is closed, so a failing run still ends. */
async function refusedApp(options: unknown, message: RegExp): Promise<void> {
  let app;
  try {
    app = await createApp(options as AppOptions);
  } catch (error) {
    assert.match(String(error), message);
    return;
  }
  await app.close();
  assert.fail(`createApp accepted ${Object.keys(options as object).join(", ")}`);
}

describe("definitions refuse keys they do not know", () => {
  test("an Axe option in defineModel names the key, the model and the allowed keys", () => {
    refused(
      { ...base, limits: [] },
      /^Model Note: unknown key "limits"; allowed keys: name, fields, hidden, relations, .*descriptions, loadable, serialize, cache, queryTimeMs, params, access$/,
    );
    refused({ ...base, rateLimit: { max: 10 } }, /^Model Note: unknown key "rateLimit"/);
  });

  test("in a relation, in handlers and in an index", () => {
    const relations = { notes: { type: "hasMany", model: "Note", foreignKey: "note_id", primaryKey: "id" } };
    refused(
      { ...base, relations },
      /^Model Note, relation notes: unknown key "primaryKey"; allowed keys: type, model, foreignKey, routes, sort, filter, limit, onDelete$/,
    );
    refused(
      { ...base, handlers: { all: true } },
      /^Model Note, handlers: unknown key "all"; allowed keys: paginate, show, insert, update, patch, delete$/,
    );
    refused(
      { ...base, indexes: [{ keys: { text: 1 }, sparse: true }] },
      /^Model Note, indexes\[0\]: unknown key "sparse"/,
    );
  });

  test("a definition that is not an object, or fields that are not, stop start-up", () => {
    refused(null, /defineModel takes an object/);
    refused({ name: "Note", fields: [] }, /^Model Note: fields must be an object/);
  });

  test("known keys still define a model", () => {
    assert.equal(defineModel({ ...base, handlers: { delete: false }, softDelete: true }).name, "Note");
  });

  test("createApp refuses unknown options before it connects", async () => {
    const Note = defineModel(base);
    await refusedApp(
      { models: [Note], serializers: true },
      /^TypeError: createApp options: unknown key "serializers"; allowed keys: models, hooks, .*health, serialize, auth$/,
    );
    await refusedApp(
      { models: [Note], hooks: { Note: { onBeforeInsert: "yes" } } },
      /Hooks of model Note: onBeforeInsert must be a function/,
    );
  });

  test("a hook name createApp does not know lists every hook, force-delete and relation hooks included", async () => {
    const Note = defineModel(base);
    await refusedApp(
      { models: [Note], hooks: { Note: { onBeforeAll: () => {} } } },
      /^TypeError: Hooks of model Note: unknown key "onBeforeAll"; allowed keys: onBeforePaginate, .*onAfterDelete, onBeforeForceDelete, onAfterForceDelete, onBeforeRelation$/,
    );
  });
});
