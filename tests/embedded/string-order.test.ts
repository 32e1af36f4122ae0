import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import type { Collection } from "mongodb";
import { type Connected, connectTarget } from "./helpers.ts";

type Row = { _id: number; s: string };

// MongoDB orders strings by their UTF-8 bytes (code point order). JavaScript's `<` orders UTF-16
// code units, which disagrees when a code point above U+FFFF (stored as surrogates, 0xD800-0xDFFF)
// meets one from U+E000 to U+FFFF. These strings sit on both sides of that line.
const TEXTS = [
  "a",
  "ab",
  "\uFF01", // fullwidth exclamation mark, U+FF01
  "\uE000", // private use, U+E000
  "\u{1F600}", // grinning face, U+1F600 (surrogates D83D DE00)
  "\u{10000}", // the first code point above U+FFFF (D800 DC00)
  "\uD7FF",
  "\uFFFF",
  "a\uFFFF",
  "a\uFFFFz",
  "a\u{1F600}",
  "a\uE000",
  "a\uD7FF",
  "a\uD7FFz",
];
const ROWS: Row[] = TEXTS.map((s, i) => ({ _id: i, s }));

/** The oracle: byte order of the UTF-8 encodings, independent of the engine's comparator. */
function byUtf8(texts: readonly string[]): string[] {
  return [...texts].sort((x, y) => Buffer.compare(Buffer.from(x, "utf8"), Buffer.from(y, "utf8")));
}

async function sorted(rows: Collection<Row>, hint?: string): Promise<string[]> {
  const found = await rows.find({}, { sort: { s: 1 }, ...(hint ? { hint } : {}) }).toArray();
  return found.map((row) => row.s);
}

describe("embedded engine: strings compare by their UTF-8 bytes, as on MongoDB", () => {
  let conn: Connected;
  let rows: Collection<Row>;
  before(async () => {
    conn = await connectTarget("string_order");
    rows = conn.db.collection<Row>("rows");
    await rows.insertMany(ROWS);
  });
  after(() => conn.close());

  test("a sort without an index", async () => {
    assert.deepEqual(await sorted(rows), byUtf8(TEXTS));
  });

  test("an index built over existing strings, and one maintained entry by entry, read in order", async () => {
    await rows.createIndex({ s: 1 }, { name: "s_built" });
    assert.deepEqual(await sorted(rows, "s_built"), byUtf8(TEXTS));
    const more = conn.db.collection<Row>("more");
    await more.createIndex({ s: 1 }, { name: "s_kept" });
    for (const row of ROWS) await more.insertOne(row);
    assert.deepEqual(await sorted(more, "s_kept"), byUtf8(TEXTS));
  });

  test("ranges and prefix regexes select by code point, with and without the index", async () => {
    const above = byUtf8(TEXTS).filter((s) => Buffer.compare(Buffer.from(s), Buffer.from("\uFF01")) > 0);
    for (const hint of [undefined, "s_built"]) {
      const options = { sort: { s: 1 as const }, ...(hint ? { hint } : {}) };
      const gt = await rows.find({ s: { $gt: "\uFF01" } }, options).toArray();
      assert.deepEqual(gt.map((row) => row.s), above, `$gt, hint ${hint}`);
      const prefixed = await rows.find({ s: { $regex: "^a\uD7FF" } }, options).toArray();
      assert.deepEqual(prefixed.map((row) => row.s), ["a\uD7FF", "a\uD7FFz"], `^a\\uD7FF, hint ${hint}`);
      const high = await rows.find({ s: { $regex: "^a\uFFFF" } }, options).toArray();
      assert.deepEqual(high.map((row) => row.s), ["a\uFFFF", "a\uFFFFz"], `^a\\uFFFF, hint ${hint}`);
    }
  });
});

describe("embedded engine: an index rebuilt at start-up keeps code point order", () => {
  test("restart over a journal", { skip: process.env.MONGODB_URI !== undefined }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "string-order-"));
    try {
      let conn = await connectTarget("string_order_restart", { dataDir });
      await conn.db.collection<Row>("rows").createIndex({ s: 1 }, { name: "s_1" });
      await conn.db.collection<Row>("rows").insertMany(ROWS);
      await conn.close();
      conn = await connectTarget("string_order_restart", { dataDir });
      try {
        assert.deepEqual(await sorted(conn.db.collection<Row>("rows"), "s_1"), byUtf8(TEXTS));
      } finally {
        await conn.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
