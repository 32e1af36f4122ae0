/**
 * How a `with` level of a hasMany/hasOne relation reads, depending on the related model's
 * indexes: per parent (a `$lookup` whose sub-pipeline sorts and limits) when an index starts
 * with the foreign key, else in one scan of the related collection ranked per parent. Both
 * give the same children, and a child whose foreign key is an array (data written around the
 * API) never takes a parent's place under the cap.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { string, unknown as anyValue } from "superstruct";
import type { CommandStartedEvent, Document } from "mongodb";
import { createApp, defineModel } from "../../src/mod.ts";
import { call, jsonOf } from "../helpers/app.ts";

/** Owner → pets (hasMany, limit 2) and licence (hasOne), with or without an index on owner_id. */
function models(indexed: boolean) {
  const indexes = indexed ? [{ keys: { owner_id: 1, _id: 1 } as Record<string, 1 | -1> }] : [];
  const Owner = defineModel({
    name: "Owner",
    fields: { name: string() },
    relations: {
      licence: { type: "hasOne", model: "Licence", foreignKey: "owner_id" },
      pets: { type: "hasMany", model: "Pet", foreignKey: "owner_id", limit: 2 },
    },
  });
  const Licence = defineModel({ name: "Licence", fields: { owner_id: anyValue(), number: string() }, indexes });
  const Pet = defineModel({ name: "Pet", fields: { owner_id: anyValue(), name: string() }, indexes });
  return [Owner, Licence, Pet];
}

for (const indexed of [true, false]) {
  const label = indexed ? "with an index on the foreign key" : "without an index on the foreign key";

  test(`${label}: a child whose foreign key is an array takes no parent's place`, async () => {
    const app = await createApp({ models: models(indexed) });
    try {
      await call(app, "POST", "/api/v1/owners", { name: "Ann" });
      // Written first, so by id they would come first: an array joins no parent (arrays never attach).
      await call(app, "POST", "/api/v1/licences", { owner_id: [1, 99], number: "ARRAY" });
      await call(app, "POST", "/api/v1/licences", { owner_id: 1, number: "L-1" });
      for (const name of ["array-1", "array-2"]) await call(app, "POST", "/api/v1/pets", { owner_id: [1], name });
      for (const name of ["Rex", "Fido"]) await call(app, "POST", "/api/v1/pets", { owner_id: 1, name });
      const shown = await jsonOf(await call(app, "GET", "/api/v1/owners/1?with=licence{number},pets{name}"));
      assert.equal(shown.status, 200);
      assert.deepEqual(shown.body.licence, { number: "L-1" });
      assert.deepEqual(shown.body.pets, [{ name: "Rex" }, { name: "Fido" }]);
    } finally {
      await app.close();
    }
  });

  test(`${label}: the level is one aggregate, ${indexed ? "read per parent" : "one scan of the pets"}`, async () => {
    const app = await createApp({
      models: models(indexed),
      responseCache: false,
      clientOptions: { monitorCommands: true },
    });
    const sent: Document[] = [];
    app.client.on("commandStarted", (event: CommandStartedEvent) => {
      const { commandName, command } = event;
      if (commandName === "aggregate" && !command.pipeline.some((stage: Document) => "$group" in stage)) {
        sent.push(structuredClone(command));
      }
    });
    try {
      const owners = Array.from({ length: 30 }, (_, i) => ({ _id: i + 1, name: `o${i + 1}` }));
      await app.db.collection("owners").insertMany(owners as never[]);
      // 100 pets for each of the 30 owners, and 1,000 of owners not on the page.
      const pets = Array.from({ length: 4000 }, (_, i) => ({ _id: i + 1, owner_id: 1 + (i % 40), name: `p${i}` }));
      await app.db.collection("pets").insertMany(pets as never[]);
      const page = await jsonOf(await call(app, "GET", "/api/v1/owners?per_page=30&with=pets{name}"));
      assert.equal(page.status, 200);
      assert.equal(page.body.data.length, 30);
      for (const owner of page.body.data) assert.equal(owner.pets.length, 2);
      assert.equal(sent.length, 1, "one aggregate for the level");
      const explained = await app.db.command({
        explain: { aggregate: sent[0].aggregate, pipeline: sent[0].pipeline, cursor: {} },
        verbosity: "executionStats",
      });
      const lookup = (explained.stages as Document[] | undefined)?.find((stage) => "$lookup" in stage);
      if (indexed) {
        assert.equal(sent[0].aggregate, "owners");
        assert.ok(lookup, "a $lookup from the owners");
        assert.equal(lookup.collectionScans, 0);
        assert.ok(lookup.totalKeysExamined <= 30 * 3, `keys examined: ${lookup.totalKeysExamined}`);
      } else {
        // A $lookup here would scan the 4,000 pets once per owner (120,000 documents).
        assert.equal(sent[0].aggregate, "pets");
        assert.equal(lookup, undefined);
        const cursor = (explained.stages as Document[])[0].$cursor.executionStats;
        assert.ok(cursor.totalDocsExamined <= 4000, `documents examined: ${cursor.totalDocsExamined}`);
      }
    } finally {
      await app.close();
    }
  });
}
