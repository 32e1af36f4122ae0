// deno-lint-ignore-file no-explicit-any -- the document is parsed JSON that the assertions walk
/** Names in the OpenAPI document: operation ids are unique, component schema names never clash. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { string } from "superstruct";
import { type AppOptions, createApp, defineModel, id } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";

const User = defineModel({
  name: "User",
  fields: { name: string() },
  relations: { posts: { type: "hasMany", model: "Post", foreignKey: "user_id" } },
});
const Post = defineModel({ name: "Post", fields: { user_id: id(), title: string() } });
const UserPost = defineModel({ name: "UserPost", fields: { note: string() } });

/** createApp's refusal; an app that starts after all is closed, so a failing test does not hang. */
async function refusal(options: AppOptions): Promise<Error> {
  try {
    await (await createApp(options)).close();
  } catch (error) {
    return error as Error;
  }
  throw new assert.AssertionError({ message: "createApp started" });
}

test("every operation id is unique, even when a model is named like a nested route (UserPost)", async () => {
  const app = await createApp({ models: [User, Post, UserPost] });
  try {
    const doc = await (await call(app, "GET", "/api/v1/openapi.json")).json();
    const ids = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    assert.equal(new Set(ids).size, ids.length, `duplicates in ${ids.join(", ")}`);
    // The model keeps its ids; the nested route takes the `_`-joined ones, the same on every start.
    assert.equal(doc.paths["/api/v1/user-posts"].get.operationId, "listUserPosts");
    assert.equal(doc.paths["/api/v1/users/{userId}/posts"].get.operationId, "listUser_Posts");
    assert.equal(doc.paths["/api/v1/users/{userId}/posts/{id}"].get.operationId, "showUser_Post");
    // Without the clash, the nested ids are as they were.
    assert.equal(doc.paths["/api/v1/posts"].get.operationId, "listPosts");
    assert.deepEqual(await new Validator().validate(doc), { valid: true });
  } finally {
    await app.close();
  }
});

test("a model named like a built-in schema stops start-up with one line naming both", async () => {
  const ErrorModel = defineModel({ name: "ErrorBody", fields: { message: string() } });
  const error = await refusal({ models: [ErrorModel] });
  assert.ok(error instanceof TypeError);
  assert.match(
    error.message,
    /^OpenAPI schema name ErrorBody would be used twice, by the built-in schema .* model ErrorBody's records/,
  );
  const Pagination = defineModel({ name: "Pagination", fields: { size: string() } });
  assert.match((await refusal({ models: [Pagination] })).message, /schema name Pagination would be used twice/);
});

test("two models' schema names that clash (User's page and a UserPage model) stop start-up naming both", async () => {
  const UserPage = defineModel({ name: "UserPage", fields: { url: string() } });
  const error = await refusal({ models: [User, Post, UserPage] });
  assert.ok(error instanceof TypeError);
  assert.match(
    error.message,
    /by model User's list pages and by model UserPage's records: rename model User or UserPage/,
  );
});

test("the built-in schemas are named so that no generated client declares them over a global", async () => {
  const app = await createApp({ models: [User, Post] });
  try {
    const doc = await (await call(app, "GET", "/api/v1/openapi.json")).json();
    const builtIn = Object.keys(doc.components.schemas).filter((name) => !/^(User|Post)/.test(name));
    assert.deepEqual(builtIn.sort(), ["ErrorBody", "InternalErrorBody", "Pagination", "ValidationErrors"]);
    // Error, InternalError (SpiderMonkey's) and the like are globals: hey-api would shadow them.
    for (const name of builtIn) assert.equal(name in globalThis, false, name);
    const Error = defineModel({ name: "Error", fields: { message: string() } });
    const withErrors = await createApp({ models: [Error] });
    await withErrors.close();
  } finally {
    await app.close();
  }
});

test("with docs: false there is no document, so such names are fine", async () => {
  const ErrorModel = defineModel({ name: "Error", fields: { message: string() } });
  const app = await createApp({ models: [ErrorModel], docs: false });
  try {
    assert.equal((await call(app, "POST", "/api/v1/errors", { message: "m" })).status, 201);
  } finally {
    await app.close();
  }
});
