// deno-lint-ignore-file no-explicit-any -- the document is parsed JSON that the assertions walk
/** The document lists the 409 a DELETE gives while a relation with `onDelete: "restrict"` holds the record. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { string } from "superstruct";
import { createApp, defineModel, id } from "../../src/mod.ts";
import { call } from "../helpers/app.ts";
import { ResponseChecker } from "./checker.ts";

const Owner = defineModel({
  name: "Owner",
  fields: { name: string() },
  softDelete: true,
  relations: {
    pets: { type: "hasMany", model: "Pet", foreignKey: "owner_id", onDelete: "restrict" },
    toys: { type: "hasMany", model: "Toy", foreignKey: "owner_id", onDelete: "cascade" },
  },
});
const Pet = defineModel({ name: "Pet", fields: { owner_id: id(), name: string() }, unique: ["name"] });
const Toy = defineModel({ name: "Toy", fields: { owner_id: id() } });

test("DELETE of a model with a restrict relation lists 409 with the Error schema, and answers it so", async () => {
  const app = await createApp({ models: [Owner, Pet, Toy] });
  try {
    const doc: any = await (await call(app, "GET", "/api/v1/openapi.json")).json();
    assert.deepEqual(await new Validator().validate(doc), { valid: true });
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    for (const path of ["/api/v1/owners/{id}", "/api/v1/owners/{id}/force"]) {
      assert.deepEqual(
        statuses(path, "delete"),
        ["204", "400", "404", "408", "409", "412", "413", "431", "500", "503", "507"],
        path,
      );
      const conflict = doc.paths[path].delete.responses["409"];
      assert.deepEqual(conflict.content["application/json"].schema, { $ref: "#/components/schemas/ErrorBody" });
      assert.match(conflict.description, /\(pets\)/);
    }
    // Neither a cascade nor a unique field makes a DELETE a 409; the unique field's 409 stays on writes.
    assert.ok(!doc.paths["/api/v1/pets/{id}"].delete.responses["409"]);
    assert.ok(!doc.paths["/api/v1/owners/{ownerId}/pets/{id}"].delete.responses["409"]);
    assert.match(doc.paths["/api/v1/pets/{id}"].patch.responses["409"].description, /unique field/);
    assert.ok(!doc.paths["/api/v1/owners/{id}"].patch.responses["409"]);

    await call(app, "POST", "/api/v1/owners", { name: "Ann" });
    await call(app, "POST", "/api/v1/owners/1/pets", { name: "Rex" });
    const refused = await call(app, "DELETE", "/api/v1/owners/1");
    assert.equal(refused.status, 409);
    const checker = new ResponseChecker(doc);
    const problems = checker.check(
      "DELETE",
      "/api/v1/owners/1",
      409,
      refused.headers.get("content-type"),
      await refused.text(),
    );
    assert.deepEqual(problems, []);
  } finally {
    await app.close();
  }
});
