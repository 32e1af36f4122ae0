/**
 * Records left under the collection name mongorest 0.1.0 derived (`Person` → `persons`, now
 * `people`): start-up stops with one line instead of serving an empty collection over them.
 * Through the real driver, on the embedded engine.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { MongoClient } from "mongodb";
import { string } from "superstruct";
import { createApp, defineModel, type ModelDefinition } from "../../src/mod.ts";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { call } from "../helpers/app.ts";

const person = (overrides: Partial<ModelDefinition> = {}) =>
  defineModel({ name: "Person", fields: { name: string() }, ...overrides });

describe("records under a formerly derived collection name", async () => {
  const engine = await startEmbeddedEngine();
  const client = await new MongoClient(engine.uri).connect();
  after(async () => {
    await client.close();
    await engine.close();
  });
  let databases = 0;
  /** A fresh database, with `persons` holding `records` when given. */
  const database = async (collections: Record<string, number>): Promise<string> => {
    const dbName = `former_${++databases}`;
    for (const [name, records] of Object.entries(collections)) {
      await client.db(dbName).createCollection(name);
      for (let id = 1; id <= records; id++) {
        const at = new Date(Date.UTC(2026, 0, id));
        await client.db(dbName).collection(name).insertOne(
          { _id: id, name: `Person ${id}`, created_at: at, updated_at: at } as never,
        );
      }
    }
    return dbName;
  };
  const collectionsOf = async (dbName: string): Promise<string[]> =>
    (await client.db(dbName).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

  it("refuses to start, naming both collections and the settings that keep the old names", async () => {
    const dbName = await database({ persons: 2 });
    await assert.rejects(
      createApp({ models: [person()], uri: engine.uri, dbName }),
      (error: Error) => {
        assert.equal(
          error.message,
          'Model Person: its records are in collection "persons", the name mongorest 0.1.0 derived, but since 0.2.0 its ' +
            'collection is "people". Set collection: "persons" (and route: "persons" to keep its URLs) in the ' +
            'model, or rename the collection to "people"',
        );
        assert.ok(!error.message.includes("\n"));
        return true;
      },
    );
    assert.ok(!(await collectionsOf(dbName)).includes("people"), "nothing was created under the new name");
  });

  it("starts on the old collection when the model names it, with the new route or the old one", async () => {
    const dbName = await database({ persons: 2 });
    const renamedRoute = await createApp({ models: [person({ collection: "persons" })], uri: engine.uri, dbName });
    try {
      const list = await (await call(renamedRoute, "GET", "/api/v1/people")).json();
      assert.deepEqual(list.data.map((record: { name: string }) => record.name), ["Person 1", "Person 2"]);
      assert.equal((await call(renamedRoute, "GET", "/api/v1/persons")).status, 404);
    } finally {
      await renamedRoute.close();
    }
    const oldRoute = await createApp({
      models: [person({ collection: "persons", route: "persons" })],
      uri: engine.uri,
      dbName,
    });
    try {
      assert.equal((await (await call(oldRoute, "GET", "/api/v1/persons/2")).json()).name, "Person 2");
    } finally {
      await oldRoute.close();
    }
  });

  it("starts when the old collection is empty, or once the new one exists", async () => {
    const cases: Record<string, number>[] = [{ persons: 0 }, { persons: 1, people: 1 }, {}];
    for (const collections of cases) {
      const dbName = await database(collections);
      const app = await createApp({ models: [person()], uri: engine.uri, dbName });
      try {
        const list = await (await call(app, "GET", "/api/v1/people")).json();
        assert.equal(list.pagination.total, "people" in collections ? 1 : 0, JSON.stringify(collections));
      } finally {
        await app.close();
      }
    }
  });

  it("with only the route set, the message leaves the route out", async () => {
    const dbName = await database({ persons: 1 });
    await assert.rejects(
      createApp({ models: [person({ route: "folks" })], uri: engine.uri, dbName }),
      /Set collection: "persons" in the model, or rename the collection to "people"$/,
    );
  });
});
