import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BSONRegExp, type Collection, type Document } from "mongodb";
import { type Connected, connectTarget, withCode } from "./helpers.ts";

interface Row {
  _id: number;
  s: string;
  tags?: string[];
}

/**
 * Regular expressions read as MongoDB (PCRE) reads them, in filters, `$match`, `$pull`, array
 * filters and the `$regex…` expressions.
 */
describe("embedded engine: regular expressions", () => {
  let conn: Connected;
  let rows: Collection<Row>;

  before(async () => {
    conn = await connectTarget("regex");
    rows = conn.db.collection<Row>("rows");
    await rows.insertMany([
      { _id: 1, s: "foo" },
      { _id: 2, s: "foo" },
      { _id: 3, s: "foo" },
      { _id: 4, s: "a\nb" },
      { _id: 5, s: "héllo wörld 😀x😀" },
    ]);
  });
  after(() => conn.close());

  const ids = async (filter: Document) => (await rows.find(filter).sort({ _id: 1 }).toArray()).map((r) => r._id);
  const matched = async (filter: Document) =>
    (await rows.aggregate([{ $match: filter }, { $sort: { _id: 1 } }]).toArray()).map((r) => r._id);
  const evaluate = async (expression: Document) => {
    const [row] = await rows.aggregate([{ $match: { _id: 5 } }, { $project: { _id: 0, r: expression } }]).toArray();
    return row.r;
  };

  test("a BSON regex's s option lets . match a newline, and the regex matches every document it should", async () => {
    // The bson library decodes the option s as JavaScript's g: the dot stopped at newlines, and a
    // global regex resumed from its last match, so $in skipped every other matching document.
    assert.deepEqual(await ids({ s: new BSONRegExp("a.b", "s") }), [4]);
    assert.deepEqual(await ids({ s: { $in: [new BSONRegExp("^fo", "s")] } }), [1, 2, 3]);
    assert.deepEqual(await ids({ s: { $nin: [new BSONRegExp("^fo", "s")] } }), [4, 5]);
    assert.deepEqual(await ids({ s: { $not: new BSONRegExp("^fo", "s") } }), [4, 5]);
    assert.deepEqual(await matched({ s: { $in: [new BSONRegExp("^fo", "s")] } }), [1, 2, 3]);
    assert.deepEqual(await ids({ s: { $regex: new BSONRegExp("A.B", "is") } }), [4]);
    assert.equal(await rows.countDocuments({ s: { $in: [new BSONRegExp("o$", "s")] } }), 3);
  });

  test("$options x ignores whitespace and comments, in find and in $match", async () => {
    assert.deepEqual(await ids({ s: { $regex: "^f o o # the word", $options: "x" } }), [1, 2, 3]);
    assert.deepEqual(await matched({ s: { $regex: "W ö # c", $options: "xi" } }), [5]);
    assert.deepEqual(await ids({ s: { $regex: "^[ ]?a", $options: "x" } }), [4]);
  });

  test("PCRE syntax JavaScript lacks: \\A, \\z, \\Q…\\E, POSIX classes, leading (?i), \\p{Script}", async () => {
    assert.deepEqual(await ids({ s: { $regex: "\\Ab", $options: "m" } }), []);
    assert.deepEqual(await ids({ s: { $regex: "^b", $options: "m" } }), [4]);
    assert.deepEqual(await ids({ s: { $regex: "a\\z" } }), []);
    assert.deepEqual(await ids({ s: { $regex: "b\\z" } }), [4]);
    assert.deepEqual(await ids({ s: { $regex: "^\\Qa\nb\\E$" } }), [4]);
    assert.deepEqual(await ids({ s: { $regex: "^[[:alpha:]]+$" } }), [1, 2, 3]);
    assert.deepEqual(await ids({ s: { $regex: "(?i)^FOO$" } }), [1, 2, 3]);
    assert.deepEqual(await ids({ s: { $regex: "^\\p{Latin}+ " } }), [5]);
  });

  test("PCRE's meanings where JavaScript's differ: $ before a final newline, ., \\s, \\h, \\v, \\x{…}", async () => {
    const texts = conn.db.collection<Row>("texts");
    await texts.insertMany([
      { _id: 1, s: "foo\n" },
      { _id: 2, s: "a\rb" },
      { _id: 3, s: "a\u00a0b" },
      { _id: 4, s: "abc-1" },
      { _id: 5, s: "p{L}-1" },
      { _id: 6, s: "2024-01" },
      { _id: 7, s: "x\ty" },
    ]);
    const textIds = async (filter: Document) => (await texts.find(filter).sort({ _id: 1 }).toArray()).map((r) => r._id);
    assert.deepEqual(await textIds({ s: { $regex: "^foo$" } }), [1]);
    assert.deepEqual(await textIds({ s: { $regex: "^foo\\z" } }), []);
    assert.deepEqual(await textIds({ s: { $regex: "^a.b$" } }), [2, 3]);
    assert.deepEqual(await textIds({ s: { $regex: "^a\\sb$" } }), [2]);
    assert.deepEqual(await textIds({ s: { $regex: "^x\\hy$" } }), [7]);
    assert.deepEqual(await textIds({ s: { $regex: "^foo\\v$" } }), [1]);
    // \\- is a plain "-" in PCRE; it must not cost \\p its meaning.
    assert.deepEqual(await textIds({ s: { $regex: "^\\p{L}+\\-\\d" } }), [4]);
    assert.deepEqual(await textIds({ s: { $regex: "^[[:alpha:]]+\\x{2d}" } }), [4]);
    assert.deepEqual(await textIds({ s: { $regex: "^\\Q2024-01\\E$" } }), [6]);
    assert.deepEqual(await textIds({ s: { $regex: "^\\w{3}(?#a comment)-" } }), [4]);
    await assert.rejects(texts.find({ s: { $regex: "a\\Kb" } }).toArray(), withCode(51091));
    await assert.rejects(texts.find({ s: { $regex: "\\p{Xan}" } }).toArray(), withCode(51091));
  });

  test("an index does not bound an alternation by its first branch", async () => {
    const words = conn.db.collection<Row>("words");
    await words.insertMany([{ _id: 1, s: "apple" }, { _id: 2, s: "cherry" }, { _id: 3, s: "banana" }]);
    await words.createIndex({ s: 1 });
    const found = (await words.find({ s: { $regex: "^a|b" } }).sort({ _id: 1 }).toArray()).map((r) => r._id);
    assert.deepEqual(found, [1, 3]);
  });

  test("regexes in positional projections and $all's $elemMatch are read the same way", async () => {
    const lists = conn.db.collection<Row>("projected");
    await lists.insertMany([{ _id: 1, s: "", tags: ["zz", "AB"] }, { _id: 2, s: "", tags: ["ab"] }]);
    const projected = await lists.find({ tags: { $regex: "^[[:upper:]]+$|^a b$", $options: "x" } }, {
      projection: { "tags.$": 1 },
    }).sort({ _id: 1 }).toArray();
    assert.deepEqual(projected, [{ _id: 1, tags: ["AB"] }, { _id: 2, tags: ["ab"] }]);
    const nested = conn.db.collection<{ _id: number; docs: { t: string }[] }>("nested");
    await nested.insertOne({ _id: 1, docs: [{ t: "ab" }] });
    assert.equal(
      await nested.countDocuments({ docs: { $all: [{ $elemMatch: { t: { $regex: "a b", $options: "x" } } }] } }),
      1,
    );
  });

  test("malformed regexes get MongoDB's errors, not an internal one", async () => {
    await assert.rejects(rows.find({ s: { $regex: "a", $options: "g" } }).toArray(), withCode(51108));
    await assert.rejects(rows.find({ s: { $regex: "[a" } }).toArray(), withCode(51091));
    await assert.rejects(rows.find({ s: { $regex: /a/i, $options: "m" } }).toArray(), withCode(51075));
    await assert.rejects(rows.aggregate([{ $match: { s: { $regex: "(" } } }]).toArray(), withCode(51091));
    await assert.rejects(rows.find({ s: { $regex: "a++" } }).toArray(), withCode(51091));
    // $regex and $options are read in order: the second place options appear is refused.
    assert.deepEqual(await ids({ s: { $options: "", $regex: new BSONRegExp("^FOO", "i") } }), [1, 2, 3]);
    await assert.rejects(rows.find({ s: { $options: "m", $regex: /a/i } }).toArray(), withCode(51074));
    await assert.rejects(rows.find({ s: { $options: "i" } }).toArray(), withCode(2));
    // A cached compile does not skip the options check.
    assert.deepEqual(await ids({ s: { $regex: "/foo", $options: "i" } }), []);
    await assert.rejects(rows.find({ s: { $regex: "foo", $options: "i/" } }).toArray(), withCode(51108));
  });

  test("$pull and array filters compile their regexes the same way", async () => {
    const lists = conn.db.collection<Row>("lists");
    await lists.insertOne({ _id: 1, s: "", tags: ["x\ny", "x\ny", "xy", "ab"] });
    await lists.updateOne({ _id: 1 }, { $pull: { tags: new BSONRegExp("^x.y$", "s") } });
    assert.deepEqual((await lists.findOne({ _id: 1 }))?.tags, ["xy", "ab"]);
    await lists.updateOne({ _id: 1 }, { $pull: { tags: { $regex: "^a b", $options: "x" } } });
    assert.deepEqual((await lists.findOne({ _id: 1 }))?.tags, ["xy"]);
    await lists.updateOne({ _id: 1 }, { $set: { tags: ["q\nr", "q\nr", "qr"] } });
    await lists.updateOne({ _id: 1 }, { $set: { "tags.$[t]": "hit" } }, {
      arrayFilters: [{ t: new BSONRegExp("^q.r$", "s") }],
    });
    assert.deepEqual((await lists.findOne({ _id: 1 }))?.tags, ["hit", "hit", "qr"]);
  });

  test("$regexFindAll ends after empty matches, as MongoDB's loop does", async () => {
    assert.deepEqual(await evaluate({ $regexFindAll: { input: "abc", regex: "x*" } }), [
      { match: "", idx: 0, captures: [] },
      { match: "", idx: 1, captures: [] },
      { match: "", idx: 2, captures: [] },
    ]);
    const lazy = await evaluate({ $regexFindAll: { input: "aaa aa", regex: "(a*?)" } });
    assert.deepEqual(lazy.map((m: { idx: number }) => m.idx), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(
      await evaluate({ $regexFindAll: { input: "bbbb", regex: "()" } }),
      [0, 1, 2, 3].map((idx) => ({
        match: "",
        idx,
        captures: [""],
      })),
    );
    assert.deepEqual(await evaluate({ $regexFindAll: { input: "", regex: "" } }), [{
      match: "",
      idx: 0,
      captures: [],
    }]);
    assert.deepEqual(await evaluate({ $regexFindAll: { input: "aaaaa aaaa", regex: "(aa)+" } }), [
      { match: "aaaa", idx: 0, captures: ["aa"] },
      { match: "aaaa", idx: 6, captures: ["aa"] },
    ]);
  });

  test("indexes count code points, unmatched groups capture null, and options apply", async () => {
    assert.deepEqual(await evaluate({ $regexFindAll: { input: "$s", regex: "(x)?😀" } }), [
      { match: "😀", idx: 12, captures: [null] },
      { match: "x😀", idx: 13, captures: ["x"] },
    ]);
    assert.deepEqual(await evaluate({ $regexFind: { input: "$s", regex: "w" } }), { match: "w", idx: 6, captures: [] });
    assert.equal(await evaluate({ $regexMatch: { input: "$s", regex: "W # comment", options: "xi" } }), true);
    assert.deepEqual(await evaluate({ $regexFind: { input: "F1\nF2", regex: new BSONRegExp("F.*2", "s") } }), {
      match: "F1\nF2",
      idx: 0,
      captures: [],
    });
    assert.equal(await evaluate({ $regexFind: { input: "$missing", regex: "a" } }), null);
    assert.deepEqual(await evaluate({ $regexFindAll: { input: "$s", regex: null } }), []);
    assert.equal(await evaluate({ $regexMatch: { input: null, regex: "a" } }), false);
  });

  test("bad $regex… arguments get MongoDB's codes", async () => {
    const cases: [Document, number][] = [
      [{ $regexFind: "text" }, 51103],
      [{ $regexFind: { input: "$s", regex: "a", flags: "i" } }, 31024],
      [{ $regexFind: { input: 5, regex: "a" } }, 51104],
      [{ $regexFind: { input: "$s", regex: ["a"] } }, 51105],
      [{ $regexFind: { input: "$s", regex: "a", options: 1 } }, 51106],
      [{ $regexFind: { input: "$s", regex: 1, options: 1 } }, 51105],
      [{ $regexFind: { input: "$s", regex: new BSONRegExp("a", "i"), options: "" } }, 51107],
      [{ $regexMatch: { input: "$s", regex: "a", options: "I" } }, 51108],
      [{ $regexFindAll: { input: "$s", regex: "a\0" } }, 51109],
      [{ $regexFindAll: { input: "$s", regex: "[0-9" } }, 51111],
    ];
    for (const [expression, code] of cases) {
      await assert.rejects(evaluate(expression), withCode(code), JSON.stringify(expression));
    }
  });
});
