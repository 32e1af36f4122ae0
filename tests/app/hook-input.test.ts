import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { date, optional, string } from "superstruct";
import { type App, createApp, defineModel } from "../../src/mod.ts";
import { call, exampleApp, jsonOf, seedUsers } from "../helpers/app.ts";

/** `[[[…1…]]]`, `depth` levels deep, as JSON text (JSON.stringify itself recurses too deep for it). */
const deepArray = (depth: number) => "[".repeat(depth) + "1" + "]".repeat(depth);

/** A JSON object body from members whose values are JSON text already. */
const bodyOf = (members: Record<string, string>) =>
  `{${Object.entries(members).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;

const owner = { "x-user-id": "1" };

// The example Post hooks call String(ctx.body.user_id). Hooks used to run before the body's
// fields were checked, so a hostile user_id reached them: a 10,000-deep array blew the stack
// (a 500 from the posts routes only) and an object without a usable toString threw a TypeError.
describe("before-hooks never see unchecked fields", () => {
  let app: App;
  let postId: number;
  before(async () => {
    app = await exampleApp();
    await seedUsers(app, 1);
    postId = (await jsonOf(await call(app, "POST", "/api/v1/posts", { user_id: 1, title: "Mine" }, owner))).body.id;
  });
  after(() => app?.close());

  const hostile: [string, string, string][] = [
    ["a 10,000-deep array", deepArray(10_000), "is nested more than 100 levels deep."],
    ["an object without a usable toString", '{"toString":1}', "is invalid."],
    ["a string", '"1"', "must be an integer."],
  ];
  for (const [name, value, message] of hostile) {
    test(`a foreign key as ${name} is a 400 on POST, PUT and PATCH of posts, as on comments`, async () => {
      for (
        const [method, path] of [["POST", "/api/v1/posts"], ["PUT", `/api/v1/posts/${postId}`], [
          "PATCH",
          `/api/v1/posts/${postId}`,
        ]]
      ) {
        const res = await jsonOf(await call(app, method, path, bodyOf({ user_id: value, title: '"T"' }), owner));
        assert.deepEqual(
          res,
          { status: 400, body: { errors: { user_id: [`The user_id field ${message}`] } } },
          `${method} ${path}`,
        );
      }
      const comment = await jsonOf(
        await call(app, "POST", "/api/v1/comments", bodyOf({ post_id: value, content: '"C"' })),
      );
      assert.deepEqual(
        comment,
        { status: 400, body: { errors: { post_id: [`The post_id field ${message}`] } } },
        "POST /api/v1/comments",
      );
    });
  }

  test("a body nested past the depth limit in a field the model lacks never reaches a hook", async () => {
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/posts", bodyOf({ user_id: "1", title: '"T"', extra: deepArray(10_000) }), owner),
    );
    assert.deepEqual(res, { status: 400, body: { errors: { extra: ["The extra field is not allowed."] } } });
  });
});

describe("the order: field checks, before-hook, required fields and the hook's changes", () => {
  const Event = defineModel({ name: "Event", fields: { title: string(), at: optional(date()), owner: string() } });
  const seen: Record<string, unknown>[] = [];
  let app: App;
  before(async () => {
    app = await createApp({
      models: [Event],
      hooks: {
        Event: {
          onBeforeInsert(ctx) {
            seen.push({ ...ctx.body });
            ctx.body.owner ??= ctx.request.headers.get("x-owner") ?? undefined;
            if (ctx.request.headers.get("x-break") !== null) ctx.body.title = 42 as never;
          },
          onBeforePatch(ctx) {
            seen.push({ ...ctx.body });
          },
        },
      },
    });
  });
  after(() => app?.close());

  test("a hook sees the sent fields checked and converted (a date as a Date), and may fill a required one", async () => {
    seen.length = 0;
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/events", { title: "Launch", at: "2026-01-02T03:04:05Z" }, { "x-owner": "ann" }),
    );
    assert.equal(res.status, 201);
    assert.equal(res.body.owner, "ann");
    assert.equal(res.body.at, "2026-01-02T03:04:05.000Z");
    assert.deepEqual(seen, [{ title: "Launch", at: new Date("2026-01-02T03:04:05Z") }]);
  });

  test("a field that fails its check is a 400 and the hook is not called", async () => {
    seen.length = 0;
    const res = await jsonOf(await call(app, "POST", "/api/v1/events", { title: 5, nope: 1 }, { "x-owner": "ann" }));
    assert.deepEqual(res, {
      status: 400,
      body: { errors: { nope: ["The nope field is not allowed."], title: ["The title field must be a string."] } },
    });
    assert.deepEqual(seen, []);
  });

  test("a required field neither the client nor the hook fills is a 400 after the hook", async () => {
    seen.length = 0;
    const res = await jsonOf(await call(app, "POST", "/api/v1/events", { title: "No owner" }));
    assert.deepEqual(res, { status: 400, body: { errors: { owner: ["The owner field is required."] } } });
    assert.equal(seen.length, 1);
  });

  test("what a hook writes into the body is checked again", async () => {
    const res = await jsonOf(
      await call(app, "POST", "/api/v1/events", { title: "T" }, { "x-owner": "ann", "x-break": "1" }),
    );
    assert.deepEqual(res, { status: 400, body: { errors: { title: ["The title field must be a string."] } } });
  });

  test("PATCH hooks see only the fields sent, checked", async () => {
    const id = (await jsonOf(await call(app, "POST", "/api/v1/events", { title: "T", owner: "bob" }))).body.id;
    seen.length = 0;
    const res = await jsonOf(await call(app, "PATCH", `/api/v1/events/${id}`, { at: "2026-05-06" }));
    assert.equal(res.status, 200);
    assert.deepEqual(seen, [{ at: new Date("2026-05-06T00:00:00Z") }]);
  });
});
