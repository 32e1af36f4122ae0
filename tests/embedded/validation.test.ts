import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoBulkWriteError, MongoServerError } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

interface Account {
  _id: number;
  email?: string;
  age?: number;
  [field: string]: unknown;
}

/** Collection validators: query operators and $jsonSchema, with validationLevel and validationAction. */
describe("embedded engine: document validation", () => {
  let conn: Connected;
  let accounts: Collection<Account>;

  before(async () => {
    conn = await connectTarget("validation");
    await conn.db.createCollection("accounts", {
      validator: {
        $jsonSchema: {
          bsonType: "object",
          required: ["email"],
          properties: { email: { bsonType: "string", pattern: "@" }, age: { bsonType: "int", minimum: 0 } },
        },
        age: { $lt: 150 },
      },
    });
    accounts = conn.db.collection<Account>("accounts");
  });
  after(async () => {
    await conn.close();
  });

  async function failure(promise: Promise<unknown>): Promise<MongoServerError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`);
    return error;
  }

  test("a valid document is stored; an invalid insert fails with code 121 and errInfo", async () => {
    await accounts.insertOne({ _id: 1, email: "a@x", age: 30 });
    const error = await failure(accounts.insertOne({ _id: 2, age: 30 }));
    assert.equal(error.code, 121);
    const info = error.errInfo as Document;
    assert.equal(info.failingDocumentId, 2);
    assert.equal(info.details.operatorName, "$and");
    const [clause] = info.details.clausesNotSatisfied;
    assert.equal(clause.index, 0);
    assert.equal(clause.details.operatorName, "$jsonSchema");
    assert.ok(
      clause.details.schemaRulesNotSatisfied.some((r: Document) =>
        r.operatorName === "required" && r.missingProperties.includes("email")
      ),
    );
    assert.equal(await accounts.countDocuments(), 1);
  });

  test("a query-operator clause reports what it compared", async () => {
    const error = await failure(accounts.insertOne({ _id: 3, email: "b@x", age: 200 }));
    const [clause] = (error.errInfo as Document).details.clausesNotSatisfied;
    assert.deepEqual(clause, {
      index: 1,
      details: {
        operatorName: "$lt",
        specifiedAs: { age: { $lt: 150 } },
        reason: "comparison failed",
        consideredValue: 200,
      },
    });
  });

  test("updates, upserts, replacements and findAndModify are validated; a refused one changes nothing", async () => {
    const update = await failure(accounts.updateOne({ _id: 1 }, { $set: { email: "no-at-sign" } }));
    assert.equal(update.code, 121);
    await failure(accounts.replaceOne({ _id: 1 }, { age: 5 }));
    await failure(accounts.updateOne({ _id: 7 }, { $set: { age: 3 } }, { upsert: true }));
    await failure(accounts.findOneAndUpdate({ _id: 1 }, { $unset: { email: "" } }));
    assert.deepEqual(await accounts.find().toArray(), [{ _id: 1, email: "a@x", age: 30 }]);
  });

  test("bypassDocumentValidation lets a write through", async () => {
    await accounts.insertOne({ _id: 4, age: 1 }, { bypassDocumentValidation: true });
    await accounts.updateOne({ _id: 4 }, { $set: { age: 2 } }, { bypassDocumentValidation: true });
    assert.equal((await accounts.findOne({ _id: 4 }))?.age, 2);
  });

  test("an ordered insertMany stops at the first invalid document, reported as a write error", async () => {
    const error = await accounts.insertMany([{ _id: 10, email: "c@x", age: 9 }, { _id: 11 }, {
      _id: 12,
      email: "d@x",
      age: 9,
    }]).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MongoBulkWriteError);
    assert.equal(
      error.writeErrors instanceof Array ? error.writeErrors[0].code : (error.writeErrors as { code: number }).code,
      121,
    );
    assert.equal(await accounts.countDocuments({ _id: { $in: [10, 11, 12] } }), 1);
  });

  test("validationLevel moderate lets an already invalid document be updated; strict does not", async () => {
    await conn.db.command({ collMod: "accounts", validationLevel: "moderate" });
    await accounts.updateOne({ _id: 4 }, { $set: { age: 3 } });
    await failure(accounts.updateOne({ _id: 1 }, { $unset: { email: "" } }));
    await conn.db.command({ collMod: "accounts", validationLevel: "strict" });
    assert.equal((await failure(accounts.updateOne({ _id: 4 }, { $set: { age: 4 } }))).code, 121);
  });

  test("validationAction warn and validationLevel off let invalid documents in", async () => {
    await conn.db.command({ collMod: "accounts", validationAction: "warn" });
    await accounts.insertOne({ _id: 20 });
    await conn.db.command({ collMod: "accounts", validationAction: "error", validationLevel: "off" });
    await accounts.insertOne({ _id: 21 });
    await conn.db.command({ collMod: "accounts", validationLevel: "strict" });
    await failure(accounts.insertOne({ _id: 22 }));
    const [info] = await conn.db.listCollections({ name: "accounts" }).toArray();
    const options = (info as Document).options;
    assert.equal(options.validationLevel, "strict");
    assert.equal(options.validationAction, "error");
    assert.ok(options.validator.$jsonSchema);
  });

  test("$out and $merge into a validated collection are validated", async () => {
    await conn.db.createCollection("strict_out", { validator: { n: { $type: "number" } } });
    const out = await failure(accounts.aggregate([{ $project: { n: "$email" } }, { $out: "strict_out" }]).toArray());
    assert.equal(out.code, 121);
    const merged = await failure(
      accounts.aggregate([{ $project: { n: "$email" } }, { $merge: "strict_out" }]).toArray(),
    );
    assert.equal(merged.code, 121);
    assert.equal(await conn.db.collection("strict_out").countDocuments(), 0);
  });

  test("collMod replaces the validator; an invalid validator or level is refused", async () => {
    await conn.db.createCollection("loose");
    const loose = conn.db.collection<{ _id: number; v: unknown }>("loose");
    await loose.insertOne({ _id: 1, v: "text" });
    await conn.db.command({ collMod: "loose", validator: { v: { $type: "string" } } });
    await failure(loose.insertOne({ _id: 2, v: 3 }));
    await failure(conn.db.command({ collMod: "loose", validationLevel: "sometimes" }));
    await failure(conn.db.command({ collMod: "loose", validator: { $where: "true" } }));
    await failure(conn.db.command({ collMod: "loose", validator: { $jsonSchema: { $ref: "#/x" } } }));
    assert.equal((await failure(conn.db.command({ collMod: "absent", validator: {} }))).code, 26);
  });

  test("$jsonSchema also works as a find filter", async () => {
    const valid = await accounts.find({ $jsonSchema: { required: ["email"] } }).sort({ _id: 1 }).toArray();
    assert.deepEqual(valid.map((d) => d._id), [1, 10]);
  });
});
