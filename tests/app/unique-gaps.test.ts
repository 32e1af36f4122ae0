/**
 * A unique field that may be left out (or be null) never collides on its absence, as NULLs do
 * not in SQL, and an app that already has the old, all-covering index is moved over at start-up.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { nullable, optional, string } from "superstruct";
import { MongoClient } from "mongodb";
import { type App, createApp, defineModel, email, StartupError } from "../../src/mod.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

const optionalPhone = defineModel({
  name: "Member",
  fields: { name: string(), phone: optional(string()), badge: optional(nullable(string())) },
  unique: ["phone", "badge"],
});

const requiredPhone = defineModel({ name: "Member", fields: { name: string(), phone: string() }, unique: ["phone"] });

async function indexNames(app: App): Promise<string[]> {
  return (await app.db.collection("members").listIndexes().toArray()).map((index) => index.name as string).sort();
}

describe("unique fields a record may leave out", () => {
  const apps: App[] = [];
  after(() => Promise.all(apps.map((app) => app.close())));

  test("many records without the value, or with null where allowed, are fine; a repeated value is 409", async () => {
    const app = await createApp({ models: [optionalPhone] });
    apps.push(app);
    for (const name of ["a", "b"]) {
      assert.equal((await call(app, "POST", "/api/v1/members", { name, badge: null })).status, 201, name);
    }
    assert.equal((await call(app, "POST", "/api/v1/members", { name: "c", phone: "1", badge: "x" })).status, 201);
    for (const body of [{ name: "d", phone: "1" }, { name: "e", badge: "x" }]) {
      const taken = await jsonOf(await call(app, "POST", "/api/v1/members", body));
      assert.equal(taken.status, 409, JSON.stringify(body));
    }
    const dropped = await call(app, "PUT", "/api/v1/members/3", { name: "c" });
    assert.equal(dropped.status, 200, "a PUT that leaves the value out no longer collides with the others");
    assert.deepEqual(await indexNames(app), ["_id_", "badge_unique_if_set", "phone_unique_if_set"]);
  });

  test("an app's old index over every record is replaced, and comes back when the field is required again", async () => {
    const engine = await startEmbeddedEngine();
    const client = new MongoClient(engine.uri);
    /** Starts the app on the shared database, runs `use`, and always closes it, even when `use` fails. */
    const withApp = async (model: typeof requiredPhone, use: (app: App) => Promise<void>): Promise<void> => {
      const app = await createApp({ models: [model], uri: engine.uri, dbName: "shop" });
      try {
        await use(app);
      } finally {
        await app.close();
      }
    };
    try {
      await withApp(requiredPhone, async (app) => assert.deepEqual(await indexNames(app), ["_id_", "phone_unique"]));
      await withApp(optionalPhone, async (app) => {
        assert.equal((await call(app, "POST", "/api/v1/members", { name: "a" })).status, 201);
        assert.equal((await call(app, "POST", "/api/v1/members", { name: "b" })).status, 201);
        assert.deepEqual(await indexNames(app), ["_id_", "badge_unique_if_set", "phone_unique_if_set"]);
      });
      // Two records now share "no phone": making it required and unique again must say so in one line.
      await assert.rejects(
        withApp(requiredPhone, async () => {}),
        (error: unknown) =>
          error instanceof StartupError &&
          /^members\.phone cannot be unique: two records share a value/.test(error.message),
      );
      await client.db("shop").collection("members").deleteOne({ name: "b" });
      await withApp(requiredPhone, async (app) => {
        assert.deepEqual(await indexNames(app), ["_id_", "badge_unique_if_set", "phone_unique"]);
      });
    } finally {
      await client.close();
      await engine.close();
    }
  });
});

describe("case-insensitive uniqueness: a unique index with a collation", () => {
  const Account = defineModel({
    name: "Account",
    fields: { email: email(), name: string() },
    indexes: [{ keys: { email: 1 }, unique: true, collation: { locale: "en", strength: 2 } }],
  });

  test("A@B.CO and a@b.co are one address: the second is a 409 naming the field, on insert and patch", async () => {
    const app = await createApp({ models: [Account] });
    try {
      const indexes = await app.db.collection("accounts").listIndexes().toArray();
      assert.equal(indexes.find((index) => index.key.email === 1)?.collation?.strength, 2);
      assert.equal((await call(app, "POST", "/api/v1/accounts", { email: "Ada@Example.COM", name: "a" })).status, 201);
      const twice = await jsonOf(await call(app, "POST", "/api/v1/accounts", { email: "ada@example.com", name: "b" }));
      assert.deepEqual([twice.status, twice.body], [409, { error: "The email has already been taken." }]);
      assert.equal((await call(app, "POST", "/api/v1/accounts", { email: "bob@example.com", name: "b" })).status, 201);
      const moved = await jsonOf(await call(app, "PATCH", "/api/v1/accounts/3", { email: "ADA@example.com" }));
      assert.equal(moved.status, 409);
      // The address is stored as sent: only the comparison ignores case.
      assert.equal((await jsonOf(await call(app, "GET", "/api/v1/accounts/1"))).body.email, "Ada@Example.COM");
    } finally {
      await app.close();
    }
  });

  test("a collation key the index cannot take stops start-up naming the key", async () => {
    const Wrong = defineModel({
      name: "Wrong",
      fields: { email: email() },
      indexes: [{ keys: { email: 1 }, unique: true, collation: { locale: "en", strenght: 2 } as never }],
    });
    await assert.rejects(createApp({ models: [Wrong] }), /strenght/);
  });
});

describe("ids are unique and increasing, not gapless", () => {
  test("an insert refused with a 409 after its id was drawn leaves that id unused, as the README says", async () => {
    const app = await createApp({ models: [requiredPhone] });
    try {
      assert.equal((await jsonOf(await call(app, "POST", "/api/v1/members", { name: "a", phone: "1" }))).body.id, 1);
      assert.equal((await call(app, "POST", "/api/v1/members", { name: "b", phone: "1" })).status, 409);
      assert.equal((await jsonOf(await call(app, "POST", "/api/v1/members", { name: "c", phone: "2" }))).body.id, 3);
    } finally {
      await app.close();
    }
  });
});
