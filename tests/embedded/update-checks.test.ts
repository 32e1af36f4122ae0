import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Collection, type Document, MongoServerError, Timestamp } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Doc = { _id: number; [field: string]: unknown };

const ORIGINAL = { _id: 1, text: "x", n: 1, list: [1, 2], doc: { a: 1 }, nothing: null };

/**
 * Updates MongoDB refuses on a document's current types are refused with its error and write
 * nothing, where the engine used to acknowledge them with "0 modified" (or, for `$rename`,
 * drop the source field).
 */
describe("embedded engine: updates that cannot apply to the document", () => {
  let conn: Connected;
  let docs: Collection<Doc>;

  before(async () => {
    conn = await connectTarget("update_checks");
    docs = conn.db.collection<Doc>("docs");
    await docs.insertOne({ ...ORIGINAL });
  });
  after(async () => {
    await conn.close();
  });

  const refused = async (update: Document, code: number, message: string) => {
    await assert.rejects(docs.updateOne({ _id: 1 }, update), (e: MongoServerError) => {
      assert.equal(e.code, code, `${JSON.stringify(update)}: ${e.message}`);
      assert.equal(e.message, message);
      return true;
    });
    assert.deepEqual(await docs.findOne({ _id: 1 }), ORIGINAL, `${JSON.stringify(update)} wrote nothing`);
  };

  test("$inc and $mul of a non-number, or by a non-number", async () => {
    await refused(
      { $inc: { text: 1 } },
      14,
      "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'text' of non-numeric type string",
    );
    await refused(
      { $mul: { doc: 2 } },
      14,
      "Cannot apply $mul to a value of non-numeric type. {_id: 1} has the field 'doc' of non-numeric type object",
    );
    await refused({ $inc: { n: "1" } }, 14, 'Cannot increment with non-numeric argument: {n: "1"}');
  });

  test("array operators on a field that is not an array", async () => {
    await refused(
      { $push: { text: 1 } },
      2,
      "The field 'text' must be an array but is of type string in document {_id: 1}",
    );
    await refused(
      { $addToSet: { n: 1 } },
      2,
      "The field 'n' must be an array but is of type int in document {_id: 1}",
    );
    await refused({ $pop: { doc: 1 } }, 14, "Path 'doc' contains an element of non-array type 'object'");
    await refused({ $pull: { text: "x" } }, 2, "Cannot apply $pull to a non-array value");
    await refused({ $pullAll: { n: [1] } }, 2, "Cannot apply $pull to a non-array value");
  });

  test("a field created inside a value that is not a document", async () => {
    await refused({ $set: { "text.inner": 1 } }, 28, `Cannot create field 'inner' in element {text: "x"}`);
    await refused({ $inc: { "nothing.count": 1 } }, 28, "Cannot create field 'count' in element {nothing: null}");
    await refused({ $set: { "list.name": 1 } }, 28, "Cannot create field 'name' in element {list: [ 1, 2 ]}");
    await refused({ $rename: { n: "text.n" } }, 28, `Cannot create field 'n' in element {text: "x"}`);
  });

  test("malformed updates: unknown operators, empty or $-prefixed field names, $pop and $rename arguments", async () => {
    const malformed: [Document, number, string][] = [
      [
        { $inc: { n: 1 }, $foo: { n: 1 } },
        9,
        "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array",
      ],
      [
        { $set: 5 },
        9,
        "Modifiers operate on fields but we found type int instead. For example: {$mod: {<field>: ...}} not {$set: 5}",
      ],
      [{ $pop: { list: 2 } }, 9, "$pop expects 1 or -1, found: 2"],
      [{ $set: { "doc..a": 1 } }, 56, "The update path 'doc..a' contains an empty field name, which is not allowed."],
      [{ $set: { "doc.": 1 } }, 56, "The update path 'doc.' contains an empty field name, which is not allowed."],
      [{ $unset: { "": 1 } }, 56, "An empty update path is not valid."],
      [{ $set: { "doc.$a": 1 } }, 52, "The dollar ($) prefixed field '$a' in 'doc.$a' is not valid for storage."],
      [{ $rename: { n: "n" } }, 2, 'The source and target field for $rename must differ: n: "n"'],
      [
        { $rename: { doc: "doc.a" } },
        2,
        'The source and target field for $rename must not be on the same path: doc: "doc.a"',
      ],
      [{ $rename: { "list.$": "x" } }, 2, 'The source field for $rename may not be dynamic: list.$: "x"'],
      [
        { $rename: { "list.0": "x" } },
        2,
        "The source field cannot be an array element, 'list.0' in doc with { _id: 1, text: \"x\", n: 1, list: [ 1, 2 ], doc: { a: 1 }, ... }",
      ],
    ];
    for (const [update, code, message] of malformed) await refused(update, code, message);
  });

  test("$currentDate writes a Timestamp when asked for one, later on each update", async () => {
    const stamps = conn.db.collection<Doc>("stamps");
    await stamps.insertOne({ _id: 1 });
    const stamp = async () => {
      await stamps.updateOne({ _id: 1 }, { $currentDate: { at: { $type: "timestamp" }, on: true } } as Document);
      return await stamps.findOne({ _id: 1 }) as Document;
    };
    const first = await stamp();
    const second = await stamp();
    assert.ok(first.at instanceof Timestamp && second.at instanceof Timestamp, `at: ${first.at}`);
    assert.ok(second.at.greaterThan(first.at), `${second.at} after ${first.at}`);
    assert.ok(first.on instanceof Date);
  });

  test("what MongoDB accepts still applies: missing fields, array positions, removals of nothing", async () => {
    const other = conn.db.collection<Doc>("accepted");
    await other.insertOne({ ...ORIGINAL });
    await other.updateOne({ _id: 1 }, {
      $inc: { fresh: 2, "doc.b": 1 },
      $set: { "list.1": 5, "deep.path": true },
      $unset: { "text.inner": "" },
      $push: { newList: 1 },
    } as Document);
    assert.deepEqual(await other.findOne({ _id: 1 }), {
      ...ORIGINAL,
      list: [1, 5],
      doc: { a: 1, b: 1 },
      fresh: 2,
      deep: { path: true },
      newList: [1],
    });
  });
});
